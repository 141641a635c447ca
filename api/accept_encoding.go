package api

import (
	"net/http"
	"strconv"
	"strings"
)

// minCompressed is the smallest response body DynamoDB compresses: 4 KB.
// Smaller answers go out as they are, whatever the client accepts
// (ScyllaDB's test_compressed_response.py, checked against DynamoDB: a
// GetItem answer just under 4096 bytes is not compressed, one just over
// is). Which side of the boundary 4096 itself falls on is not recorded;
// it is compressed here.
const minCompressed = 4096

// Response codings DynamoDB offers.
const (
	codingNone = iota
	codingGzip
	codingDeflate
)

// acceptPref is what an Accept-Encoding header says of one coding.
type acceptPref struct {
	q    float64
	pos  int  // position of its first entry
	seen bool // named in the header (not only through *)
}

// responseCoding picks the coding of a response to a request with header
// h, as DynamoDB picks it (the same ScyllaDB tests, which record the
// service's choices for about 40 headers): only the last Accept-Encoding
// line counts; of gzip and deflate the one with the higher q wins (q
// clamped to 0..1, a q that is no number counting as 1, the first q of an
// entry read, a coding named twice taking its best q); at equal q a coding
// named beats one reached through *, the one named first beats the other,
// and through * gzip beats deflate. A q of 0 refuses; identity and
// unknown codings are ignored.
func responseCoding(h http.Header) int {
	v := h.Values(hdrAcceptEncoding)
	if len(v) == 0 {
		return codingNone
	}
	var gz, df, star acceptPref
	for i, part := range strings.Split(v[len(v)-1], ",") {
		coding, params, _ := strings.Cut(part, ";")
		q := acceptQ(params)
		var p *acceptPref
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip":
			p = &gz
		case "deflate":
			p = &df
		case "*":
			p = &star
		default:
			continue
		}
		if !p.seen {
			*p = acceptPref{q: q, pos: i, seen: true}
		} else if q > p.q {
			p.q = q
		}
	}
	if !gz.seen && star.seen {
		gz = acceptPref{q: star.q, pos: 1 << 30}
	}
	if !df.seen && star.seen {
		df = acceptPref{q: star.q, pos: 1<<30 + 1}
	}
	switch {
	case gz.q <= 0 && df.q <= 0:
		return codingNone
	case gz.q > df.q, gz.q == df.q && gz.pos < df.pos:
		return codingGzip
	}
	return codingDeflate
}

// acceptQ reads the q parameter among an Accept-Encoding entry's params
// (";q=0.5;..."): the first q counts; none, or one that is no number, is 1.
func acceptQ(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		name, val, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || q != q { // q != q: NaN
			return 1
		}
		return min(max(q, 0), 1)
	}
	return 1
}
