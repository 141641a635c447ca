package api

import (
	"net/http"
	"strings"
	"unicode"

	"github.com/ddblocal/ddblocal/table"
)

// msgMissingAuth is Coral's text for a request without credentials.
const msgMissingAuth = "Request is missing Authentication Token"

// regionOf returns the region of a request's SigV4 credential scope, taken
// from the Authorization header or, for presigned requests, the
// X-Amz-Credential query parameter. The signature is not verified.
func regionOf(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
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
	for p := range strings.FieldsFuncSeq(params, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
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

// credentialRegion returns the region element of "keyid/date/region/service/term".
func credentialRegion(cred string) (string, error) {
	parts := strings.Split(cred, "/")
	if len(parts) != 5 {
		return "", credentialError(cred)
	}
	return parts[2], nil
}

func credentialError(cred string) *table.Error {
	return apiErr(codeIncompleteSignature,
		"Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '"+cred+"'")
}
