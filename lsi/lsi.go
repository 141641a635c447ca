// Package lsi holds the rules of local secondary indexes, as package gsi
// holds those of global ones: the index entries one item write produces,
// maintained in the write's own transaction; the size of each item
// collection (a partition's items plus their local index entries), which
// DynamoDB caps at 10 GB; and the size estimate ItemCollectionMetrics
// reports. It knows index definitions and store spaces, not tables.
package lsi

import (
	"encoding/binary"
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// DefaultLimit is DynamoDB's cap on an item collection, in bytes.
const DefaultLimit = 10 << 30

// metaPrefix starts the space metadata key that holds an item collection's
// size in bytes (8 bytes, big-endian): the prefix, then the collection's
// partition prefix (hash ‖ partition key of a table storage key).
const metaPrefix = "ic/"

// SizeKey is the space metadata key of the size of the item collection
// whose partition prefix is prefix.
func SizeKey(prefix []byte) string { return metaPrefix + string(prefix) }

// Size returns the size in bytes of the item collection whose size is
// kept under key (SizeKey) in sp: zero when none was kept.
func Size(sp *store.Space, key string) int64 {
	b := sp.GetMeta(key)
	if len(b) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// TooLarge is the error of a write that would grow an item collection
// beyond its limit (DynamoDB's ItemCollectionSizeLimitExceededException).
type TooLarge struct {
	Size, Limit int64 // the collection's size after the write, and the limit
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("lsi: item collection of %d bytes exceeds its limit of %d", e.Size, e.Limit)
}

// Write is what one item write does to its table's local indexes and item
// collection, worked out before the store is changed.
type Write struct {
	Changes []index.Change // one per local index, in the order of the definitions
	Key     string         // the collection size's metadata key (SizeKey); "" without local indexes
	Size    int64          // the collection's size after the write
}

// Plan works out the local index changes of writing new over old (their
// sizes oldSize and newSize; nil for absent) under table storage key key,
// for the local indexes defs, and the size of the item collection kept
// under sizeKey in sp. It returns *TooLarge when the write grows the
// collection beyond limit; a write that does not grow it always passes.
// Without defs it returns the zero Write.
func Plan(sp *store.Space, defs []*index.Def, key []byte, old, new attr.Item, oldSize, newSize int, sizeKey string, limit int64) (Write, error) {
	if len(defs) == 0 {
		return Write{}, nil
	}
	w := Write{Changes: make([]index.Change, len(defs)), Key: sizeKey}
	delta := int64(newSize - oldSize)
	for i, d := range defs {
		c := d.DiffSized(key, old, new, oldSize, newSize)
		w.Changes[i] = c
		delta += int64(c.NewSize - c.OldSize)
	}
	w.Size = Size(sp, sizeKey) + delta
	if delta > 0 && w.Size > limit {
		return w, &TooLarge{Size: w.Size, Limit: limit}
	}
	return w, nil
}

// Apply writes w's index changes, into the space space returns for each
// local index of defs (the definitions w was planned with), and the new
// collection size into sp, inside one store transaction.
func (w Write) Apply(sp *store.Space, defs []*index.Def, space func(name string) *store.Space) error {
	if w.Key == "" {
		return nil
	}
	for i, d := range defs {
		isp := space(d.Name)
		if isp == nil {
			return fmt.Errorf("lsi: local index space %s missing", d.Name)
		}
		if err := w.Changes[i].Apply(isp); err != nil {
			return err
		}
	}
	return sp.PutMeta(w.Key, binary.BigEndian.AppendUint64(nil, uint64(w.Size)))
}

// SizeEstimateRangeGB is ItemCollectionMetrics' estimate of a collection
// of size bytes: the whole gigabytes below it and one more.
func SizeEstimateRangeGB(size int64) []float64 {
	lo := float64(size / (1 << 30))
	return []float64{lo, lo + 1}
}
