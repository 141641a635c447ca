package insights

import (
	"bytes"
	"slices"

	"github.com/ddblocal/ddblocal/partition"
)

// maxKeySample is how many distinct partition key values a Sizer keeps for
// the key-shape warnings (dates, sequences). Keys arrive in hash order, so
// the first ones are a fair sample.
const maxKeySample = 1000

// Sizer measures one table's or index's stored entries for a report: items
// and bytes per partition, distinct partition keys, the largest item
// collections, and a sample of partition keys. The table layer feeds it
// every entry of the space in storage-key order (hash, then partition key),
// so the entries of one partition key value arrive together.
type Sizer struct {
	index    string
	parts    partition.Map
	items    []int64
	bytes    []int64
	distinct int
	sample   [][]byte // partition-key prefixes (hash ‖ key)
	top      []sized  // largest collections, largest first, at most TopN
	cur      sized
}

// sized is one item collection being measured.
type sized struct {
	prefix       []byte
	items, bytes int64
}

// Sizer returns a Sizer for index ("" the table) of tableID, over the
// table's current partitioning.
func (r *Recorder) Sizer(tableID, index string) *Sizer {
	m := r.opts.Partitions(tableID, index)
	return &Sizer{index: index, parts: m, items: make([]int64, m.Len()), bytes: make([]int64, m.Len())}
}

// Entry adds one stored entry: its storage key, the length of the key's
// partition-key prefix (hash ‖ partition key values), and its size.
func (z *Sizer) Entry(key []byte, prefixLen, size int) {
	p := z.parts.Of(hashOf(key))
	z.items[p]++
	z.bytes[p] += int64(size)
	prefix := key[:prefixLen]
	if z.cur.prefix == nil || !bytes.Equal(prefix, z.cur.prefix) {
		z.closeCollection()
		z.cur = sized{prefix: append([]byte(nil), prefix...)}
		z.distinct++
		if len(z.sample) < maxKeySample {
			z.sample = append(z.sample, z.cur.prefix)
		}
	}
	z.cur.items++
	z.cur.bytes += int64(size)
}

// closeCollection files the collection being measured among the largest.
func (z *Sizer) closeCollection() {
	if z.cur.prefix == nil {
		return
	}
	i, _ := slices.BinarySearchFunc(z.top, z.cur.bytes, func(s sized, b int64) int {
		switch {
		case s.bytes > b:
			return -1
		case s.bytes < b:
			return 1
		}
		return 0
	})
	// Equal sizes keep arrival order: insert after the equal run.
	for i < len(z.top) && z.top[i].bytes == z.cur.bytes {
		i++
	}
	if i < TopN {
		z.top = slices.Insert(z.top, i, z.cur)
		if len(z.top) > TopN {
			z.top = z.top[:TopN]
		}
	}
	z.cur = sized{}
}

// Finish closes the last collection; call it once every entry was fed
// (Report calls it too: it is idempotent).
func (z *Sizer) Finish() { z.closeCollection() }

// Largest returns the partition prefixes of the largest collections
// measured, largest first (after Finish).
func (z *Sizer) Largest() [][]byte {
	out := make([][]byte, len(z.top))
	for i, c := range z.top {
		out[i] = c.prefix
	}
	return out
}
