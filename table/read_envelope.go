package table

import (
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/throttle"
)

// The read envelope: what every read does besides reading. A read begins
// (the instant it sees, and with throttling on its admission), views the
// store (an older instant needs the table's history), and finishes (its
// units on the meter, insights, and the throttle's consumption). A keyed
// read (GetItem, each key of BatchGetItem) uses beginRead / viewRead /
// finishRead; a page (Query, Scan) beginPage / finishPage. A new
// cross-cutting concern of reads goes here, not into the operations.

// keyedRead is one keyed read between begin and finish.
type keyedRead struct {
	m          *tableMeta
	consistent bool
	at         int64 // the instant the read sees; 0 is the snapshot itself
	throttled  bool  // throttling is on for m
}

// beginRead begins a read of m: it fixes the instant the read sees and,
// for a single item under key (nil for a batch, which BatchGetItem admits
// as a whole), admits it, returning the throttling exception when refused.
func (s *Service) beginRead(m *tableMeta, key []byte, consistent bool) (keyedRead, error) {
	r := keyedRead{m: m, consistent: consistent, at: s.readTime(m, consistent), throttled: s.throttling(m)}
	if r.throttled && key != nil {
		if reasons := s.admitRead(m, m.readTarget("", false, key, 0), consistent); reasons != nil {
			return r, throttleError(m, reasons)
		}
	}
	return r, nil
}

// viewRead prepares snapshot tx for r: a read of an older instant needs
// the table's history brought up to tx.
func (s *Service) viewRead(tx *store.Tx, r keyedRead) error {
	if r.at != 0 {
		return s.syncHistory(tx, r.m)
	}
	return nil
}

// finishRead finishes r's read of the item under key, of size bytes (0
// when absent): it charges its units to mt, records it for insights and,
// with throttling on, takes its cost from the key's partition.
func (s *Service) finishRead(r keyedRead, key []byte, size int, mt *capacity.Meter) {
	u := capacity.ReadUnits(size, r.consistent)
	mt.AddTable(u)
	s.observeRead(r.m, key, size, r.consistent, false)
	if r.throttled {
		s.consumeRead(r.m, r.m.readTarget("", false, key, 0), u, r.consistent)
	}
}

// pageRead is one Query or Scan page between begin and finish.
type pageRead struct {
	consistent bool
	at         int64            // as keyedRead.at; always 0 on a global index
	admitted   *throttle.Target // the partition target admitted; nil without throttling
}

// beginPage begins reading page ps of t: with throttling on, it admits the
// page by the partition it starts in (a Scan's units are later shared by
// the partitions it read); it fixes the instant a table or local index
// read sees (a global index is read as it is).
func (s *Service) beginPage(t target, ps pageSpec, consistent bool) (pageRead, error) {
	r := pageRead{consistent: consistent}
	global := t.index != nil && t.index.Global
	if s.throttling(t.meta) {
		name := ""
		if global {
			name = t.index.Name
		}
		target := t.meta.readTarget(name, global, ps.from, 0)
		if reasons := s.admitRead(t.meta, target, consistent); reasons != nil {
			return r, throttleError(t.meta, reasons)
		}
		r.admitted = &target
	}
	if !global {
		r.at = s.readTime(t.meta, consistent)
	}
	return r, nil
}

// finishPage takes what page pg cost beyond its admission, with
// throttling on: a Scan's units from the partitions it spanned, a Query's
// from its partition. (pageOutput meters and records the page.)
func (s *Service) finishPage(r pageRead, t target, ps pageSpec, pg page) {
	if r.admitted == nil {
		return
	}
	tt := *r.admitted
	u := pageUnits(t, pg, r.consistent)
	if ps.scan {
		tt.Units = u - capacity.ReadUnits(0, r.consistent)
		s.limiter.ConsumeSpan(s.now(), t.meta.ID, throttle.Read, tt, scanEnd(t, ps, pg))
	} else {
		s.consumeRead(t.meta, tt, u, r.consistent)
	}
}
