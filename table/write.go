package table

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
)

// mutation is one item write, fully validated before the store is touched.
type mutation struct {
	meta *tableMeta
	key  []byte
	cond *expressions.Condition
	// next computes the item after the write from the item before it (nil when
	// absent); it returns nil to delete. It must be pure: a store transaction
	// may run it more than once.
	next func(old attr.Item) (attr.Item, error)
	// returnOldOnFailure puts the old item in a ConditionalCheckFailedException.
	returnOldOnFailure bool
}

// written is what a committed mutation did.
type written struct {
	old, new         attr.Item
	oldSize, newSize int
}

// apply performs mu inside tx: read the old item, check the condition, compute
// the new item, write it, keep the counters and append to the change log. It
// changes nothing when it returns an error.
func (mu *mutation) apply(tx *store.Tx, now int64) (written, error) {
	var w written
	sp := tx.Space(mu.meta.ID)
	if sp == nil {
		return w, Errorf(ResourceNotFoundException, "Requested resource not found")
	}
	raw := sp.Get(mu.key)
	if raw != nil {
		old, err := attr.DecodeBinary(raw)
		if err != nil {
			return w, err
		}
		w.old, w.oldSize = old, old.Size()
	}
	if mu.cond != nil && !mu.cond.Eval(w.old) {
		e := Errorf(ConditionalCheckFailedException, "The conditional request failed")
		if mu.returnOldOnFailure {
			e.Item = w.old
		}
		return w, e
	}
	next, err := mu.next(w.old)
	if err != nil {
		return w, validationError(err)
	}
	w.new = next
	if next == nil && raw == nil {
		return w, nil // deleting an absent item changes nothing
	}
	var newBytes []byte
	if next != nil {
		w.newSize = next.Size()
		newBytes = attr.AppendBinary(nil, next)
		if err := sp.Put(mu.key, newBytes); err != nil {
			return w, err
		}
	} else if err := sp.Delete(mu.key); err != nil {
		return w, err
	}
	var items int64
	switch {
	case raw == nil:
		items = 1
	case next == nil:
		items = -1
	}
	if err := sp.AddStats(items, int64(w.newSize-w.oldSize)); err != nil {
		return w, err
	}
	rec := changelog.Append(nil, changelog.Record{Time: now, Key: mu.key, Old: raw, New: newBytes})
	if _, err := sp.AppendLog(rec); err != nil {
		return w, err
	}
	return w, nil
}

// commit runs one mutation in its own store transaction.
func (s *Service) commit(ctx context.Context, mu *mutation) (written, error) {
	var w written
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		w, err = mu.apply(tx, s.now().UnixNano())
		return err
	})
	return w, err
}

// validationError turns the value-model and expression errors, which speak
// DynamoDB's words, into ValidationExceptions; other errors pass through.
func validationError(err error) error {
	var ae *attr.Error
	var ee *expressions.Error
	switch {
	case errors.As(err, &ae):
		return Errorf(ValidationException, "%s", ae.Msg)
	case errors.As(err, &ee):
		return Errorf(ValidationException, "%s", ee.Msg)
	}
	return err
}
