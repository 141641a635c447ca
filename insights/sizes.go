package insights

import (
	"bytes"
	"sync"

	"github.com/ddblocal/ddblocal/partition"
	"github.com/tidwall/btree"
)

// Sizes is what a Sizer measures (items and bytes per partition, distinct
// partition keys, the largest item collections, the key sample), kept up
// to date from every change of the entries instead of measured by a walk:
// the table layer feeds it the entries once and then each change, and a
// report reads it in time independent of the table's size. Its Sizer is
// the walked Sizer's twin: fed the same entries, the two report the same.
//
// It keeps one record per item collection (partition-key value): ordered
// by storage prefix (the sample is the first maxKeySample of them, as a
// walk meets them) and by size (the largest collections).
type Sizes struct {
	mu        sync.Mutex
	prefixLen func(key []byte) int
	colls     *btree.Map[string, collSize]
	bySize    *btree.BTreeG[sizeKey]
	// parts is the partitioning that items and bytes count against; a
	// report over another one recounts them from colls.
	parts        partition.Map
	items, bytes []int64
}

// collSize is one item collection's items and bytes.
type collSize struct{ items, bytes int64 }

// sizeKey orders collections largest first, then by prefix (a walk's
// order among equals).
type sizeKey struct {
	bytes  int64
	prefix string
}

func bySizeLess(a, b sizeKey) bool {
	if a.bytes != b.bytes {
		return a.bytes > b.bytes
	}
	return a.prefix < b.prefix
}

// NewSizes returns empty Sizes for index ("" the table) of tableID, whose
// storage keys' partition prefix (hash ‖ partition key values) is
// prefixLen(key) bytes long.
func (r *Recorder) NewSizes(tableID, index string, prefixLen func(key []byte) int) *Sizes {
	m := r.opts.Partitions(tableID, index)
	return &Sizes{prefixLen: prefixLen, colls: btree.NewMap[string, collSize](32),
		bySize: btree.NewBTreeGOptions(bySizeLess, btree.Options{NoLocks: true}),
		parts:  m, items: make([]int64, m.Len()), bytes: make([]int64, m.Len())}
}

// Change records that the entry under storage key key changed from old
// bytes to new bytes; -1 means absent (old: added, new: deleted).
func (s *Sizes) Change(key []byte, old, new int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := string(key[:s.prefixLen(key)])
	c, ok := s.colls.Get(prefix)
	if ok {
		s.bySize.Delete(sizeKey{c.bytes, prefix})
	}
	p := s.parts.Of(hashOf(key))
	if old >= 0 {
		c.items--
		c.bytes -= old
		s.items[p]--
		s.bytes[p] -= old
	}
	if new >= 0 {
		c.items++
		c.bytes += new
		s.items[p]++
		s.bytes[p] += new
	}
	if c.items <= 0 {
		s.colls.Delete(prefix)
		return
	}
	s.colls.Set(prefix, c)
	s.bySize.Set(sizeKey{c.bytes, prefix})
}

// Load adds the entries walk feeds to entry, in storage-key order (a
// walk of the space), as Change(key, -1, size) would, but one item
// collection at a time: a collection's entries arrive together, and each
// touches the ordered records once instead of once per entry.
func (s *Sizes) Load(walk func(entry func(key []byte, size int64)) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cur []byte
	var c collSize
	flush := func() {
		if c.items > 0 {
			s.addCollection(string(cur), c)
		}
	}
	err := walk(func(key []byte, size int64) {
		prefix := key[:s.prefixLen(key)]
		if cur == nil || !bytes.Equal(prefix, cur) {
			flush()
			cur, c = append(cur[:0:0], prefix...), collSize{}
		}
		c.items++
		c.bytes += size
		p := s.parts.Of(hashOf(key))
		s.items[p]++
		s.bytes[p] += size
	})
	flush()
	return err
}

// addCollection adds c's items and bytes to the collection under prefix.
func (s *Sizes) addCollection(prefix string, c collSize) {
	old, ok := s.colls.Get(prefix)
	if ok {
		s.bySize.Delete(sizeKey{old.bytes, prefix})
		c.items += old.items
		c.bytes += old.bytes
	}
	s.colls.Set(prefix, c)
	s.bySize.Set(sizeKey{c.bytes, prefix})
}

// Sizer returns a Sizer of index holding these sizes over partitioning m,
// as if it had been fed every entry (Finished).
func (s *Sizes) Sizer(index string, m partition.Map) *Sizer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !sameMap(s.parts, m) {
		s.recount(m)
	}
	z := &Sizer{index: index, parts: m, items: append([]int64(nil), s.items...),
		bytes: append([]int64(nil), s.bytes...), distinct: s.colls.Len()}
	s.colls.Scan(func(prefix string, _ collSize) bool {
		z.sample = append(z.sample, []byte(prefix))
		return len(z.sample) < maxKeySample
	})
	s.bySize.Scan(func(k sizeKey) bool {
		c, _ := s.colls.Get(k.prefix)
		z.top = append(z.top, sized{prefix: []byte(k.prefix), items: c.items, bytes: c.bytes})
		return len(z.top) < TopN
	})
	return z
}

// recount counts items and bytes against partitioning m (the throttle
// model split a partition since): once per split, over the collections.
func (s *Sizes) recount(m partition.Map) {
	s.parts, s.items, s.bytes = m, make([]int64, m.Len()), make([]int64, m.Len())
	s.colls.Scan(func(prefix string, c collSize) bool {
		p := m.Of(hashOf([]byte(prefix)))
		s.items[p] += c.items
		s.bytes[p] += c.bytes
		return true
	})
}

// SizerOf returns the Sizer of index of tableID that s holds, over the
// partitioning a report uses now.
func (r *Recorder) SizerOf(tableID, index string, s *Sizes) *Sizer {
	return s.Sizer(index, r.opts.Partitions(tableID, index))
}
