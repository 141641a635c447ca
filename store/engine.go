package store

// The store runs over one of two engines with the same semantics: bbolt
// (a file, durable or not) and memory (a copy-on-write B-tree, for
// --in-memory, where bbolt's page writes and commit bookkeeping would be pure
// overhead). Tx and Space are written against the interfaces below.

// engine is the storage under a DB.
type engine interface {
	// begin starts a transaction. At most one writable transaction is open
	// at a time (the committer's); read transactions see a snapshot.
	begin(writable bool) (txn, error)
	close() error
}

// txn is one engine transaction.
type txn interface {
	writable() bool
	catalog() bucket
	// space returns the space named id, or nil if there is none.
	space(id string) spaceTxn
	createSpace(id string) error // ErrSpaceExists if present
	dropSpace(id string) error   // absent is not an error
	spaceIDs(fn func(id string) bool)
	commit() error
	rollback()
}

// Sub-keyspaces of a space.
const (
	subData = iota
	subLog
	subMeta
	subCount
)

// spaceTxn is one space seen through a txn.
type spaceTxn interface {
	sub(which int) bucket
}

// bucket is one ordered keyspace seen through a txn. Values passed to put
// are owned by the bucket from then on; values returned are valid until the
// transaction ends and must not be modified.
type bucket interface {
	get(key []byte) []byte
	put(key, val []byte) error
	// swap is put that also returns the value it replaced
	// (nil if there was none), valid until the transaction ends.
	swap(key, val []byte) ([]byte, error)
	delete(key []byte) error
	// ascend visits keys in [from, to) upwards (nil from = first, nil to =
	// no bound) until fn returns false.
	ascend(from, to []byte, fn func(k, v []byte) bool)
	// descend visits keys in [from, to) downwards, from the largest key < to
	// (nil to = the last key), until fn returns false.
	descend(from, to []byte, fn func(k, v []byte) bool)
	// nextSequence increments and returns the bucket's sequence number.
	nextSequence() (uint64, error)
	sequence() uint64
	// setSequence sets the sequence number (replaying a logged write).
	setSequence(seq uint64) error
}
