package attr

// Encoded is an item held in its storage encoding (AppendBinary's) rather
// than as an Item. A write request's item is only validated, sized, keyed
// and stored: decoding its DynamoDB-JSON straight into this form
// (UnmarshalJSON) skips the map of ~130-byte Values an Item is, which was
// most of what a BatchWriteItem allocated per item.
//
// The zero Encoded is no item (JSON null); IsZero reports it. Encoded
// values are immutable: the methods never modify the bytes they hold.
type Encoded struct {
	b []byte
}

// EncodeItem returns it in its storage encoding, with names in order at
// every level so that equal items give equal bytes; a nil it gives the
// zero Encoded.
func EncodeItem(it Item) Encoded {
	if it == nil {
		return Encoded{}
	}
	return Encoded{b: appendBinarySorted(nil, it)}
}

// IsZero reports whether e holds no item.
func (e Encoded) IsZero() bool { return e.b == nil }

// Bytes returns the storage encoding (nil for the zero Encoded). The
// caller must not modify it.
func (e Encoded) Bytes() []byte { return e.b }

// Size returns the item's Item.Size, recorded in the encoding (0 for the
// zero Encoded).
func (e Encoded) Size() int {
	if e.b == nil {
		return 0
	}
	n, err := BinarySize(e.b)
	if err != nil {
		return 0 // an Encoded is only ever built valid
	}
	return n
}

// Item decodes e; the zero Encoded decodes as a nil Item.
func (e Encoded) Item() (Item, error) {
	if e.b == nil {
		return nil, nil
	}
	return DecodeBinary(e.b)
}

// Lookup returns the top-level attribute name, decoded, and whether the
// item has it, without decoding the others.
func (e Encoded) Lookup(name string) (Value, bool) {
	h, ok := binaryBody(e.b)
	if !ok {
		return Value{}, false
	}
	w := binWalker{b: e.b, i: h.start}
	n, ok := w.count()
	if !ok {
		return Value{}, false
	}
	for range n {
		k, ok := w.bytes()
		if !ok {
			return Value{}, false
		}
		if string(k) != name {
			if !w.skip(0) {
				return Value{}, false
			}
			continue
		}
		start := w.i
		if !w.skip(0) {
			return Value{}, false
		}
		d := binDecoder{s: string(e.b[start:w.i])}
		return d.value(0)
	}
	return Value{}, false
}

// UnmarshalJSON decodes an item in DynamoDB-JSON, accepting and rejecting
// exactly what Item.UnmarshalJSON does, with the same errors; JSON null
// gives the zero Encoded. On error e is unchanged.
//
// Items of the common shape (S, N, BOOL, NULL, M and L values, names and
// strings without escapes, no name twice in one map) are encoded in one
// pass over the JSON; anything else, and every error, goes through
// Item.UnmarshalJSON and AppendBinary, so that the two never disagree.
func (e *Encoded) UnmarshalJSON(b []byte) error {
	if enc, ok := encodeItemJSON(b); ok {
		e.b = enc
		return nil
	}
	var it Item
	if err := it.UnmarshalJSON(b); err != nil {
		return err
	}
	*e = EncodeItem(it)
	return nil
}

// UnmarshalJSONPrefix is UnmarshalJSON's one-pass path for an item whose
// JSON starts b and is followed by anything (the rest of a request): when
// the item has the shape that path takes, it sets e and returns the length
// of the item's JSON. Otherwise it returns false and leaves e unchanged,
// saying nothing about validity: the caller then finds the item's extent
// and calls UnmarshalJSON, which decides. A request decoder so reads each
// item once instead of twice.
func (e *Encoded) UnmarshalJSONPrefix(b []byte) (n int, ok bool) {
	enc, n, ok := encodeItemPrefix(b)
	if ok {
		e.b = enc
	}
	return n, ok
}

// MarshalJSON writes e in DynamoDB-JSON, as Item's MarshalJSON writes the
// decoded item (null for the zero Encoded).
func (e Encoded) MarshalJSON() ([]byte, error) {
	if e.b == nil {
		return []byte("null"), nil
	}
	return AppendBinaryJSON(nil, e.b)
}
