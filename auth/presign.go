package auth

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxExpires is the longest X-Amz-Expires a presigned request may carry:
// seven days, as SigV4 allows.
const MaxExpires = 7 * 24 * time.Hour

// presigned reports whether r, which has no Authorization header, carries
// its signature in its query (any X-Amz-Algorithm, X-Amz-Credential or
// X-Amz-Signature parameter).
func presigned(r *http.Request) bool {
	raw := r.URL.RawQuery
	return strings.Contains(raw, "X-Amz-Algorithm=") || strings.Contains(raw, "X-Amz-Credential=") ||
		strings.Contains(raw, "X-Amz-Signature=")
}

// readPresigned reads the claim of a presigned request: X-Amz-Algorithm,
// X-Amz-Credential, X-Amz-Date, X-Amz-SignedHeaders and X-Amz-Signature
// must all be there (IncompleteSignature names the first missing one);
// X-Amz-Expires, when there, is a whole number of seconds from 1 to
// MaxExpires and replaces the 15-minute window into the past; a session
// token comes from X-Amz-Security-Token (the query's, else the header's).
func readPresigned(r *http.Request) (claim, error) {
	q := r.URL.Query()
	for _, name := range []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-Date", "X-Amz-SignedHeaders"} {
		if q.Get(name) == "" {
			return claim{}, errorf(IncompleteSignature, "AWS query-string parameters must include '"+name+"'. Re-examine the query-string parameters.")
		}
	}
	c := claim{presigned: true, a: Authorization{Algorithm: q.Get("X-Amz-Algorithm"), Credential: q.Get("X-Amz-Credential"),
		SignedHeaders: q.Get("X-Amz-SignedHeaders"), Signature: q.Get("X-Amz-Signature")}}
	if c.a.Algorithm != Algorithm {
		return claim{}, errorf(IncompleteSignature, "Unsupported AWS 'algorithm': '"+c.a.Algorithm+"'")
	}
	c.stamp = q.Get("X-Amz-Date")
	t, ok := parseBasic(c.stamp)
	if !ok {
		return claim{}, errorf(IncompleteSignature,
			"Date must be in ISO-8601 'basic format'. Got '"+c.stamp+"'. See http://en.wikipedia.org/wiki/ISO_8601")
	}
	c.t = t
	if e := q.Get("X-Amz-Expires"); e != "" {
		secs, err := strconv.ParseInt(e, 10, 64)
		if err != nil || secs < 1 || time.Duration(secs)*time.Second > MaxExpires {
			return claim{}, errorf(IncompleteSignature, "X-Amz-Expires must be a whole number of seconds from 1 to 604800, got '"+e+"'.")
		}
		c.expires = time.Duration(secs) * time.Second
	}
	c.token = q.Get("X-Amz-Security-Token")
	if _, inQuery := q["X-Amz-Security-Token"]; !inQuery {
		c.token = headerValue(r.Header, "X-Amz-Security-Token")
	}
	return c, nil
}
