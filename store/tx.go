package store

import (
	"bytes"
	"errors"

	bolt "go.etcd.io/bbolt"
)

// Tx is a transaction handed to an Update or View function. It is valid only
// until that function returns; afterwards writes return ErrTxClosed and reads
// return nothing. A Tx is not safe for concurrent use.
type Tx struct {
	btx   *bolt.Tx
	dirty bool // a write was attempted: a failing fn then needs a rollback
	done  bool // the function that received this Tx has returned
}

// Writable reports whether tx came from Update.
func (tx *Tx) Writable() bool { return tx.btx.Writable() }

// write marks tx dirty before a mutation, or returns why it may not mutate.
func (tx *Tx) write() error {
	if tx.done {
		return ErrTxClosed
	}
	if !tx.btx.Writable() {
		return ErrReadOnly
	}
	tx.dirty = true
	return nil
}

func (tx *Tx) catalog() *bolt.Bucket { return tx.btx.Bucket([]byte(catalogBucket)) }
func (tx *Tx) spaces() *bolt.Bucket  { return tx.btx.Bucket([]byte(spacesBucket)) }

// CatalogGet returns the catalog record stored under key, or nil if there is
// none. The slice is valid until the transaction ends and must not be modified.
func (tx *Tx) CatalogGet(key []byte) []byte {
	if tx.done {
		return nil
	}
	return tx.catalog().Get(key)
}

// CatalogPut stores val under key in the catalog. It copies key and val, so
// the caller may reuse them once CatalogPut returns. It returns ErrKeyRequired, ErrKeyTooLarge, ErrValueTooLarge, ErrReadOnly or
// ErrTxClosed.
func (tx *Tx) CatalogPut(key, val []byte) error {
	if err := tx.write(); err != nil {
		return err
	}
	return putCopy(tx.catalog(), key, val)
}

// CatalogDelete removes key from the catalog; removing an absent key is not
// an error. It returns ErrReadOnly or ErrTxClosed.
func (tx *Tx) CatalogDelete(key []byte) error {
	if err := tx.write(); err != nil {
		return err
	}
	return mapErr(tx.catalog().Delete(key))
}

// CatalogAscend calls fn for each catalog record with key >= from (nil from
// means the first key), in ascending key order, until fn returns false. k and
// v are valid only during fn. It returns ErrTxClosed if tx has ended.
func (tx *Tx) CatalogAscend(from []byte, fn func(k, v []byte) bool) error {
	if tx.done {
		return ErrTxClosed
	}
	ascend(tx.catalog().Cursor(), from, nil, fn)
	return nil
}

// CreateSpace creates an empty space named id. It returns ErrSpaceExists if
// the space exists, ErrSpaceIDRequired for an empty id, ErrReadOnly or
// ErrTxClosed.
func (tx *Tx) CreateSpace(id string) error {
	if err := tx.write(); err != nil {
		return err
	}
	if id == "" {
		return ErrSpaceIDRequired
	}
	b, err := tx.spaces().CreateBucket([]byte(id))
	if err != nil {
		return mapErr(err)
	}
	for _, sub := range []string{dataBucket, logBucket, metaBucket} {
		if _, err := b.CreateBucket([]byte(sub)); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// DropSpace removes the space named id with all its data, log and metadata.
// Dropping an absent space is not an error. It returns ErrReadOnly or
// ErrTxClosed.
func (tx *Tx) DropSpace(id string) error {
	if err := tx.write(); err != nil {
		return err
	}
	if id == "" {
		return nil
	}
	err := tx.spaces().DeleteBucket([]byte(id))
	if errors.Is(err, bolt.ErrBucketNotFound) {
		return nil
	}
	return mapErr(err)
}

// Space returns the space named id, or nil if it does not exist (or tx has
// ended). The Space is valid only as long as tx.
func (tx *Tx) Space(id string) *Space {
	if tx.done || id == "" {
		return nil
	}
	b := tx.spaces().Bucket([]byte(id))
	if b == nil {
		return nil
	}
	return &Space{tx: tx, b: b}
}

// SpaceIDs calls fn with the id of each space, in ascending byte order, until
// fn returns false. It returns ErrTxClosed if tx has ended.
func (tx *Tx) SpaceIDs(fn func(id string) bool) error {
	if tx.done {
		return ErrTxClosed
	}
	c := tx.spaces().Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil {
			continue // not a bucket; never written by this package
		}
		if !fn(string(k)) {
			break
		}
	}
	return nil
}

// putCopy stores a private copy of val: bbolt keeps a reference to the value
// until commit, which with group commit is after the caller's fn has returned
// and may have reused its buffer. The copy is never nil, so an empty value
// reads back as present.
func putCopy(b *bolt.Bucket, key, val []byte) error {
	v := make([]byte, len(val))
	copy(v, val)
	return putOwned(b, key, v)
}

// putOwned stores val itself, which nobody may modify afterwards; a nil val
// is stored as empty. bbolt copies key.
func putOwned(b *bolt.Bucket, key, val []byte) error {
	if len(key) == 0 {
		return ErrKeyRequired
	}
	if val == nil {
		val = []byte{}
	}
	return mapErr(b.Put(key, val))
}

// ascend calls fn for keys in [from, to) in ascending order (nil from = first,
// nil to = no upper bound) until fn returns false.
func ascend(c *bolt.Cursor, from, to []byte, fn func(k, v []byte) bool) {
	var k, v []byte
	if from == nil {
		k, v = c.First()
	} else {
		k, v = c.Seek(from)
	}
	for ; k != nil; k, v = c.Next() {
		if to != nil && bytes.Compare(k, to) >= 0 {
			return
		}
		if !fn(k, v) {
			return
		}
	}
}

// descend calls fn for keys in [from, to) in descending order, starting at the
// largest key < to (nil to = the last key) and stopping below from (nil from =
// no lower bound), until fn returns false.
func descend(c *bolt.Cursor, from, to []byte, fn func(k, v []byte) bool) {
	var k, v []byte
	if to == nil {
		k, v = c.Last()
	} else {
		// Seek lands on the first key >= to, or past the end; the key we want
		// is just before it.
		if k, _ = c.Seek(to); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
	}
	for ; k != nil; k, v = c.Prev() {
		if from != nil && bytes.Compare(k, from) < 0 {
			return
		}
		if !fn(k, v) {
			return
		}
	}
}
