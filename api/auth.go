package api

import (
	"net/http"

	"github.com/ddblocal/ddblocal/auth"
)

// authenticate reads r's body and says who sent r. Without a verifier
// (no --credentials) it only reads the region from the SigV4 credential
// scope, and every caller is auth.DefaultAccount; with one, the signature
// over the raw body must verify. The body is returned decompressed.
func (s *server) authenticate(r *http.Request) (auth.Identity, []byte, error) {
	if s.cfg.Verifier == nil {
		region, err := auth.Region(r)
		if err != nil {
			return auth.Identity{}, nil, err
		}
		body, err := readBody(r)
		return auth.Identity{Account: auth.DefaultAccount, Region: region}, body, err
	}
	raw, err := readRawBody(r)
	if err != nil {
		return auth.Identity{}, nil, err
	}
	id, err := s.cfg.Verifier.Verify(r, raw)
	if err != nil {
		return auth.Identity{}, nil, err
	}
	body, err := decodeBody(r, raw)
	return id, body, err
}
