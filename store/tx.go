package store

// Tx is a transaction handed to an Update or View function. It is valid only
// until that function returns; afterwards writes return ErrTxClosed and reads
// return nothing. A Tx is not safe for concurrent use.
type Tx struct {
	t     txn
	dirty bool // a write was attempted: a failing fn then needs a rollback
	done  bool // the function that received this Tx has returned
}

// Writable reports whether tx came from Update.
func (tx *Tx) Writable() bool { return tx.t.writable() }

// write marks tx dirty before a mutation, or returns why it may not mutate.
func (tx *Tx) write() error {
	if tx.done {
		return ErrTxClosed
	}
	if !tx.t.writable() {
		return ErrReadOnly
	}
	tx.dirty = true
	return nil
}

func (tx *Tx) catalog() bucket { return tx.t.catalog() }

// CatalogGet returns the catalog record stored under key, or nil if there is
// none. The slice is valid until the transaction ends and must not be modified.
func (tx *Tx) CatalogGet(key []byte) []byte {
	if tx.done {
		return nil
	}
	return tx.catalog().get(key)
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
	return tx.catalog().delete(key)
}

// CatalogAscend calls fn for each catalog record with key >= from (nil from
// means the first key), in ascending key order, until fn returns false. k and
// v are valid only during fn. It returns ErrTxClosed if tx has ended.
func (tx *Tx) CatalogAscend(from []byte, fn func(k, v []byte) bool) error {
	if tx.done {
		return ErrTxClosed
	}
	tx.catalog().ascend(from, nil, fn)
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
	return tx.t.createSpace(id)
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
	return tx.t.dropSpace(id)
}

// Space returns the space named id, or nil if it does not exist (or tx has
// ended). The Space is valid only as long as tx.
func (tx *Tx) Space(id string) *Space {
	if tx.done || id == "" {
		return nil
	}
	sp := tx.t.space(id)
	if sp == nil {
		return nil
	}
	return &Space{tx: tx, s: sp}
}

// SpaceIDs calls fn with the id of each space, in ascending byte order, until
// fn returns false. It returns ErrTxClosed if tx has ended.
func (tx *Tx) SpaceIDs(fn func(id string) bool) error {
	if tx.done {
		return ErrTxClosed
	}
	tx.t.spaceIDs(fn)
	return nil
}

// putCopy stores a private copy of val: engines keep a reference to the
// value (bbolt until commit, which with group commit is after the caller's fn
// has returned and may have reused its buffer; memory for good). The copy is
// never nil, so an empty value reads back as present.
func putCopy(b bucket, key, val []byte) error {
	v := make([]byte, len(val))
	copy(v, val)
	return putOwned(b, key, v)
}

// putOwned stores val itself, which nobody may modify afterwards; a nil val
// is stored as empty. Engines copy key.
func putOwned(b bucket, key, val []byte) error {
	if len(key) == 0 {
		return ErrKeyRequired
	}
	if val == nil {
		val = []byte{}
	}
	return b.put(key, val)
}
