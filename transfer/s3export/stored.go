package s3export

import "github.com/ddblocal/ddblocal/attr"

// storedDecoder decodes the stored items of one Ion run. A table's items
// mostly have the same attribute names, and a decoded Item is a map of
// ~130-byte Values, each boxed on the heap when the map inserts a name it
// lacks: decoding every item into a new map was most of an Ion export's
// garbage (~1 KB an item). So the decoder keeps one map and the names of
// the last item it fully decoded, and reads each item into that map
// (attr.BinarySizeNames, which overwrites the entries the map holds and
// drops those the item lacks); when the item has an attribute the names
// lack (what was read is smaller than the item: every attribute counts at
// least its name's byte, and the one name without bytes, "", is always
// among the names read), it decodes the item whole (attr.DecodeBinary, the
// plain twin: TestStoredDecoderIsDecodeBinary) and learns its names.
type storedDecoder struct {
	names []string
	into  attr.Item // nil: no names learned, or too many to track
}

// maxTracked is how many names BinarySizeNames keeps track of without
// clearing the map for every item.
const maxTracked = 64

// decode returns the item b holds and its size. The Item is valid until
// the next call.
func (d *storedDecoder) decode(b []byte) (attr.Item, int, error) {
	if d.into != nil {
		size, err := attr.BinarySizeNames(b, d.names, d.into)
		if err != nil {
			return nil, 0, err
		}
		if d.into.Size() == size {
			return d.into, size, nil
		}
	}
	it, err := attr.DecodeBinary(b)
	if err != nil {
		return nil, 0, err
	}
	d.names, d.into = append(d.names[:0], ""), nil
	for k := range it {
		if k != "" {
			d.names = append(d.names, k)
		}
	}
	if len(d.names) <= maxTracked {
		d.into = make(attr.Item, len(it))
	}
	return it, it.Size(), nil
}
