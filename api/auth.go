package api

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/table"
)

// msgMissingAuth is Coral's text for a request without credentials.
const msgMissingAuth = "Request is missing Authentication Token"

// regionOf returns the region of a request's SigV4 credential scope, taken
// from the Authorization header or, for presigned requests, the
// X-Amz-Credential query parameter. The signature is not verified.
func regionOf(r *http.Request) (string, error) {
	h := header(r.Header, hdrAuthorization)
	if h == "" {
		if c := r.URL.Query().Get("X-Amz-Credential"); c != "" {
			return credentialRegion(c)
		}
		return "", apiErr(codeMissingAuth, msgMissingAuth)
	}
	return authorizationRegion(h)
}

// authorizationRegion parses
// "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-west-2/dynamodb/aws4_request, SignedHeaders=…, Signature=…".
func authorizationRegion(h string) (string, error) {
	_, params, _ := strings.Cut(strings.TrimSpace(h), " ")
	var cred string
	var haveCred, haveSigned, haveSig bool
	// Coral splits the parameters on commas and whitespace alike, so a
	// stray space inside a value yields a pair without '='.
	for rest := params; ; {
		p := nextField(&rest)
		if p == "" {
			break
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return "", apiErr(codeIncompleteSignature,
				"'"+p+"' not a valid key=value pair (missing equal-sign) in Authorization header: '"+h+"'.")
		}
		switch k {
		case "Credential":
			cred, haveCred = v, true
		case "SignedHeaders":
			haveSigned = true
		case "Signature":
			haveSig = true
		}
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
	if missing.Len() > 0 {
		return "", apiErr(codeIncompleteSignature, missing.String()+"Authorization="+h)
	}
	return credentialRegion(cred)
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

// credentialRegion returns the region element of "keyid/date/region/service/term".
func credentialRegion(cred string) (string, error) {
	if strings.Count(cred, "/") != 4 {
		return "", credentialError(cred)
	}
	_, rest, _ := strings.Cut(cred, "/")
	_, rest, _ = strings.Cut(rest, "/")
	region, _, _ := strings.Cut(rest, "/")
	return region, nil
}

func credentialError(cred string) *table.Error {
	return apiErr(codeIncompleteSignature,
		"Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '"+cred+"'")
}
