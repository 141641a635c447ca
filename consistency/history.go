package consistency

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
)

// LogReader is the part of a table's store space History reads: its change log.
type LogReader interface {
	AscendLog(after uint64, fn func(seq uint64, rec []byte) bool) error
	LastLogSeq() uint64
}

// History keeps, for each table, the images its items had before every change
// still inside the retention window, read incrementally from the table's
// change log. An eventually consistent read at time t overlays them on the
// current state: an item changed after t reads as its image before the first
// such change (nil: it did not exist). It is safe for concurrent use.
type History struct {
	mu     sync.Mutex
	tables map[string]*tableHistory
}

// NewHistory returns an empty History.
func NewHistory() *History { return &History{tables: map[string]*tableHistory{}} }

type tableHistory struct {
	mu       sync.RWMutex
	lastSeq  uint64
	versions map[string][]version // by storage key, oldest first
	queue    []entry              // every retained change in log order
}

// version is one change of one item: its time and the image before it.
type version struct {
	seq uint64
	t   int64
	old attr.Item
}

type entry struct {
	seq uint64
	t   int64
	key string
}

func (h *History) table(id string) *tableHistory {
	h.mu.Lock()
	defer h.mu.Unlock()
	th, ok := h.tables[id]
	if !ok {
		th = &tableHistory{versions: map[string][]version{}}
		h.tables[id] = th
	}
	return th
}

// Drop forgets a deleted table.
func (h *History) Drop(id string) {
	h.mu.Lock()
	delete(h.tables, id)
	h.mu.Unlock()
}

// Sync reads the records log has gained since the last Sync of table id and
// forgets changes made at or before horizon (Unix nanoseconds): no read looks
// back that far. Call it inside the store snapshot the read then uses.
func (h *History) Sync(id string, log LogReader, horizon int64) error {
	th := h.table(id)
	th.mu.Lock()
	defer th.mu.Unlock()
	if last := log.LastLogSeq(); last > th.lastSeq {
		var derr error
		err := log.AscendLog(th.lastSeq, func(seq uint64, raw []byte) bool {
			rec, err := changelog.Decode(raw)
			if err != nil {
				derr = fmt.Errorf("consistency: log record %d: %w", seq, err)
				return false
			}
			th.lastSeq = seq
			if rec.Time <= horizon {
				return true
			}
			var old attr.Item
			if rec.Old != nil {
				if old, err = attr.DecodeBinary(rec.Old); err != nil {
					derr = fmt.Errorf("consistency: log record %d: %w", seq, err)
					return false
				}
			}
			k := string(rec.Key)
			th.versions[k] = append(th.versions[k], version{seq: seq, t: rec.Time, old: old})
			th.queue = append(th.queue, entry{seq: seq, t: rec.Time, key: k})
			return true
		})
		if err == nil {
			err = derr
		}
		if err != nil {
			return err
		}
	}
	th.prune(horizon)
	return nil
}

// prune drops changes made at or before horizon.
func (th *tableHistory) prune(horizon int64) {
	n := 0
	for n < len(th.queue) && th.queue[n].t <= horizon {
		e := th.queue[n]
		vs := th.versions[e.key]
		if len(vs) <= 1 {
			delete(th.versions, e.key)
		} else {
			th.versions[e.key] = vs[1:]
		}
		n++
	}
	if n > 0 {
		th.queue = append(th.queue[:0:0], th.queue[n:]...)
	}
}

// At returns the image of key in table id as of time t, if the item changed
// after t: (image, true), image nil when the item did not exist then. It
// returns (nil, false) when the current state is also the state at t.
func (h *History) At(id string, key []byte, t int64) (attr.Item, bool) {
	th := h.table(id)
	th.mu.RLock()
	defer th.mu.RUnlock()
	return th.at(string(key), t)
}

func (th *tableHistory) at(key string, t int64) (attr.Item, bool) {
	for _, v := range th.versions[key] {
		if v.t > t {
			return v.old, true
		}
	}
	return nil, false
}

// Change is an item that changed after a read's time, with its image then.
type Change struct {
	Key []byte
	Old attr.Item // nil: the item did not exist
}

// Changed returns the items of table id with keys in [from, to) (nil bounds
// are open) that changed after t, with their images at t, in key order.
func (h *History) Changed(id string, from, to []byte, t int64) []Change {
	th := h.table(id)
	th.mu.RLock()
	defer th.mu.RUnlock()
	var out []Change
	for k := range th.versions {
		kb := []byte(k)
		if (from != nil && bytes.Compare(kb, from) < 0) || (to != nil && bytes.Compare(kb, to) >= 0) {
			continue
		}
		if old, ok := th.at(k, t); ok {
			out = append(out, Change{Key: kb, Old: old})
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Key, out[j].Key) < 0 })
	return out
}

// DuePrefix returns the largest sequence number s such that every retained
// change of table id up to s is due, by due(seq, time): the point up to which
// a lagging index must have been brought. Changes that were already pruned
// are due by construction (older than any lag).
func (h *History) DuePrefix(id string, due func(seq uint64, t int64) bool) uint64 {
	th := h.table(id)
	th.mu.RLock()
	defer th.mu.RUnlock()
	last := th.lastSeq
	for _, e := range th.queue {
		if !due(e.seq, e.t) {
			return e.seq - 1
		}
	}
	return last
}
