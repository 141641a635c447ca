package store

// Space is one ordered keyspace (a table or an index) seen through a Tx. It is
// valid only as long as its Tx; a Space from View is read-only.
type Space struct {
	tx *Tx
	s  spaceTxn
	// Sub-keyspaces, opened on first use: most calls touch only one of them.
	data, log, meta bucket
}

func (s *Space) dataB() bucket {
	if s.data == nil {
		s.data = s.s.sub(subData)
	}
	return s.data
}

func (s *Space) logB() bucket {
	if s.log == nil {
		s.log = s.s.sub(subLog)
	}
	return s.log
}

func (s *Space) metaB() bucket {
	if s.meta == nil {
		s.meta = s.s.sub(subMeta)
	}
	return s.meta
}

// Get returns the value stored under key, or nil if there is none (an empty
// stored value is returned as a non-nil empty slice). The slice is valid until
// the transaction ends and must not be modified.
func (s *Space) Get(key []byte) []byte {
	if s.tx.done || len(key) == 0 {
		return nil
	}
	return s.dataB().get(key)
}

// Put stores val under key, replacing any previous value. It copies key and
// val, so the caller may reuse them once Put returns. It returns
// ErrKeyRequired, ErrKeyTooLarge, ErrValueTooLarge, ErrReadOnly or ErrTxClosed.
func (s *Space) Put(key, val []byte) error {
	if err := s.tx.write(); err != nil {
		return err
	}
	return putCopy(s.dataB(), key, val)
}

// PutOwned is Put without the copy of val, for a val the caller has just
// built for this purpose: val must not be modified afterwards (bbolt reads
// it until the transaction commits, which with group commit is after fn has
// returned). key is copied. It returns the errors Put returns.
func (s *Space) PutOwned(key, val []byte) error {
	if err := s.tx.write(); err != nil {
		return err
	}
	return putOwned(s.dataB(), key, val)
}

// SwapOwned is PutOwned that also returns the value it replaced, or nil if
// the key was absent: one search instead of a Get and a Put. The old value
// is valid until the transaction ends.
func (s *Space) SwapOwned(key, val []byte) ([]byte, error) {
	if err := s.tx.write(); err != nil {
		return nil, err
	}
	if len(key) == 0 {
		return nil, ErrKeyRequired
	}
	if val == nil {
		val = []byte{}
	}
	return s.dataB().swap(key, val)
}

// SwapJoined is SwapOwned of the value head‖val, which the memory engine
// copies into its store from the two parts, where the caller would
// otherwise join them in a buffer of their own that the store copies
// again; other engines are given the joined copy (swapJoinedPlain, the
// twin, TestSwapJoinedMatchesPlain). head and val are copied: the caller
// may reuse them.
func (s *Space) SwapJoined(key, head, val []byte) ([]byte, error) {
	if err := s.tx.write(); err != nil {
		return nil, err
	}
	if len(key) == 0 {
		return nil, ErrKeyRequired
	}
	if b, ok := s.dataB().(*memBucket); ok {
		return b.swapJoined(key, head, val)
	}
	return s.swapJoinedPlain(key, head, val)
}

// swapJoinedPlain is SwapJoined with the value joined first.
func (s *Space) swapJoinedPlain(key, head, val []byte) ([]byte, error) {
	v := make([]byte, 0, len(head)+len(val))
	return s.dataB().swap(key, append(append(v, head...), val...))
}

// Delete removes key; removing an absent key is not an error. It returns
// ErrReadOnly or ErrTxClosed.
func (s *Space) Delete(key []byte) error {
	if err := s.tx.write(); err != nil {
		return err
	}
	return s.dataB().delete(key)
}

// Ascend calls fn for each key in [from, to) in ascending order, where a nil
// from means the first key and a nil to means no upper bound, until fn returns
// false. k and v are valid only during fn (copy them to keep them) and must
// not be modified; fn must not write to this space. It returns ErrTxClosed if
// the transaction has ended.
func (s *Space) Ascend(from, to []byte, fn func(k, v []byte) bool) error {
	if s.tx.done {
		return ErrTxClosed
	}
	s.dataB().ascend(from, to, fn)
	return nil
}

// Descend calls fn for each key in [from, to) in descending order, from the
// largest key < to (nil to = the last key) down to from (nil from = no lower
// bound), until fn returns false. k and v are valid only during fn (copy them
// to keep them) and must not be modified; fn must not write to this space. It
// returns ErrTxClosed if the transaction has ended.
func (s *Space) Descend(from, to []byte, fn func(k, v []byte) bool) error {
	if s.tx.done {
		return ErrTxClosed
	}
	s.dataB().descend(from, to, fn)
	return nil
}
