package table

import (
	"bytes"
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/ddb"
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
	// may run it more than once. It is nil for a put of enc (see nextItem).
	next func(old attr.Item) (attr.Item, error)
	// returnOldOnFailure puts the old item in a ConditionalCheckFailedException.
	returnOldOnFailure bool
	// expired marks a Time to Live deletion: its change-log record says so,
	// and streams give it the service's identity.
	expired bool
	// keepLog asks for a change-log record even when the table has no
	// global index: its reads may lag (see Service.keepsLog).
	keepLog bool
	// blind marks a put whose new item does not depend on the old one and
	// whose caller does not need the old item (no condition, no ALL_OLD):
	// see blindPut.
	blind bool
	// enc, when set, is the storage encoding of the item to put (a
	// BatchWriteItem put's attr.Encoded): stored as is, and a blind put
	// never decodes it.
	enc []byte
	// seen is what admission read and computed (throttling on, see
	// admitWrite): decide reuses it while the stored item is still the one
	// admission saw, so that the old item is decoded and the update applied
	// once per write.
	seen *seenItem
	// origin and originTime mark a write replicated from another replica
	// of a global table: its Region and commit time there.
	origin     string
	originTime int64
}

// seenItem is a write's old item as admission read it, and the new item
// (or the error) it computed from it.
type seenItem struct {
	raw     []byte // the stored bytes (a copy), nil when absent
	old     attr.Item
	next    attr.Item
	nextErr error
}

// logMeta names the space metadata that marks a table whose writes must be
// logged although its definition, as a writer may have cached it, has no
// global index: UpdateTable sets it in the transaction that adds one.
const logMeta = "log"

// written is what a committed mutation did.
type written struct {
	old, new         attr.Item
	oldSize, newSize int
	// stored says that an item is under the key after the write: new is
	// nil after a blind put of an encoded item, which is never decoded.
	stored bool
	// logged says that the write appended a change-log record.
	logged   bool
	lsi, gsi map[string]float64 // write units per index
	vec      map[string]float64 // bytes replicated per vector index
	// collection is the item collection size after the write, in bytes, for
	// tables with local secondary indexes (-1 otherwise).
	collection int64
}

// apply performs mu inside tx: read the old item, check the condition, compute
// the new item, write it and its local index entries, keep the counters and
// the item collection size, and append to the change log. Global indexes
// follow from the change log. It changes nothing when it returns an error.
func (mu *mutation) apply(tx *store.Tx, now int64) (written, error) {
	return mu.applyIn(tx, now, nil)
}

// spaceWrites carries what the writes of one BatchWriteItem share within its
// transaction: each table's space, opened once, and its counter changes,
// added to the store once at the end (flush) rather than once per item.
type spaceWrites struct {
	spaces map[string]*store.Space
	stats  map[string]*[2]int64 // items, bytes
}

// space returns the space of table id, opening it on first use; with a nil
// sw, each call opens it.
func (sw *spaceWrites) space(tx *store.Tx, id string) *store.Space {
	if sw == nil {
		return tx.Space(id)
	}
	sp, ok := sw.spaces[id]
	if !ok {
		sp = tx.Space(id)
		sw.spaces[id] = sp
	}
	return sp
}

// flush adds the gathered counter changes to the store.
func (sw *spaceWrites) flush() error {
	for id, st := range sw.stats {
		if err := sw.spaces[id].AddStats(st[0], st[1]); err != nil {
			return err
		}
	}
	return nil
}

// applyIn is apply, with the space and counters taken from sw when it is
// not nil (the caller then flushes sw before its transaction ends).
func (mu *mutation) applyIn(tx *store.Tx, now int64, sw *spaceWrites) (written, error) {
	w := written{collection: -1}
	sp := sw.space(tx, mu.meta.ID)
	if sp == nil {
		return w, ddb.NotFound("")
	}
	if mu.blind && len(mu.meta.lsis) == 0 && !mu.logged(sp) {
		return mu.blindPut(sp, sw)
	}
	raw := sp.Get(mu.key)
	if err := mu.decide(raw, &w); err != nil {
		return w, err
	}
	if w.new == nil && raw == nil {
		return w, nil // deleting an absent item changes nothing
	}
	// Every check comes before the first write.
	lw, err := mu.planLocal(sp, &w)
	if err != nil {
		return w, err
	}
	for _, d := range mu.meta.gsis {
		w.gsi = addUnits(w.gsi, d.Name, capacity.IndexWriteUnits(d.Diff(mu.key, w.old, w.new)))
	}
	if len(mu.meta.vectors) > 0 {
		w.vec = mu.meta.vectorWriteBytes(w.old, w.new)
	}
	newBytes, err := mu.store(sp, sw, raw, w)
	if err != nil {
		return w, err
	}
	if err := applyLocal(lw, tx, sp, mu.meta); err != nil {
		return w, err
	}
	w.logged, err = mu.appendLog(sp, now, raw, newBytes)
	return w, err
}

// decide reads the old item from raw (its stored bytes, nil when absent),
// checks the condition and computes the new item, filling in w's items and
// sizes.
func (mu *mutation) decide(raw []byte, w *written) error {
	seen := mu.seen
	if seen != nil && !bytes.Equal(raw, seen.raw) {
		seen = nil // changed since admission: read it afresh
	}
	if raw != nil {
		old := attr.Item(nil)
		if seen != nil {
			old = seen.old
		} else {
			var err error
			if old, err = attr.DecodeBinary(raw); err != nil {
				return err
			}
		}
		size, err := attr.BinarySize(raw) // recorded in the encoding: no walk
		if err != nil {
			return err
		}
		w.old, w.oldSize = old, size
	}
	if mu.cond != nil && !mu.cond.Eval(w.old) {
		e := ddb.Errorf(ddb.ConditionalCheckFailedException, "The conditional request failed")
		if mu.returnOldOnFailure {
			e.Item = w.old
		}
		return e
	}
	var next attr.Item
	var err error
	if seen != nil {
		next, err = seen.next, seen.nextErr
	} else {
		next, err = mu.nextItem(w.old)
	}
	if err != nil {
		return validationError(err)
	}
	w.new, w.stored = next, next != nil
	if next != nil {
		w.newSize = next.Size()
	}
	return nil
}

// store writes w's new item under mu's key, or deletes it, and counts the
// change; raw is the old item's bytes. It returns the new item's bytes.
func (mu *mutation) store(sp *store.Space, sw *spaceWrites, raw []byte, w written) ([]byte, error) {
	var newBytes []byte
	var items int64
	if w.new != nil {
		newBytes = mu.encoded(w.new, w.newSize)
		if err := sp.PutOwned(mu.key, newBytes); err != nil {
			return nil, err
		}
		if raw == nil {
			items = 1
		}
	} else {
		if err := sp.Delete(mu.key); err != nil {
			return nil, err
		}
		items = -1
	}
	return newBytes, mu.count(sp, sw, items, int64(w.newSize-w.oldSize))
}

// appendLog appends the write's change-log record, when the table logs its
// writes (it reports whether it did): raw and newBytes are the item before
// and after.
func (mu *mutation) appendLog(sp *store.Space, now int64, raw, newBytes []byte) (bool, error) {
	if !mu.logged(sp) {
		return false, nil
	}
	rec := changelog.Append(make([]byte, 0, 48+len(mu.key)+len(raw)+len(newBytes)),
		changelog.Record{Time: now, Key: mu.key, Old: raw, New: newBytes, Expired: mu.expired, Origin: mu.origin, OriginTime: mu.originTime})
	_, err := sp.AppendLogOwned(rec)
	return err == nil, err
}

// nextItem returns the item after the write: mu.next's answer, or the
// decoded mu.enc for a put that came encoded.
func (mu *mutation) nextItem(old attr.Item) (attr.Item, error) {
	if mu.next == nil {
		return attr.DecodeBinary(mu.enc)
	}
	return mu.next(old)
}

// logged reports whether the write must append a change-log record. The log
// feeds global indexes and lagging reads, nothing else: without them, a
// record would only be written and trimmed again.
func (mu *mutation) logged(sp *store.Space) bool {
	return mu.keepLog || len(mu.meta.gsis) > 0 || len(mu.meta.vectors) > 0 || sp.GetMeta(logMeta) != nil
}

// encoded returns the stored form of item, whose Size is size: mu.enc when
// the item came encoded, else its encoding, in a buffer sized for the usual
// item (short names and values) so that it does not regrow. The store may
// keep it: nobody modifies it afterwards.
func (mu *mutation) encoded(item attr.Item, size int) []byte {
	if mu.enc != nil {
		return mu.enc
	}
	return attr.AppendBinarySized(make([]byte, 0, size+4*len(item)+8), item, size)
}

// blindPut is applyIn for a blind put on a table without indexes or change
// log: nothing needs the old item but its size (capacity, counters), which
// the store hands back from the same search that stores the new one.
func (mu *mutation) blindPut(sp *store.Space, sw *spaceWrites) (written, error) {
	w := written{collection: -1, stored: true}
	var val []byte
	if mu.enc != nil {
		size, err := attr.BinarySize(mu.enc)
		if err != nil {
			return w, err
		}
		w.newSize, val = size, mu.enc
	} else {
		next, err := mu.next(nil)
		if err != nil {
			return w, validationError(err)
		}
		w.new, w.newSize = next, next.Size()
		val = mu.encoded(next, w.newSize)
	}
	raw, err := sp.SwapOwned(mu.key, val)
	if err != nil {
		return w, err
	}
	var items int64 = 1
	if raw != nil {
		if w.oldSize, err = attr.BinarySize(raw); err != nil {
			return w, err
		}
		items = 0
	}
	return w, mu.count(sp, sw, items, int64(w.newSize-w.oldSize))
}

// count adds a write's changes to the table's item and byte counters: to
// sw's tally when the caller gathers them, else to the store.
func (mu *mutation) count(sp *store.Space, sw *spaceWrites, items, bytes int64) error {
	if sw == nil {
		return sp.AddStats(items, bytes)
	}
	st := sw.stats[mu.meta.ID]
	if st == nil {
		st = new([2]int64)
		sw.stats[mu.meta.ID] = st
	}
	st[0] += items
	st[1] += bytes
	return nil
}

func addUnits(m map[string]float64, name string, u float64) map[string]float64 {
	if u == 0 {
		return m
	}
	if m == nil {
		m = map[string]float64{}
	}
	m[name] += u
	return m
}

// commit runs one mutation in its own store transaction and tells the
// table's index applier.
func (s *Service) commit(ctx context.Context, mu *mutation) (written, error) {
	var w written
	strong, err := s.claimStrong([]*mutation{mu}) // MRSC (replica_strong_rules.go)
	if err != nil {
		return w, err
	}
	mu.keepLog = s.keepsLog(mu.meta)
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		if err := s.claimShared(tx, strong); err != nil {
			return err
		}
		var err error
		w, err = mu.apply(tx, s.now().UnixNano())
		return err
	})
	if err == nil {
		s.notifyWrite(mu.meta, w)
	}
	return w, s.finishStrong(ctx, strong, err)
}

// validationError turns the value-model and expression errors, which speak
// DynamoDB's words, into ValidationExceptions; other errors pass through.
func validationError(err error) error {
	var ae *attr.Error
	var ee *expressions.Error
	switch {
	case errors.As(err, &ae):
		return ddb.Errorf(ddb.ValidationException, "%s", ae.Msg)
	case errors.As(err, &ee):
		return ddb.Errorf(ddb.ValidationException, "%s", ee.Msg)
	}
	return err
}
