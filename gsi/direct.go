package gsi

import (
	"encoding/binary"

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

// ApplyEncoded is c.Apply for a change whose new entry is the item's
// stored encoding enc behind its size (index.AppendEntryEncoded's entry:
// an index projecting ALL): the store writes the size and enc into its own
// bytes from the two parts (store.Space.SwapJoined), where Apply would be
// given the entry built in a buffer of its own and copy it again. The
// plain twin is c.Apply with c.Entry = index.AppendEntryEncoded(nil, enc,
// c.NewSize) (TestApplyEncodedMatchesApply).
func ApplyEncoded(sp *store.Space, c index.Change, enc []byte) error {
	if c.Unchanged || c.NewKey == nil {
		return c.Apply(sp)
	}
	var items, size int64
	if c.OldKey != nil && string(c.OldKey) != string(c.NewKey) {
		gone := c // the change without its new entry: the old one's removal
		gone.NewKey, gone.New, gone.Entry = nil, nil, nil
		var err error
		if items, size, err = gone.ApplyUncounted(sp); err != nil {
			return err
		}
	}
	var head [binary.MaxVarintLen64]byte
	prev, err := sp.SwapJoined(c.NewKey, head[:binary.PutUvarint(head[:], uint64(c.NewSize))], enc)
	if err != nil {
		return err
	}
	if prev != nil {
		n, err := index.EntrySize(prev)
		if err != nil {
			return err
		}
		items, size = items-1, size-int64(n)
	}
	items, size = items+1, size+int64(c.NewSize)
	if items == 0 && size == 0 {
		return nil
	}
	return sp.AddStats(items, size)
}
