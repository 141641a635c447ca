package api

import (
	"context"
	"crypto/rand"
	"sync/atomic"
)

// Request ids are 52 characters of crypto/rand.Text's alphabet (base32,
// upper case and digits), the shape of DynamoDB's x-amzn-RequestId.
const (
	idAlphabet  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	idLen       = 52
	idSeqDigits = 13 // 13 base32 digits hold a uint64 (65 bits)
	idPrefixLen = idLen - idSeqDigits
)

// idMix is an odd constant (2^64/φ): multiplying by it permutes uint64, so
// consecutive sequence numbers give distinct ids that do not look sequential.
const idMix = 0x9E3779B97F4A7C15

// idGen makes request ids: a random prefix drawn once per handler (195
// bits, so ids do not repeat across restarts) followed by a per-request
// sequence number. Drawing 260 random bits per request cost two
// crypto/rand calls on every request.
type idGen struct {
	prefix [idPrefixLen]byte
	seq    atomic.Uint64
}

// newIDGen returns a generator with a fresh random prefix.
func newIDGen() *idGen {
	g := new(idGen)
	copy(g.prefix[:], rand.Text()+rand.Text())
	return g
}

// next returns a request id no other call of any generator returns.
func (g *idGen) next() string {
	var b [idLen]byte
	copy(b[:], g.prefix[:])
	n := g.seq.Add(1) * idMix
	for i := idLen - 1; i >= idPrefixLen; i-- {
		b[i] = idAlphabet[n&31]
		n >>= 5
	}
	return string(b[:])
}

// reqCtx is the context handlers see: the request's own context plus its
// id. It replaces context.WithValue plus http.Request.WithContext, which
// together allocated a copy of the whole request on every call.
type reqCtx struct {
	context.Context
	id string
}

// ctxKey keys the request id in a request's context.
type ctxKey struct{}

// Value returns the request id for ctxKey and defers to the request's
// context for every other key.
func (c *reqCtx) Value(key any) any {
	if _, ok := key.(ctxKey); ok {
		return c.id
	}
	return c.Context.Value(key)
}

// RequestID returns the x-amzn-RequestId of the request ctx belongs to, or
// "" outside a request served by NewHandler. Handlers use it to tie their
// logs to the client's view.
func RequestID(ctx context.Context) string {
	if c, ok := ctx.(*reqCtx); ok {
		return c.id
	}
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}
