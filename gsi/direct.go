package gsi

import (
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// Direct returns the spaces of table tsp's global indexes defs, in defs'
// order, when a write in tx may apply its own change to each of them in its
// own transaction instead of leaving it to the Applier: every index has a
// watermark equal to the table's last log sequence (the Applier has nothing
// left to apply to it, so a change made now keeps the log's order) and its
// space. It returns nil, false otherwise (an index being backfilled or
// dropped, or records still waiting for the Applier): the write then
// appends its record and the Applier applies it, the plain twin of the
// direct path (TestDirectMatchesApplier).
//
// A write that applies its change directly and still appends a record (the
// table keeps its log for a stream or another reader) then calls Advance
// with the record's sequence, in the same transaction, so the Applier does
// not apply it again.
func Direct(tx *store.Tx, tsp *store.Space, defs []*index.Def, spaceID func(string) string) ([]*store.Space, bool) {
	last := tsp.LastLogSeq()
	for _, def := range defs {
		if wm, ok := readWatermark(tsp, def.Name); !ok || wm != last {
			return nil, false
		}
	}
	sps := make([]*store.Space, len(defs))
	for i, def := range defs {
		if sps[i] = tx.Space(spaceID(def.Name)); sps[i] == nil {
			return nil, false
		}
	}
	return sps, true
}

// Advance sets the watermark of each index of defs to seq, the sequence of
// the log record whose change the writer applied to them itself (Direct).
func Advance(tsp *store.Space, defs []*index.Def, seq uint64) error {
	for _, def := range defs {
		if err := writeWatermark(tsp, def.Name, seq); err != nil {
			return err
		}
	}
	return nil
}
