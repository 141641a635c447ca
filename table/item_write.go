package table

import (
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/index"
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
	// direct lets the write change its table's global indexes itself
	// when nothing waits for the table's applier (gsi_direct.go).
	direct bool
	// blind marks a put whose new item does not depend on the old one and
	// whose caller does not need the old item (no condition, no ALL_OLD):
	// see blindPut.
	blind bool
	// enc, when set, is the storage encoding of the item to put (a
	// BatchWriteItem put's attr.Encoded): stored as is, and a blind put
	// never decodes it.
	enc []byte
	// check marks a transaction's ConditionCheck: its condition is
	// evaluated, nothing is written, and admission charges it as a write
	// of the item unchanged.
	check bool
	// adm is the write's throttle admission (throttle_admit.go), set by
	// beginWrite when its table throttles; nil otherwise.
	adm *admission
	// origin and originTime mark a write replicated from another replica
	// of a global table: its Region and commit time there.
	origin     string
	originTime int64
}

// loaded is a write's old item as its store transaction read it, and the
// new item the write computes from it: each write reads and decodes its old
// item once, and admission, the condition and the write itself share it.
type loaded struct {
	raw      []byte // the stored bytes, nil when absent; valid only inside the transaction
	old      attr.Item
	oldSize  int
	next     attr.Item
	nextErr  error
	computed bool // next and nextErr are set
}

// load reads mu's old item from sp and decodes it.
func (mu *mutation) load(sp *store.Space) (loaded, error) {
	ld := loaded{raw: sp.Get(mu.key)}
	if ld.raw == nil {
		return ld, nil
	}
	var err error
	if ld.old, err = attr.DecodeBinary(ld.raw); err != nil {
		return ld, err
	}
	ld.oldSize, err = attr.BinarySize(ld.raw) // recorded in the encoding: no walk
	return ld, err
}

// nextOf is the item after mu's write (or the error computing it), computed
// from ld's old item on first use.
func (ld *loaded) nextOf(mu *mutation) (attr.Item, error) {
	if !ld.computed {
		ld.next, ld.nextErr = mu.nextItem(ld.old)
		ld.computed = true
	}
	return ld.next, ld.nextErr
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
	logged bool
	lsi    map[string]float64 // write units per local index
	// gsiChanges are the write's changes to its table's global indexes,
	// gsiDefs (tableMeta.gsis when gsiUnits ran), in their order. Each
	// index's write units are capacity.IndexWriteUnits of its change
	// (gsiWriteUnits): kept as the changes, not in a map by name, a write
	// to a table with global indexes allocates nothing for its units.
	gsiDefs    []*index.Def
	gsiChanges []index.Change
	// direct says that the write applied gsiChanges itself (gsi_direct.go):
	// its record, if it logged one, gives the applier nothing to apply.
	direct bool
	vec    map[string]float64 // bytes replicated per vector index
	// collection is the item collection size after the write, in bytes, for
	// tables with local secondary indexes (-1 otherwise).
	collection int64
}

// spaceWrites carries what the writes of one BatchWriteItem share within its
// transaction: each table's space, opened once, and its counter changes,
// added to the store once at the end (flush) rather than once per item.
type spaceWrites struct {
	spaces map[string]*store.Space
	stats  map[string]*[2]int64 // items, bytes
	// logs says, by table, whether its space has logMeta (logOn). Nil
	// until the first read.
	logs map[string]bool
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
// not nil (the caller then flushes sw before its transaction ends). It
// admits nothing: the write envelope (item_envelope.go) applies the
// operations' mutations.
func (mu *mutation) applyIn(tx *store.Tx, now int64, sw *spaceWrites) (written, error) {
	sp := sw.space(tx, mu.meta.ID)
	if sp == nil {
		return written{collection: -1}, ddb.NotFound("")
	}
	if mu.blindIn() {
		return mu.blindPut(tx, sp, sw, now)
	}
	ld, err := mu.load(sp)
	if err != nil {
		return written{collection: -1}, err
	}
	return mu.write(tx, sp, sw, now, &ld)
}

// blindIn reports whether mu may take the blind path (blindPut): a blind
// put, not admitted, on a table without local or vector indexes (whose
// maintenance needs the old item decoded before the write).
func (mu *mutation) blindIn() bool {
	return mu.blind && mu.adm == nil && len(mu.meta.lsis) == 0 && len(mu.meta.vectors) == 0
}

// write performs mu in tx, whose table space is sp, on its old item ld:
// check the condition, compute the new item, write it and its local index
// entries, keep the counters and the item collection size, and append to
// the change log. Global indexes follow from the change log. It changes
// nothing when it returns an error.
func (mu *mutation) write(tx *store.Tx, sp *store.Space, sw *spaceWrites, now int64, ld *loaded) (written, error) {
	w := written{collection: -1}
	if err := mu.decide(ld, &w); err != nil {
		return w, err
	}
	if w.new == nil && ld.raw == nil {
		return w, nil // deleting an absent item changes nothing
	}
	// Every check comes before the first write.
	lw, err := mu.planLocal(sp, &w)
	if err != nil {
		return w, err
	}
	mu.gsiUnits(&w)
	if len(mu.meta.vectors) > 0 {
		w.vec = mu.meta.vectorWriteBytes(w.old, w.new)
	}
	newBytes, err := mu.store(sp, sw, ld.raw, w)
	if err != nil {
		return w, err
	}
	if err := applyLocal(lw, tx, sp, mu.meta); err != nil {
		return w, err
	}
	w.logged, err = mu.logWrite(tx, sp, sw, now, ld.raw, newBytes, &w)
	return w, err
}

// decide checks mu's condition against its old item ld and computes the new
// item, filling in w's items and sizes.
func (mu *mutation) decide(ld *loaded, w *written) error {
	w.old, w.oldSize = ld.old, ld.oldSize
	if mu.cond != nil && !mu.cond.Eval(w.old) {
		e := ddb.Errorf(ddb.ConditionalCheckFailedException, "The conditional request failed")
		if mu.returnOldOnFailure {
			e.Item = w.old
		}
		return e
	}
	next, err := ld.nextOf(mu)
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

// gsiUnits sets w's changes to each global index, which give their write
// units (gsiWriteUnits), from its items.
func (mu *mutation) gsiUnits(w *written) {
	if len(mu.meta.gsis) == 0 {
		return
	}
	w.gsiDefs = mu.meta.gsis
	w.gsiChanges = make([]index.Change, len(mu.meta.gsis))
	for i, d := range mu.meta.gsis {
		w.gsiChanges[i] = d.DiffSized(mu.key, w.old, w.new, w.oldSize, w.newSize)
	}
}

// gsiWriteUnits returns the write units of global index i (of gsiDefs).
func (w *written) gsiWriteUnits(i int) float64 {
	return capacity.IndexWriteUnits(w.gsiChanges[i])
}

// gsiKey is the key of the item in global index i (of tableMeta.gsis)
// after the write, or before it for a deletion, as gsiUnits found it: nil
// when the item is not in the index.
func (w *written) gsiKey(i int) []byte {
	if i >= len(w.gsiChanges) {
		return nil
	}
	if w.new != nil {
		return w.gsiChanges[i].NewKey
	}
	return w.gsiChanges[i].OldKey
}

// nextItem returns the item after the write: mu.next's answer, or the
// decoded mu.enc for a put that came encoded.
func (mu *mutation) nextItem(old attr.Item) (attr.Item, error) {
	if mu.next == nil {
		return attr.DecodeBinary(mu.enc)
	}
	return mu.next(old)
}

// loggedIn reports whether the write must append a change-log record. The
// log feeds global indexes and lagging reads, nothing else: without them,
// a record would only be written and trimmed again. sw reads the table's
// log mark once per transaction (logOn).
func (mu *mutation) loggedIn(sp *store.Space, sw *spaceWrites) bool {
	return mu.keepLog || len(mu.meta.gsis) > 0 || len(mu.meta.vectors) > 0 || sw.logOn(sp, mu.meta.ID)
}

// logOn reports whether table id's space sp has logMeta (a reader of its
// change log), read once per transaction for each table: only
// UpdateTable, in a transaction of its own, sets it. With a nil sw,
// every call reads it.
func (sw *spaceWrites) logOn(sp *store.Space, id string) bool {
	if sw == nil {
		return sp.GetMeta(logMeta) != nil
	}
	on, ok := sw.logs[id]
	if !ok {
		on = sp.GetMeta(logMeta) != nil
		if sw.logs == nil {
			sw.logs = map[string]bool{}
		}
		sw.logs[id] = on
	}
	return on
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

// blindPut is applyIn for a blind put: nothing needs the old item before
// the write, so the store hands back its bytes from the same search that
// stores the new one (no separate read). A table without a change log
// needs only the old item's size (capacity, counters); one with a log
// (a stream, a global index, lagging reads) gets the old bytes in its
// record as they are, and decodes them only for its global indexes'
// capacity. It writes what write writes (TestFastPathsMatchPlain).
func (mu *mutation) blindPut(tx *store.Tx, sp *store.Space, sw *spaceWrites, now int64) (written, error) {
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
	if err := mu.count(sp, sw, items, int64(w.newSize-w.oldSize)); err != nil || !mu.loggedIn(sp, sw) {
		return w, err
	}
	if len(mu.meta.gsis) > 0 {
		if err := w.decodeItems(raw, val); err != nil {
			return w, err
		}
		mu.gsiUnits(&w)
	}
	w.logged, err = mu.logWrite(tx, sp, sw, now, raw, val, &w)
	return w, err
}

// decodeItems decodes the items of a blind put from their bytes, raw
// before (nil when absent) and val after, unless they are there already.
func (w *written) decodeItems(raw, val []byte) error {
	var err error
	if w.new == nil {
		if w.new, err = attr.DecodeBinary(val); err != nil {
			return err
		}
	}
	if raw != nil {
		w.old, err = attr.DecodeBinary(raw)
	}
	return err
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
