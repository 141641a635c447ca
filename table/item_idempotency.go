package table

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// tokenTTL is how long a ClientRequestToken is remembered after the request
// that used it completed (DynamoDB's 10-minute idempotency window).
const tokenTTL = 10 * time.Minute

// Idempotency errors, in DynamoDB's words.
const (
	msgIdempotentMismatch = "Request parameters do not match the previously used request parameters"
	msgTokenInProgress    = "The transaction with the given request token is already in progress."
)

// tokenCache remembers the TransactWriteItems requests that succeeded with a
// ClientRequestToken, so that a retry within tokenTTL returns the first
// answer without applying the writes again. It is owned by one Service, kept
// in memory only, and safe for concurrent use.
//
// Only successes are remembered: a cancelled or failed transaction changed
// nothing, so a retry with its token simply runs again.
type tokenCache struct {
	mu      sync.Mutex
	entries map[string]*tokenEntry // by region + "\x00" + token
	// order holds entries by completion time, oldest first, so expired ones
	// are dropped from the front without scanning the map.
	order []*tokenEntry
}

// tokenEntry is one remembered token.
type tokenEntry struct {
	id     string
	digest [sha256.Size]byte // the request's parameters, token excluded
	out    *ddb.TransactWriteItemsOutput
	done   time.Time // zero while the first request is running
}

func newTokenCache() *tokenCache {
	return &tokenCache{entries: map[string]*tokenEntry{}}
}

// requestDigest fingerprints a request's parameters apart from its token.
// encoding/json sorts map keys, so equal requests give equal digests.
func requestDigest(in *ddb.TransactWriteItemsInput) ([sha256.Size]byte, error) {
	c := *in
	c.ClientRequestToken = nil
	b, err := json.Marshal(&c)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}

// begin claims token for a request with digest d at time now. It returns the
// remembered output of an earlier identical success (the caller answers with
// it), or nil with the caller now owning the token until it calls finish.
// The errors are IdempotentParameterMismatchException for a different
// request under a remembered token and TransactionInProgressException while
// another request holds the token.
func (c *tokenCache) begin(region, token string, d [sha256.Size]byte, now time.Time) (*ddb.TransactWriteItemsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	id := region + "\x00" + token
	if e := c.entries[id]; e != nil {
		switch {
		case e.digest != d:
			return nil, ddb.Errorf(ddb.IdempotentParameterMismatchException, msgIdempotentMismatch)
		case e.done.IsZero():
			return nil, ddb.Errorf(ddb.TransactionInProgressException, msgTokenInProgress)
		}
		return e.out, nil
	}
	c.entries[id] = &tokenEntry{id: id, digest: d}
	return nil, nil
}

// finish records the outcome of the request that began with token: out is
// remembered from now on, or, when out is nil (the request failed), the
// token is released.
func (c *tokenCache) finish(region, token string, out *ddb.TransactWriteItemsOutput, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := region + "\x00" + token
	e := c.entries[id]
	if e == nil || !e.done.IsZero() {
		return
	}
	if out == nil {
		delete(c.entries, id)
		return
	}
	e.out, e.done = out, now
	c.order = append(c.order, e)
}

// expire forgets the tokens that completed more than tokenTTL before now.
func (c *tokenCache) expire(now time.Time) {
	for len(c.order) > 0 && now.Sub(c.order[0].done) >= tokenTTL {
		e := c.order[0]
		if c.entries[e.id] == e {
			delete(c.entries, e.id)
		}
		// Reslicing forward; append reallocates (dropping the dead prefix)
		// when the array fills.
		c.order[0] = nil
		c.order = c.order[1:]
	}
}

// errTokenUsed is returned inside a TransactWriteItems transaction whose
// ClientRequestToken another front-end has already used for the same
// request: the caller replays instead of writing.
var errTokenUsed = errors.New("table: client request token already used")

// sharedToken is a ClientRequestToken in cluster mode, where a retry may
// reach another front-end: the token is stored with the transaction's
// writes, under a lease of tokenTTL, and checked in the same transaction.
// A nil *sharedToken (single-process mode, or no token) does nothing.
type sharedToken struct {
	key    []byte
	digest [sha256.Size]byte
}

// check returns errTokenUsed when an identical request committed under the
// token, and IdempotentParameterMismatchException when a different one did.
func (t *sharedToken) check(tx *store.Tx) error {
	if t == nil {
		return nil
	}
	switch b := tx.GetExpiring(t.key); {
	case b == nil:
		return nil
	case !bytes.Equal(b, t.digest[:]):
		return ddb.Errorf(ddb.IdempotentParameterMismatchException, msgIdempotentMismatch)
	}
	return errTokenUsed
}

// record stores the token with the transaction's writes.
func (t *sharedToken) record(tx *store.Tx) error {
	if t == nil {
		return nil
	}
	return tx.PutExpiring(t.key, t.digest[:], tokenTTL)
}
