package attr

import "bytes"

// Change is what one write did to an item: its image before and after,
// nil where the item was absent.
type Change struct {
	Old, New Item
}

// DecodeChange decodes a write's old and new images in the binary
// encoding (nil for an absent item). It returns false when the write
// changed nothing: both images are present and hold the same attributes
// and values, as DynamoDB compares items (it records no change for such a
// write in a stream).
func DecodeChange(old, new []byte) (Change, bool, error) {
	if old != nil && new != nil && bytes.Equal(old, new) {
		return Change{}, false, nil
	}
	var c Change
	var err error
	if old != nil {
		if c.Old, err = DecodeBinary(old); err != nil {
			return Change{}, false, err
		}
	}
	if new != nil {
		if c.New, err = DecodeBinary(new); err != nil {
			return Change{}, false, err
		}
	}
	if c.Old != nil && c.New != nil && Equal(Map(c.Old), Map(c.New)) {
		return Change{}, false, nil
	}
	return c, true, nil
}

// EventName is the change's name in a stream record: INSERT, MODIFY or
// REMOVE.
func (c Change) EventName() string {
	switch {
	case c.Old == nil:
		return "INSERT"
	case c.New == nil:
		return "REMOVE"
	}
	return "MODIFY"
}

// Keys returns the attributes of the changed item named in names (the key
// schema's): from its new image, or its old one when it was deleted.
func (c Change) Keys(names []string) Item {
	src := c.New
	if src == nil {
		src = c.Old
	}
	keys := make(Item, len(names))
	for _, n := range names {
		if v, ok := src[n]; ok {
			keys[n] = v
		}
	}
	return keys
}
