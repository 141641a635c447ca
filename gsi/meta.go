package gsi

import (
	"encoding/binary"
	"slices"

	"github.com/ddblocal/ddblocal/store"
)

// Meta names in the TABLE's space.
const (
	// watermarkPrefix + index name holds the index's watermark.
	watermarkPrefix = "gsi-wm/"
	// backfillsName holds the backfills in progress: for each, the index name
	// and S, the table's last log sequence when it started. The log must be
	// kept after S until the backfill ends. One record for all of them (rather
	// than one per index) lets the trimmer see every backfill without relying
	// on the caller's list of indexes, which may be stale by the time the
	// trimming transaction runs.
	backfillsName = "gsi-backfill"
)

// readWatermark returns index name's watermark in table space tsp. The store
// has no way to delete a meta value, so a dropped watermark is stored empty
// and reads as absent.
func readWatermark(tsp *store.Space, name string) (uint64, bool) {
	v := tsp.GetMeta(watermarkPrefix + name)
	if len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}

func writeWatermark(tsp *store.Space, name string, wm uint64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], wm)
	return tsp.PutMeta(watermarkPrefix+name, b[:])
}

// backfill is one backfill in progress.
type backfill struct {
	name  string
	start uint64 // S
}

// readBackfills decodes the backfills in progress. Undecodable bytes yield
// what was decoded before them: the record is only ever written by
// writeBackfills, and losing its tail can at worst let the log be trimmed
// early, never corrupt an index that has a watermark.
func readBackfills(tsp *store.Space) []backfill {
	b := tsp.GetMeta(backfillsName)
	var out []backfill
	for len(b) > 0 {
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) || len(b)-n-int(l) < 8 {
			break
		}
		b = b[n:]
		name := string(b[:l])
		b = b[l:]
		out = append(out, backfill{name: name, start: binary.BigEndian.Uint64(b)})
		b = b[8:]
	}
	return out
}

// writeBackfills stores bs, sorted by name so the bytes are deterministic.
func writeBackfills(tsp *store.Space, bs []backfill) error {
	bs = slices.Clone(bs)
	slices.SortFunc(bs, func(x, y backfill) int {
		switch {
		case x.name < y.name:
			return -1
		case x.name > y.name:
			return 1
		}
		return 0
	})
	var b []byte
	for _, bf := range bs {
		b = binary.AppendUvarint(b, uint64(len(bf.name)))
		b = append(b, bf.name...)
		b = binary.BigEndian.AppendUint64(b, bf.start)
	}
	return tsp.PutMeta(backfillsName, b)
}

// removeBackfill returns bs without the entry for name, and whether it had one.
func removeBackfill(bs []backfill, name string) ([]backfill, bool) {
	i := slices.IndexFunc(bs, func(bf backfill) bool { return bf.name == name })
	if i < 0 {
		return bs, false
	}
	return slices.Delete(slices.Clone(bs), i, i+1), true
}

// DropWatermark removes index name's watermark, and its backfill if one is in
// progress (which then fails with ErrIndexNotFound), inside the caller's
// transaction tx that deletes the index. It returns nil when the table's space
// is gone, and otherwise only the store's write errors (ErrReadOnly,
// ErrTxClosed).
func DropWatermark(tx *store.Tx, tableID, name string) error {
	tsp := tx.Space(tableID)
	if tsp == nil {
		return nil
	}
	if _, ok := readWatermark(tsp, name); ok {
		if err := tsp.PutMeta(watermarkPrefix+name, nil); err != nil {
			return err
		}
	}
	if bs, ok := removeBackfill(readBackfills(tsp), name); ok {
		return writeBackfills(tsp, bs)
	}
	return nil
}
