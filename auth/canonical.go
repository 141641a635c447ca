package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// appendCanonicalRequest appends SigV4's canonical request for r to b, as
// the AWS SDKs build it:
//
//	METHOD \n URI \n QUERY \n name:value \n … \n \n signed;headers \n payload-hash
//
// The URI is the escaped path escaped once more (every service but S3);
// the query's names and values are escaped and sorted; each signed header
// (in the order of signedHeaders) lists its values trimmed, runs of spaces
// folded into one, joined by commas; host is r.Host. The payload hash is
// the hex SHA-256 of body, or UNSIGNED-PAYLOAD when x-amz-content-sha256
// says so. A presigned request's query leaves out X-Amz-Signature.
func appendCanonicalRequest(b []byte, r *http.Request, signedHeaders string, body []byte, presigned bool) []byte {
	b = append(b, r.Method...)
	b = append(b, '\n')
	b = appendEscaped(b, r.URL.EscapedPath(), false)
	if r.URL.EscapedPath() == "" {
		b = append(b, '/')
	}
	b = append(b, '\n')
	b = appendCanonicalQuery(b, r.URL.RawQuery, presigned)
	b = append(b, '\n')
	for name := range strings.SplitSeq(signedHeaders, ";") {
		b = append(b, name...)
		b = append(b, ':')
		b = appendHeaderValues(b, r, name)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	b = append(b, signedHeaders...)
	b = append(b, '\n')
	if headerValue(r.Header, "X-Amz-Content-Sha256") == unsignedPayload {
		return append(b, unsignedPayload...)
	}
	sum := sha256.Sum256(body)
	return hex.AppendEncode(b, sum[:])
}

// appendHeaderValues appends the canonical value of the header named
// (lower-case) name.
func appendHeaderValues(b []byte, r *http.Request, name string) []byte {
	switch name {
	case "host":
		return appendTrimmed(b, r.Host)
	case "content-length":
		if _, ok := r.Header["Content-Length"]; !ok && r.ContentLength >= 0 {
			return strconv.AppendInt(b, r.ContentLength, 10)
		}
	}
	for i, v := range r.Header[canonicalKey(name)] {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTrimmed(b, v)
	}
	return b
}

// appendTrimmed appends v without leading and trailing white space and
// with every run of spaces folded into one.
func appendTrimmed(b []byte, v string) []byte {
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' && i > 0 && v[i-1] == ' ' {
			continue
		}
		b = append(b, v[i])
	}
	return b
}

// canonicalKey is textproto.CanonicalMIMEHeaderKey, without allocating for
// the headers the SDKs sign.
func canonicalKey(name string) string {
	switch name {
	case "accept-encoding":
		return "Accept-Encoding"
	case "amz-sdk-invocation-id":
		return "Amz-Sdk-Invocation-Id"
	case "amz-sdk-request":
		return "Amz-Sdk-Request"
	case "content-type":
		return "Content-Type"
	case "content-length":
		return "Content-Length"
	case "content-encoding":
		return "Content-Encoding"
	case "x-amz-date":
		return "X-Amz-Date"
	case "x-amz-target":
		return "X-Amz-Target"
	case "x-amz-security-token":
		return "X-Amz-Security-Token"
	case "x-amz-content-sha256":
		return "X-Amz-Content-Sha256"
	case "x-amz-user-agent":
		return "X-Amz-User-Agent"
	case "user-agent":
		return "User-Agent"
	}
	return textproto.CanonicalMIMEHeaderKey(name)
}

// appendCanonicalQuery appends the canonical form of a raw query: every
// name and value decoded, then escaped (space as %20), and the pairs
// sorted by name, then value; X-Amz-Signature is left out when presigned.
func appendCanonicalQuery(b []byte, raw string, presigned bool) []byte {
	if raw == "" {
		return b
	}
	q, _ := url.ParseQuery(raw)
	type pair struct{ k, v string }
	var pairs []pair
	if presigned {
		delete(q, "X-Amz-Signature")
	}
	for k, vs := range q {
		ek := string(appendEscaped(nil, k, true))
		for _, v := range vs {
			pairs = append(pairs, pair{ek, string(appendEscaped(nil, v, true))})
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if c := strings.Compare(x.k, y.k); c != 0 {
			return c
		}
		return strings.Compare(x.v, y.v)
	})
	for i, p := range pairs {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, p.k...)
		b = append(b, '=')
		b = append(b, p.v...)
	}
	return b
}

// appendEscaped appends s with every byte but the unreserved ones
// (A-Z a-z 0-9 - _ . ~) percent-encoded in upper-case hex; '/' is kept
// unless slash is set.
func appendEscaped(b []byte, s string, slash bool) []byte {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || (c == '/' && !slash) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
	}
	return b
}
