package table

import (
	"encoding/binary"
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// Local secondary indexes are maintained in the write's own transaction. A
// table with any also keeps the size of each item collection (a partition's
// items plus their local index entries), which DynamoDB caps at 10 GB and
// reports as ItemCollectionMetrics.

// collectionMetaPrefix starts the space metadata key that holds an item
// collection's size in bytes (8 bytes, big-endian): the prefix, then the
// collection's partition prefix (see partitionPrefix).
const collectionMetaPrefix = "ic/"

// localWrite is what one item write does to its table's local indexes and
// item collection, worked out before the store is changed.
type localWrite struct {
	changes []index.Change // one per local index, in tableMeta.lsis order
	meta    string         // the collection size's metadata key; "" without local indexes
	size    int64          // the collection's size after the write
}

// planLocal works out mu's local index changes and item collection size from
// w (the old and new items and their sizes), adds the index write units and
// the collection size to w, and checks the collection size limit.
func (mu *mutation) planLocal(sp *store.Space, w *written) (localWrite, error) {
	m := mu.meta
	if len(m.lsis) == 0 {
		return localWrite{}, nil
	}
	lw := localWrite{changes: make([]index.Change, len(m.lsis)), meta: collectionMetaKey(m, mu.key)}
	delta := int64(w.newSize - w.oldSize)
	for i, d := range m.lsis {
		c := d.Diff(mu.key, w.old, w.new)
		lw.changes[i] = c
		w.lsi = addUnits(w.lsi, d.Name, indexWriteUnits(c))
		delta += int64(c.NewSize - c.OldSize)
	}
	lw.size = decodeInt64(sp.GetMeta(lw.meta)) + delta
	w.collection = lw.size
	if delta > 0 && lw.size > m.collectionLimit {
		return lw, ddb.Errorf(ddb.ItemCollectionSizeLimitExceededException, "Collection size exceeded.")
	}
	return lw, nil
}

// apply writes the local index changes and the new collection size of table
// m, whose space is sp, inside tx.
func (lw localWrite) apply(tx *store.Tx, sp *store.Space, m *tableMeta) error {
	if lw.meta == "" {
		return nil
	}
	for i, d := range m.lsis {
		isp := tx.Space(indexSpaceID(m, d.Name))
		if isp == nil {
			return fmt.Errorf("table: local index space %s missing", d.Name)
		}
		if err := lw.changes[i].Apply(isp); err != nil {
			return err
		}
	}
	return sp.PutMeta(lw.meta, binary.BigEndian.AppendUint64(nil, uint64(lw.size)))
}

// collectionMetaKey is the metadata key of the size of the item collection
// that the item stored under key belongs to.
func collectionMetaKey(m *tableMeta, key []byte) string {
	return collectionMetaPrefix + string(key[:m.partitionPrefixLen(key)])
}

// partitionPrefixLen is the length of the hash ‖ partition-key part of a
// table storage key.
func (m *tableMeta) partitionPrefixLen(key []byte) int {
	_, rest, err := attr.DecodeKey(key[attr.HashPrefixLen:], m.schema.PKType)
	if err != nil {
		return len(key)
	}
	return len(key) - len(rest)
}

func decodeInt64(b []byte) int64 {
	if len(b) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// collectionMetrics is the ItemCollectionMetrics of a write to a table with
// local secondary indexes, when ReturnItemCollectionMetrics is SIZE.
func (m *tableMeta) collectionMetrics(mode string, w written) *ddb.ItemCollectionMetrics {
	if mode != "SIZE" || w.collection < 0 {
		return nil
	}
	item := w.new
	if item == nil {
		item = w.old
	}
	gb := float64(w.collection) / (1 << 30)
	lo := float64(int64(gb))
	return &ddb.ItemCollectionMetrics{
		ItemCollectionKey:   attr.Item{m.schema.PK: item[m.schema.PK]},
		SizeEstimateRangeGB: []float64{lo, lo + 1},
	}
}
