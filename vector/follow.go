package vector

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// ErrNoTable is returned by Follower methods when the table's space is gone
// (the table was deleted).
var ErrNoTable = errors.New("vector: the table's space is gone")

// Follower keeps one table's vector indexes in memory, built from the
// table's items and then kept up to date from its change log, like a global
// secondary index's applier but without storing anything: the indexes are
// derived data, rebuilt from the table when the process starts.
//
// Each index has a watermark, the last log record applied to it. CatchUp
// applies the records after it; one that finds records it needed already
// trimmed from the log rebuilds that index from the table, so a Follower is
// never wrong, only slow, when the log is trimmed under it (Floor says how
// far it may be trimmed). A Follower's methods are safe for concurrent use;
// it starts no goroutines.
type Follower struct {
	db      *store.DB
	tableID string
	due     func(seq uint64, t int64) bool

	mu      sync.RWMutex
	indexes map[string]*followed
	// need is the commit time (Unix nanoseconds) from which the log is
	// still needed: the first record CatchUp held back, or its start.
	need int64
}

// followed is one index a Follower keeps.
type followed struct {
	def   *Def
	names []string // the search schema's attributes
	x     *Index
	wm    uint64
}

// NewFollower returns a Follower of table tableID's change log. due, when
// not nil, says whether record seq committed at t (Unix nanoseconds) may be
// applied yet (an index that lags on purpose); a record not due holds back
// the ones after it. It must be safe for concurrent use.
func NewFollower(db *store.DB, tableID string, due func(seq uint64, t int64) bool) *Follower {
	return &Follower{db: db, tableID: tableID, due: due, indexes: map[string]*followed{}}
}

// Sync makes the Follower keep exactly the indexes defs: it builds, from a
// snapshot of the table, each index it does not hold yet or whose Def
// changed (the same name re-created differently), and drops the others.
// It returns the first build error (ErrNoTable, or a store error); indexes
// built before it are kept.
func (f *Follower) Sync(defs []*Def) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sync(defs)
}

// Ready makes the Follower keep exactly defs (Sync), catches them up
// (CatchUp, starting at now) and returns them by name, all under one hold
// of the Follower: a concurrent Ready with other defs (a request that read
// an older or newer table definition) cannot drop an index between this
// call's Sync and its caller's search. The returned Indexes stay valid
// after a later Sync drops or rebuilds them; they are then no longer
// updated.
func (f *Follower) Ready(defs []*Def, now int64) (map[string]*Index, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.sync(defs); err != nil {
		return nil, err
	}
	if err := f.catchUp(now); err != nil {
		return nil, err
	}
	out := make(map[string]*Index, len(f.indexes))
	for name, fx := range f.indexes {
		out[name] = fx.x
	}
	return out, nil
}

// sync is Sync with f.mu held.
func (f *Follower) sync(defs []*Def) error {
	keep := map[string]bool{}
	for _, d := range defs {
		keep[d.Name] = true
		if cur, ok := f.indexes[d.Name]; ok && sameDef(cur.def, d) {
			continue
		}
		fx, err := f.build(d)
		if err != nil {
			return err
		}
		f.indexes[d.Name] = fx
	}
	for name := range f.indexes {
		if !keep[name] {
			delete(f.indexes, name)
		}
	}
	return nil
}

func sameDef(a, b *Def) bool {
	if a.Name != b.Name || a.Attribute != b.Attribute || a.Dims != b.Dims || a.Func != b.Func || a.Hash != b.Hash || len(a.Filters) != len(b.Filters) {
		return false
	}
	for i := range a.Filters {
		if a.Filters[i] != b.Filters[i] {
			return false
		}
	}
	return true
}

func newFollowed(d *Def) *followed {
	var names []string
	if d.Hash.Name != "" {
		names = append(names, d.Hash.Name)
	}
	for _, k := range d.Filters {
		names = append(names, k.Name)
	}
	return &followed{def: d, names: names, x: d.NewIndex()}
}

// build indexes every item of the table as of one snapshot, whose last log
// sequence becomes the index's watermark, then holds back the snapshot's
// writes that are not due yet (holdBack).
func (f *Follower) build(d *Def) (*followed, error) {
	fx := newFollowed(d)
	err := f.db.View(func(tx *store.Tx) error {
		sp := tx.Space(f.tableID)
		if sp == nil {
			return ErrNoTable
		}
		fx.wm = sp.LastLogSeq()
		var derr error
		var buf []float32
		err := sp.Ascend(nil, nil, func(k, v []byte) bool {
			buf, derr = fx.apply(string(k), v, buf)
			return derr == nil
		})
		if err = errors.Join(err, derr); err != nil {
			return err
		}
		return f.holdBack(sp, fx)
	})
	if err != nil {
		return nil, err
	}
	return fx, nil
}

// holdBack takes out of fx, just built from snapshot sp, the writes a
// Follower kept since they were made would not show yet: from the first
// log record not due on, each item those records changed is set back to
// its image before the first of them, and the watermark goes back to just
// before that record, so CatchUp applies them once they are due. An index
// built late (a process started, another front-end, a rebuild) so shows
// what one followed all along shows. Records trimmed from the log were
// due: the log keeps every record a reader may still hold back.
func (f *Follower) holdBack(sp *store.Space, fx *followed) error {
	if f.due == nil {
		return nil
	}
	var held uint64 // the first record not due; 0 while every one is
	before := map[string][]byte{}
	var order []string
	var err error
	aerr := sp.AscendLog(0, func(seq uint64, raw []byte) bool {
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("vector: log record %d: %w", seq, err)
			return false
		}
		if held == 0 && f.due(seq, rec.Time) {
			return true
		}
		if held == 0 {
			held = seq
		}
		if _, ok := before[string(rec.Key)]; !ok {
			before[string(rec.Key)] = bytes.Clone(rec.Old)
			order = append(order, string(rec.Key))
		}
		return true
	})
	if err = errors.Join(aerr, err); err != nil || held == 0 {
		return err
	}
	var buf []float32
	for _, k := range order {
		if buf, err = fx.apply(k, before[k], buf); err != nil {
			return err
		}
	}
	fx.wm = held - 1
	return nil
}

// apply sets key's entry from its stored item image (nil: deleted).
func (fx *followed) apply(key string, image []byte, buf []float32) ([]float32, error) {
	if image == nil {
		fx.x.Delete(key)
		return buf, nil
	}
	vec, err := parseImage(image, fx.def, buf)
	if err != nil {
		return buf, fmt.Errorf("vector: item %q: %w", key, err)
	}
	if vec == nil {
		fx.x.Delete(key)
		return buf, nil
	}
	var item attr.Item
	if len(fx.names) > 0 {
		if item, err = attr.DecodeBinaryNames(image, fx.names); err != nil {
			return buf, fmt.Errorf("vector: item %q: %w", key, err)
		}
	}
	e, ok := fx.def.entryWith(key, vec, item)
	if !ok {
		fx.x.Delete(key)
		return vec, nil
	}
	fx.x.Put(e)
	return vec, nil
}

// parseImage reads d's vector straight from an encoded item into buf, nil
// when the item has none or not a valid one: Parse without decoding the
// list into attribute values first (Entry is its plain twin; the follower
// tests drive both).
func parseImage(image []byte, d *Def, buf []float32) ([]float32, error) {
	out, bad := buf[:0], false
	ok, err := attr.BinaryNumbers(image, d.Attribute, func(_ int, text []byte) {
		f, r := parseFloat32(unsafe.String(unsafe.SliceData(text), len(text)))
		bad = bad || r != 0
		out = append(out, f)
	})
	if err != nil || !ok || bad || len(out) != d.Dims {
		return nil, err
	}
	return out, nil
}

// CatchUp applies every due change-log record after each index's watermark,
// and rebuilds any index whose next records were trimmed away; now is the
// time it starts (Unix nanoseconds), which Need reports until a record is
// held back. It returns ErrNoTable or a store or decoding error.
func (f *Follower) CatchUp(now int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.catchUp(now)
}

// catchUp is CatchUp with f.mu held.
func (f *Follower) catchUp(now int64) error {
	if len(f.indexes) == 0 {
		return nil
	}
	f.need = now
	from := ^uint64(0)
	for _, fx := range f.indexes {
		from = min(from, fx.wm)
	}
	var stale []*followed
	err := f.db.View(func(tx *store.Tx) error {
		sp := tx.Space(f.tableID)
		if sp == nil {
			return ErrNoTable
		}
		first := f.firstLog(sp, from)
		for _, fx := range f.indexes {
			if fx.wm < sp.LastLogSeq() && first > fx.wm+1 {
				stale = append(stale, fx)
			}
		}
		return f.applyLog(sp, from)
	})
	if err != nil {
		return err
	}
	for _, fx := range stale {
		nx, err := f.build(fx.def)
		if err != nil {
			return err
		}
		f.indexes[fx.def.Name] = nx
	}
	return nil
}

// firstLog returns the sequence of the first log record after from, or
// LastLogSeq()+1 when there is none.
func (f *Follower) firstLog(sp *store.Space, from uint64) uint64 {
	first := sp.LastLogSeq() + 1
	sp.AscendLog(from, func(seq uint64, _ []byte) bool {
		first = seq
		return false
	})
	return first
}

// applyLog applies the due records after from to the indexes whose
// watermarks are below them, advancing the watermarks.
func (f *Follower) applyLog(sp *store.Space, from uint64) error {
	var err error
	var buf []float32
	aerr := sp.AscendLog(from, func(seq uint64, raw []byte) bool {
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("vector: log record %d: %w", seq, err)
			return false
		}
		if f.due != nil && !f.due(seq, rec.Time) {
			f.need = min(f.need, rec.Time)
			return false
		}
		for _, fx := range f.indexes {
			if seq != fx.wm+1 {
				continue // applied already, or behind a trimmed gap
			}
			if buf, err = fx.apply(string(rec.Key), rec.New, buf); err != nil {
				return false
			}
			fx.wm = seq
		}
		return true
	})
	return errors.Join(aerr, err)
}

// Need returns the commit time (Unix nanoseconds) of the oldest log record
// the Follower may still have to apply, judged at its last CatchUp: records
// committed since may be needed, and so may records it held back. Trimming
// the log before it costs a rebuild, never a wrong answer. It is 0 before
// the first CatchUp.
func (f *Follower) Need() int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.need
}

// Floor returns the lowest watermark of the indexes, and false when there
// are none: the log may be trimmed up to it without forcing a rebuild.
func (f *Follower) Floor() (uint64, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	floor, any := ^uint64(0), false
	for _, fx := range f.indexes {
		floor, any = min(floor, fx.wm), true
	}
	return floor, any
}

// Applied reports whether every index has applied the log up to seq.
func (f *Follower) Applied(seq uint64) bool {
	floor, ok := f.Floor()
	return !ok || floor >= seq
}

// Index returns the index named name, or nil when the Follower does not
// keep it. The Index stays valid, and keeps being updated, until Sync drops
// or rebuilds it.
func (f *Follower) Index(name string) *Index {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if fx, ok := f.indexes[name]; ok {
		return fx.x
	}
	return nil
}
