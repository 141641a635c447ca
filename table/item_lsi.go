package table

import (
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/lsi"
	"github.com/ddblocal/ddblocal/store"
)

// Local secondary indexes are maintained in the write's own transaction by
// package lsi's rules. A table with any also keeps the size of each item
// collection, which DynamoDB caps at 10 GB and reports as
// ItemCollectionMetrics.

// planLocal works out mu's local index changes and item collection size from
// w (the old and new items and their sizes), adds the index write units and
// the collection size to w, and checks the collection size limit.
func (mu *mutation) planLocal(sp *store.Space, w *written) (lsi.Write, error) {
	m := mu.meta
	if len(m.lsis) == 0 {
		return lsi.Write{}, nil
	}
	lw, err := lsi.Plan(sp, m.lsis, mu.key, w.old, w.new, w.oldSize, w.newSize, collectionMetaKey(m, mu.key), m.collectionLimit)
	for i, d := range m.lsis {
		w.lsi = addUnits(w.lsi, d.Name, capacity.IndexWriteUnits(lw.Changes[i]))
	}
	w.collection = lw.Size
	var tooLarge *lsi.TooLarge
	if errors.As(err, &tooLarge) {
		return lw, ddb.Errorf(ddb.ItemCollectionSizeLimitExceededException, "Collection size exceeded.")
	}
	return lw, err
}

// applyLocal writes the local index changes and the new collection size lw
// of table m, whose space is sp, inside tx.
func applyLocal(lw lsi.Write, tx *store.Tx, sp *store.Space, m *tableMeta) error {
	return lw.Apply(sp, m.lsis, func(name string) *store.Space { return tx.Space(indexSpaceID(m, name)) })
}

// collectionMetaKey is the metadata key of the size of the item collection
// that the item stored under key belongs to.
func collectionMetaKey(m *tableMeta, key []byte) string {
	return lsi.SizeKey(key[:m.partitionPrefixLen(key)])
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
	return &ddb.ItemCollectionMetrics{
		ItemCollectionKey:   attr.Item{m.schema.PK: item[m.schema.PK]},
		SizeEstimateRangeGB: lsi.SizeEstimateRangeGB(w.collection),
	}
}
