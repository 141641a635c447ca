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

// Follower keeps one table's vector indexes in memory, each holding the
// table exactly as of one change-log record, its watermark: built from a
// snapshot of the table's items and then moved forward record by record,
// like a global secondary index's applier but without storing anything (the
// indexes are derived data, rebuilt from the table when a process starts).
//
// Which record an index holds is not the Follower's choice: Ready is given
// it, the watermark the table's owner published (State), so that every
// process's copy holds the same records. A Follower whose next records were
// trimmed from the log rebuilds from the table, so it is never wrong, only
// slow. A Follower's methods are safe for concurrent use; it starts no
// goroutines.
type Follower struct {
	db      *store.DB
	tableID string

	mu      sync.RWMutex
	indexes map[string]*followed
}

// followed is one index a Follower keeps.
type followed struct {
	def   *Def
	names []string // the search schema's attributes
	x     *Index
	wm    uint64
}

// NewFollower returns a Follower of table tableID.
func NewFollower(db *store.DB, tableID string) *Follower {
	return &Follower{db: db, tableID: tableID, indexes: map[string]*followed{}}
}

// Ready makes the Follower keep exactly the indexes defs, each holding the
// table as of change-log record seq, and returns them by name, all under
// one hold of the Follower (a concurrent Ready with other defs cannot drop
// an index between this call and its caller's search). An index it does
// not hold yet, or whose Def changed, is built from a snapshot of the table
// set back to seq; one below seq applies the records up to seq; one already
// past seq (an owner that applied what it is about to publish) is left as
// it is. It returns ErrNoTable, a store or decoding error, or an error when
// the log after seq is gone (a caller must keep it: Floor). The returned
// Indexes stay valid after a later Ready drops or rebuilds them; they are
// then no longer updated.
func (f *Follower) Ready(defs []*Def, seq uint64) (map[string]*Index, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.keep(defs, seq, false); err != nil {
		return nil, err
	}
	if err := f.catchUp(seq); err != nil {
		return nil, err
	}
	return f.all(), nil
}

// ReadyLatest is Ready at the last record of the table's change log, which
// it returns: an owner whose every record is due (no lag) applies them
// all. A new index is built at its snapshot's last record, so it needs no
// log record the owner has not published (they may be trimmed already).
func (f *Follower) ReadyLatest(defs []*Def) (map[string]*Index, uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.keep(defs, 0, true); err != nil {
		return nil, 0, err
	}
	var seq uint64
	err := f.db.View(func(tx *store.Tx) error {
		sp := tx.Space(f.tableID)
		if sp == nil {
			return ErrNoTable
		}
		seq = sp.LastLogSeq()
		return nil
	})
	if err == nil {
		err = f.catchUp(seq)
	}
	if err != nil {
		return nil, 0, err
	}
	return f.all(), seq, nil
}

// keep makes the Follower keep exactly defs, building (at seq, or at the
// snapshot's last record when latest) each it does not hold yet or whose
// Def changed; f.mu is held.
func (f *Follower) keep(defs []*Def, seq uint64, latest bool) error {
	keep := map[string]bool{}
	for _, d := range defs {
		keep[d.Name] = true
		if cur, ok := f.indexes[d.Name]; ok && sameDef(cur.def, d) {
			continue
		}
		fx, err := f.build(d, seq, latest)
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

// all returns the indexes by name; f.mu is held.
func (f *Follower) all() map[string]*Index {
	out := make(map[string]*Index, len(f.indexes))
	for name, fx := range f.indexes {
		out[name] = fx.x
	}
	return out
}

// Reset forgets every index: the next Ready builds them again. An owner
// whose publication failed calls it, so that its copies never hold records
// the published watermark does not.
func (f *Follower) Reset() {
	f.mu.Lock()
	f.indexes = map[string]*followed{}
	f.mu.Unlock()
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

// build indexes every item of the table as of one snapshot, then sets back
// the items changed by the snapshot's records after seq (setBack), so that
// the index holds the table as of seq; when latest, seq is the snapshot's
// last record.
func (f *Follower) build(d *Def, seq uint64, latest bool) (*followed, error) {
	fx := newFollowed(d)
	err := f.db.View(func(tx *store.Tx) error {
		sp := tx.Space(f.tableID)
		if sp == nil {
			return ErrNoTable
		}
		if latest {
			seq = sp.LastLogSeq()
		}
		if last := sp.LastLogSeq(); seq > last {
			return fmt.Errorf("vector: watermark %d is past the log's last record %d", seq, last)
		}
		var derr error
		var buf []float32
		err := sp.Ascend(nil, nil, func(k, v []byte) bool {
			buf, derr = fx.apply(string(k), v, buf)
			return derr == nil
		})
		if err = errors.Join(err, derr); err != nil {
			return err
		}
		fx.wm = seq
		return setBack(sp, fx, seq)
	})
	if err != nil {
		return nil, err
	}
	return fx, nil
}

// setBack takes out of fx, just built from snapshot sp, the writes of the
// log records after seq: each item those records changed is set back to
// its image before the first of them.
func setBack(sp *store.Space, fx *followed, seq uint64) error {
	if sp.LastLogSeq() == seq {
		return nil
	}
	before := map[string][]byte{}
	var order []string
	var err error
	next := seq + 1
	aerr := sp.AscendLog(seq, func(s uint64, raw []byte) bool {
		if s != next {
			err = fmt.Errorf("vector: log record %d is gone: an index cannot be set back to record %d", next, seq)
			return false
		}
		next++
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("vector: log record %d: %w", s, err)
			return false
		}
		if _, ok := before[string(rec.Key)]; !ok {
			before[string(rec.Key)] = bytes.Clone(rec.Old)
			order = append(order, string(rec.Key))
		}
		return true
	})
	if err = errors.Join(aerr, err); err != nil {
		return err
	}
	var buf []float32
	for _, k := range order {
		if buf, err = fx.apply(k, before[k], buf); err != nil {
			return err
		}
	}
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

// catchUp moves every index below seq up to it, record by record, and
// rebuilds, at seq, any whose next records were trimmed away; f.mu is held.
func (f *Follower) catchUp(seq uint64) error {
	from := seq
	for _, fx := range f.indexes {
		from = min(from, fx.wm)
	}
	if from == seq {
		return nil
	}
	var stale []*followed
	err := f.db.View(func(tx *store.Tx) error {
		sp := tx.Space(f.tableID)
		if sp == nil {
			return ErrNoTable
		}
		first := firstLog(sp, from)
		for _, fx := range f.indexes {
			if fx.wm < seq && first > fx.wm+1 {
				stale = append(stale, fx)
			}
		}
		return applyLog(sp, f.indexes, from, seq)
	})
	if err != nil {
		return err
	}
	for _, fx := range stale {
		nx, err := f.build(fx.def, seq, false)
		if err != nil {
			return err
		}
		f.indexes[fx.def.Name] = nx
	}
	return nil
}

// firstLog returns the sequence of the first log record after from, or
// LastLogSeq()+1 when there is none.
func firstLog(sp *store.Space, from uint64) uint64 {
	first := sp.LastLogSeq() + 1
	sp.AscendLog(from, func(seq uint64, _ []byte) bool {
		first = seq
		return false
	})
	return first
}

// applyLog applies the records after from, up to seq, to the indexes
// whose watermarks are just below them, advancing the watermarks.
func applyLog(sp *store.Space, indexes map[string]*followed, from, seq uint64) error {
	var err error
	var buf []float32
	aerr := sp.AscendLog(from, func(s uint64, raw []byte) bool {
		if s > seq {
			return false
		}
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("vector: log record %d: %w", s, err)
			return false
		}
		for _, fx := range indexes {
			if s != fx.wm+1 {
				continue // applied already, or behind a trimmed gap
			}
			if buf, err = fx.apply(string(rec.Key), rec.New, buf); err != nil {
				return false
			}
			fx.wm = s
		}
		return true
	})
	return errors.Join(aerr, err)
}

// Index returns the index named name, or nil when the Follower does not
// keep it. The Index stays valid, and keeps being updated, until Ready
// drops or rebuilds it.
func (f *Follower) Index(name string) *Index {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if fx, ok := f.indexes[name]; ok {
		return fx.x
	}
	return nil
}
