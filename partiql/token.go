package partiql

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	"github.com/ddblocal/ddblocal/attr"
)

// pageToken is what a NextToken carries: which of the plan's reads to
// continue (the Query of the I-th partition), from which key, and a digest
// of the statement and parameters it belongs to.
type pageToken struct {
	I int       `json:"i"`
	K attr.Item `json:"k,omitempty"`
	H string    `json:"h"`
}

// request is the statement and parameters a NextToken belongs to; its
// digest is computed only when a token is read or written.
type request struct {
	stmt   string
	params []attr.Value
	digest string
}

func (r *request) hash() string {
	if r.digest == "" {
		r.digest = requestDigest(r.stmt, r.params)
	}
	return r.digest
}

// requestDigest identifies a statement with its parameters.
func requestDigest(stmt string, params []attr.Value) string {
	h := sha256.New()
	h.Write([]byte(stmt))
	h.Write([]byte{0})
	p, _ := json.Marshal(params) // attribute values always encode
	h.Write(p)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func encodeToken(t pageToken) *string {
	b, _ := json.Marshal(t) // attribute values always encode
	s := base64.RawURLEncoding.EncodeToString(b)
	return &s
}

// decodeToken reads a NextToken given for the request whose digest is h.
func decodeToken(s, h string) (pageToken, error) {
	var t pageToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &t) != nil || t.I < 0 {
		return t, semErr(-1, "Invalid NextToken")
	}
	if t.H != h {
		return t, semErr(-1, "NextToken does not match request")
	}
	return t, nil
}
