package store

import (
	"bytes"
	"errors"

	bolt "go.etcd.io/bbolt"
)

// boltEngine is the engine over a bbolt file. On disk the root holds the
// buckets "catalog" and "spaces"; each space is a bucket under "spaces" with
// the sub-buckets "d" (data), "l" (log) and "m" (metadata and counters).
type boltEngine struct{ db *bolt.DB }

// subNames are the bucket names of a space's sub-keyspaces, by index.
var subNames = [subCount][]byte{subData: []byte("d"), subLog: []byte("l"), subMeta: []byte("m")}

func (e boltEngine) begin(writable bool) (txn, error) {
	t, err := e.db.Begin(writable)
	if err != nil {
		return nil, mapErr(err)
	}
	return boltTxn{t}, nil
}

func (e boltEngine) close() error { return e.db.Close() }

type boltTxn struct{ t *bolt.Tx }

func (t boltTxn) writable() bool { return t.t.Writable() }
func (t boltTxn) commit() error  { return t.t.Commit() }
func (t boltTxn) rollback()      { _ = t.t.Rollback() }

func (t boltTxn) catalog() bucket { return boltBucket{t.t.Bucket([]byte(catalogBucket))} }

func (t boltTxn) spaces() *bolt.Bucket { return t.t.Bucket([]byte(spacesBucket)) }

func (t boltTxn) space(id string) spaceTxn {
	b := t.spaces().Bucket([]byte(id))
	if b == nil {
		return nil
	}
	return boltSpace{b}
}

func (t boltTxn) createSpace(id string) error {
	b, err := t.spaces().CreateBucket([]byte(id))
	if err != nil {
		return mapErr(err)
	}
	for _, name := range subNames {
		if _, err := b.CreateBucket(name); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

func (t boltTxn) dropSpace(id string) error {
	err := t.spaces().DeleteBucket([]byte(id))
	if errors.Is(err, bolt.ErrBucketNotFound) {
		return nil
	}
	return mapErr(err)
}

func (t boltTxn) spaceIDs(fn func(id string) bool) {
	c := t.spaces().Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil {
			continue // not a bucket; never written by this package
		}
		if !fn(string(k)) {
			return
		}
	}
}

type boltSpace struct{ b *bolt.Bucket }

func (s boltSpace) sub(which int) bucket { return boltBucket{s.b.Bucket(subNames[which])} }

type boltBucket struct{ b *bolt.Bucket }

func (b boltBucket) get(key []byte) []byte { return b.b.Get(key) }

func (b boltBucket) put(key, val []byte) error { return mapErr(b.b.Put(key, val)) }

func (b boltBucket) swap(key, val []byte) ([]byte, error) {
	// bbolt's pages stay mapped until the transaction ends, so the old
	// value is still readable after the put.
	old := b.get(key)
	return old, b.put(key, val)
}

func (b boltBucket) delete(key []byte) error { return mapErr(b.b.Delete(key)) }

func (b boltBucket) nextSequence() (uint64, error) {
	seq, err := b.b.NextSequence()
	return seq, mapErr(err)
}

func (b boltBucket) sequence() uint64 { return b.b.Sequence() }

func (b boltBucket) setSequence(seq uint64) error { return mapErr(b.b.SetSequence(seq)) }

func (b boltBucket) ascend(from, to []byte, fn func(k, v []byte) bool) {
	c := b.b.Cursor()
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

func (b boltBucket) descend(from, to []byte, fn func(k, v []byte) bool) {
	c := b.b.Cursor()
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
