// Package index derives secondary-index entries from items: the index key
// (one to four partition attributes, zero to four sort attributes, then the
// table key for uniqueness), the projected copy stored in the index, and the
// change an item write makes to an index. Global indexes apply those changes
// asynchronously (package gsi), local ones in the write's own transaction.
package index

import (
	"encoding/binary"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/store"
)

// KeyAttr is one key attribute and its declared type.
type KeyAttr struct {
	Name string
	Type attr.Type
}

// Def is a secondary index as maintenance and reads need it.
type Def struct {
	Name      string
	Global    bool
	Partition []KeyAttr // 1..4 attributes
	Sort      []KeyAttr // 0..4 attributes
	// Projection: "ALL", "KEYS_ONLY" or "INCLUDE" with NonKey.
	ProjectionType string
	NonKey         []string
	// TableKey is the base table's key (partition, then sort if any).
	TableKey []KeyAttr
}

// PartitionPrefix is the storage-key prefix of the index partition whose
// partition attributes have values vals (in key-schema order).
func PartitionPrefix(vals []attr.Value) []byte {
	var enc []byte
	for _, v := range vals {
		enc = attr.AppendKey(enc, v)
	}
	var h uint64
	if len(vals) == 1 {
		h = attr.PartitionHash(vals[0]) // the same spread as a table's partitions
	} else {
		h = attr.PartitionHash(attr.Binary(enc))
	}
	b := attr.AppendHashPrefix(make([]byte, 0, attr.HashPrefixLen+len(enc)), h)
	return append(b, enc...)
}

// Key returns the index storage key of item, whose table storage key is tkey:
// partition prefix ‖ sort attribute encodings ‖ tkey. ok is false when the item
// lacks an index key attribute or has one of another type (a sparse index), or
// when a key value is an empty string or binary or over DynamoDB's size limit:
// writes refuse such values, but items stored before a global index was added
// may hold them, and DynamoDB's backfill leaves those items out of the index
// (an index key violation) rather than failing.
//
// Every write to a table with a global index builds its keys (the applier,
// the write's capacity, insights), so the usual index, one partition
// attribute, is built in one buffer sized up front; others go through
// PartitionPrefix. Both give the same bytes (TestKeyMatchesPrefix).
func (d *Def) Key(item attr.Item, tkey []byte) (key []byte, ok bool) {
	if len(d.Partition) != 1 {
		return d.keyMulti(item, tkey)
	}
	pv, ok := item[d.Partition[0].Name]
	if !ok || CheckKeyValue(pv, d.Partition[0].Type, true) != KeyFits {
		return nil, false
	}
	n := attr.HashPrefixLen + keyLen(pv) + len(tkey)
	for _, ka := range d.Sort {
		v, ok := item[ka.Name]
		if !ok || CheckKeyValue(v, ka.Type, false) != KeyFits {
			return nil, false
		}
		n += keyLen(v)
	}
	key = attr.AppendHashPrefix(make([]byte, 0, n), attr.PartitionHash(pv))
	key = attr.AppendKey(key, pv)
	for _, ka := range d.Sort {
		key = attr.AppendKey(key, item[ka.Name])
	}
	return append(key, tkey...), true
}

// keyLen is about the length of v's AppendKey encoding (a few bytes more
// for an S or B value holding 0x00 bytes, which are escaped): enough to
// size a key's buffer once in the common case.
func keyLen(v attr.Value) int {
	if v.T == attr.TypeN {
		return len(v.S)/2 + 4
	}
	return len(v.S) + len(v.B) + 2
}

// keyMulti is Key for an index of two or more partition attributes.
func (d *Def) keyMulti(item attr.Item, tkey []byte) (key []byte, ok bool) {
	vals := make([]attr.Value, len(d.Partition))
	for i, ka := range d.Partition {
		v, ok := item[ka.Name]
		if !ok || CheckKeyValue(v, ka.Type, true) != KeyFits {
			return nil, false
		}
		vals[i] = v
	}
	key = PartitionPrefix(vals)
	for _, ka := range d.Sort {
		v, ok := item[ka.Name]
		if !ok || CheckKeyValue(v, ka.Type, false) != KeyFits {
			return nil, false
		}
		key = attr.AppendKey(key, v)
	}
	return append(key, tkey...), true
}

// KeyViolation says why a value cannot be an index key value. The one set of
// rules serves both writes, which refuse the item (package table words the
// error), and backfill, which leaves the item out of the index.
type KeyViolation uint8

const (
	KeyFits      KeyViolation = iota // a valid index key value
	KeyWrongType                     // not of the attribute's declared type
	KeyEmpty                         // an empty string or binary
	KeyTooLarge                      // over MaxKeySize bytes
)

// MaxKeySize is DynamoDB's size limit, in bytes, of a partition or a sort key
// value, the same for tables and indexes.
func MaxKeySize(partition bool) int {
	if partition {
		return attr.MaxPartitionKeySize
	}
	return attr.MaxSortKeySize
}

// CheckKeyValue reports whether v can be a partition (or sort) key value of
// declared type want.
func CheckKeyValue(v attr.Value, want attr.Type, partition bool) KeyViolation {
	if v.T != want {
		return KeyWrongType
	}
	if v.T == attr.TypeN {
		return KeyFits
	}
	n := len(v.S) + len(v.B)
	switch {
	case n == 0:
		return KeyEmpty
	case n > MaxKeySize(partition):
		return KeyTooLarge
	}
	return KeyFits
}

// KeyNames returns the names of the index's key attributes and the table's,
// without duplicates: what every projection keeps and what a
// LastEvaluatedKey from the index carries.
func (d *Def) KeyNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, group := range [][]KeyAttr{d.TableKey, d.Partition, d.Sort} {
		for _, ka := range group {
			if !seen[ka.Name] {
				seen[ka.Name] = true
				names = append(names, ka.Name)
			}
		}
	}
	return names
}

// Projects reports whether the index stores attribute name.
func (d *Def) Projects(name string) bool {
	if d.ProjectionType == "ALL" {
		return true
	}
	for _, n := range d.KeyNames() {
		if n == name {
			return true
		}
	}
	if d.ProjectionType == "INCLUDE" {
		for _, n := range d.NonKey {
			if n == name {
				return true
			}
		}
	}
	return false
}

// Project returns the copy of item the index stores.
func (d *Def) Project(item attr.Item) attr.Item {
	if d.ProjectionType == "ALL" {
		return item
	}
	out := make(attr.Item, len(d.TableKey)+len(d.Partition)+len(d.Sort)+len(d.NonKey))
	for _, n := range d.KeyNames() {
		if v, ok := item[n]; ok {
			out[n] = v
		}
	}
	if d.ProjectionType == "INCLUDE" {
		for _, n := range d.NonKey {
			if v, ok := item[n]; ok {
				out[n] = v
			}
		}
	}
	return out
}

// KeyOf returns the attributes a LastEvaluatedKey read from this index carries.
func (d *Def) KeyOf(item attr.Item) attr.Item {
	out := attr.Item{}
	for _, n := range d.KeyNames() {
		if v, ok := item[n]; ok {
			out[n] = v
		}
	}
	return out
}

// Change is what one item write does to one index.
type Change struct {
	OldKey, NewKey   []byte    // nil when the item is absent from the index before/after
	New              attr.Item // projected item to store under NewKey
	OldSize, NewSize int       // projected sizes
	// Entry, when not nil, is the encoded entry to store under NewKey
	// (AppendEntry's form, possibly another encoding of the same item), so
	// that Apply need not encode New (which may then be nil).
	Entry []byte
	// Unchanged: the entry is the same before and after (same key, same
	// projected attributes), so the index sees no write at all.
	Unchanged bool
}

// Diff computes the index change for an item going from old to new (either may
// be nil) at table storage key tkey. It is pure.
func (d *Def) Diff(tkey []byte, old, new attr.Item) Change {
	return d.DiffSized(tkey, old, new, -1, -1)
}

// DiffSized is Diff for a caller that knows the items' sizes (Item.Size,
// -1 when it does not): an index that projects every attribute then has
// its projected sizes without walking the items again. It returns what
// Diff returns when the sizes are right (TestDiffSizedMatchesDiff).
func (d *Def) DiffSized(tkey []byte, old, new attr.Item, oldSize, newSize int) Change {
	var c Change
	if old != nil {
		if k, ok := d.Key(old, tkey); ok {
			c.OldKey, c.OldSize = k, d.projectedSize(old, oldSize)
		}
	}
	if new != nil {
		if k, ok := d.Key(new, tkey); ok {
			c.New = d.Project(new)
			c.NewKey, c.NewSize = k, d.projectedSize(c.New, newSize)
		}
	}
	if c.OldKey != nil && c.NewKey != nil && string(c.OldKey) == string(c.NewKey) && c.OldSize == c.NewSize {
		c.Unchanged = attr.Equal(attr.Map(d.Project(old)), attr.Map(c.New))
	}
	return c
}

// projectedSize is the size of item's projection, whose own size is size
// (-1 when not known).
func (d *Def) projectedSize(item attr.Item, size int) int {
	if d.ProjectionType == "ALL" && size >= 0 {
		return size
	}
	return d.Project(item).Size()
}

// Apply performs c on the index space sp and keeps its item and size
// counters. It is idempotent: it deletes only what is there and replaces what
// is there, adjusting the counters by the stored entries' real sizes, so a
// backfill may overlap the change log it is later caught up from.
func (c Change) Apply(sp *store.Space) error {
	items, size, err := c.ApplyUncounted(sp)
	if err != nil || (items == 0 && size == 0) {
		return err
	}
	return sp.AddStats(items, size)
}

// ApplyUncounted is Apply without the counters: it returns what Apply would
// add to them, for a caller that applies many changes to one index and adds
// their sum once (the counters are a read and a write of their own). The
// new entry replaces the old one in one search when the key stays.
func (c Change) ApplyUncounted(sp *store.Space) (items, size int64, err error) {
	if c.Unchanged {
		return 0, 0, nil
	}
	if c.OldKey != nil && string(c.OldKey) != string(c.NewKey) {
		if prev := sp.Get(c.OldKey); prev != nil {
			n, err := EntrySize(prev)
			if err != nil {
				return 0, 0, err
			}
			if err := sp.Delete(c.OldKey); err != nil {
				return 0, 0, err
			}
			items, size = -1, -int64(n)
		}
	}
	if c.NewKey == nil {
		return items, size, nil
	}
	entry := c.Entry
	if entry == nil {
		entry = AppendEntry(nil, c.New, c.NewSize)
	}
	prev, err := sp.SwapOwned(c.NewKey, entry)
	if err != nil {
		return 0, 0, err
	}
	if prev != nil {
		n, err := EntrySize(prev)
		if err != nil {
			return 0, 0, err
		}
		items, size = items-1, size-int64(n)
	}
	return items + 1, size + int64(c.NewSize), nil
}

// AppendEntry encodes an index entry: the projected item's size, then the
// item; size must be item.Size() (the encoding records it).
func AppendEntry(dst []byte, item attr.Item, size int) []byte {
	if dst == nil {
		dst = make([]byte, 0, size+4*len(item)+16) // the usual item's encoding fits
	}
	dst = binary.AppendUvarint(dst, uint64(size))
	return attr.AppendBinarySized(dst, item, size)
}

// AppendEntryEncoded is AppendEntry for an item already in its storage
// encoding (attr.AppendBinarySized's, whose Item.Size is size): an index
// projecting ALL stores the item as the table does, behind its size.
func AppendEntryEncoded(dst, enc []byte, size int) []byte {
	if dst == nil {
		dst = make([]byte, 0, len(enc)+binary.MaxVarintLen64)
	}
	dst = binary.AppendUvarint(dst, uint64(size))
	return append(dst, enc...)
}

// EntrySize returns the projected item size recorded in an index entry.
func EntrySize(b []byte) (int, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 {
		return 0, errCorruptEntry
	}
	return int(n), nil
}

// SplitEntry returns the projected item size recorded in an index entry and
// the length of that header; the item's binary encoding follows it.
func SplitEntry(b []byte) (size, header int, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 {
		return 0, 0, errCorruptEntry
	}
	return int(n), w, nil
}

// DecodeEntry returns the projected item of an index entry.
func DecodeEntry(b []byte) (attr.Item, error) {
	_, w := binary.Uvarint(b)
	if w <= 0 {
		return nil, errCorruptEntry
	}
	return attr.DecodeBinary(b[w:])
}

var errCorruptEntry = errors.New("index: corrupt entry")
