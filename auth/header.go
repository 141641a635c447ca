package auth

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Algorithm is the only signing algorithm DynamoDB accepts.
const Algorithm = "AWS4-HMAC-SHA256"

// Authorization is a parsed SigV4 Authorization header:
//
//	AWS4-HMAC-SHA256 Credential=AKID/20250101/us-west-2/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=hex
//
// Its strings are substrings of the header.
type Authorization struct {
	Algorithm     string // the first word, e.g. "AWS4-HMAC-SHA256"
	Credential    string // "keyid/date/region/service/term"
	SignedHeaders string // "host;x-amz-date;…", as sent
	Signature     string // hex, as sent
}

// ParseAuthorization parses the Authorization header h as Coral does: the
// parameters after the algorithm are separated by commas and white space
// alike, so a stray space inside a value yields a pair without '='. It
// fails with IncompleteSignature when a pair has no '=' or when Credential,
// Signature or SignedHeaders is missing (all missing ones are named). A
// repeated parameter keeps its last value. It does not look inside the
// values; see ParseCredential.
func ParseAuthorization(h string) (Authorization, error) {
	var a Authorization
	a.Algorithm, _, _ = strings.Cut(strings.TrimSpace(h), " ")
	_, params, _ := strings.Cut(strings.TrimSpace(h), " ")
	var haveCred, haveSigned, haveSig bool
	for rest := params; ; {
		p := nextField(&rest)
		if p == "" {
			break
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return a, errorf(IncompleteSignature,
				"'"+p+"' not a valid key=value pair (missing equal-sign) in Authorization header: '"+h+"'.")
		}
		switch k {
		case "Credential":
			a.Credential, haveCred = v, true
		case "SignedHeaders":
			a.SignedHeaders, haveSigned = v, true
		case "Signature":
			a.Signature, haveSig = v, true
		}
	}
	if haveCred && haveSig && haveSigned {
		return a, nil
	}
	var missing strings.Builder
	for _, m := range []struct {
		have bool
		name string
	}{{haveCred, "Credential"}, {haveSig, "Signature"}, {haveSigned, "SignedHeaders"}} {
		if !m.have {
			missing.WriteString("Authorization header requires '" + m.name + "' parameter. ")
		}
	}
	return a, errorf(IncompleteSignature, missing.String()+"Authorization="+h)
}

// Scope is a credential "keyid/date/region/service/term" split up.
type Scope struct {
	AccessKey, Date, Region, Service, Terminator string
}

// ParseCredential splits a Credential parameter, failing with
// IncompleteSignature unless it has exactly five slash-separated elements.
// Elements may be empty.
func ParseCredential(cred string) (Scope, error) {
	if strings.Count(cred, "/") != 4 {
		return Scope{}, errorf(IncompleteSignature,
			"Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '"+cred+"'")
	}
	var s Scope
	s.AccessKey, cred, _ = strings.Cut(cred, "/")
	s.Date, cred, _ = strings.Cut(cred, "/")
	s.Region, cred, _ = strings.Cut(cred, "/")
	s.Service, s.Terminator, _ = strings.Cut(cred, "/")
	return s, nil
}

// Region returns the region of r's SigV4 credential scope, from the
// Authorization header or, for presigned requests, the X-Amz-Credential
// query parameter, without verifying anything. A request with neither
// fails with MissingAuthenticationToken.
func Region(r *http.Request) (string, error) {
	var h string
	if v := r.Header["Authorization"]; len(v) > 0 {
		h = v[0]
	}
	if h == "" {
		if c := r.URL.Query().Get("X-Amz-Credential"); c != "" {
			s, err := ParseCredential(c)
			return s.Region, err
		}
		return "", errorf(MissingAuthenticationToken, msgMissingAuth)
	}
	a, err := ParseAuthorization(h)
	if err != nil {
		return "", err
	}
	s, err := ParseCredential(a.Credential)
	return s.Region, err
}

// nextField returns the next field of *s separated by commas or white
// space, as strings.FieldsFunc would, and advances *s past it; "" means no
// field is left. It runs on every request over a header of some 250
// bytes, so printable ASCII, the whole of a usual header, takes a tight
// loop; anything else is decoded as a rune.
func nextField(s *string) string {
	str := *s
	i := 0
	for i < len(str) {
		if c := str[i]; c < utf8.RuneSelf {
			if !asciiSep(c) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(str[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	start := i
	for i < len(str) {
		c := str[i]
		if c > ' ' && c < utf8.RuneSelf && c != ',' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			if asciiSep(c) {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(str[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += size
	}
	*s = str[i:]
	return str[start:i]
}

// asciiSep reports whether the ASCII byte c separates Authorization
// parameters: a comma or what unicode.IsSpace calls space.
func asciiSep(c byte) bool {
	return c == ',' || c == ' ' || ('\t' <= c && c <= '\r')
}
