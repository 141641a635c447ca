package attr

import "math/bits"

// Keeping BinarySizeNames' scratch map cheap. A filtered Scan reuses one
// map for every item it reads; a Value is larger than the 128 bytes a Go
// map stores in place, so each insert of a key the map does not hold boxes
// the value on the heap. Clearing the map for every item therefore cost an
// allocation per attribute per item; overwriting the entries it already
// holds costs none.

// nameIndex returns the index of the first member of names equal to k, or
// -1, without converting k (a new string per attribute of every item).
func nameIndex[T string | []byte](names []string, k T) int {
	for j, n := range names {
		if n == string(k) {
			return j
		}
	}
	return -1
}

// decodeInto decodes the encoded value v (already checked by binWalker) as
// into[name]. A string or number equal to the one into holds is kept as it
// is: filters mostly read attributes with few distinct values, and the
// copy that keeps into from aliasing v is then not needed.
func decodeInto(into Item, name string, v []byte) bool {
	if len(v) > 0 {
		if t := storedType(v[0]); t == TypeS || t == TypeN {
			at, end, ok := readBytes(v, 1)
			if !ok || end != len(v) {
				return false
			}
			if old, held := into[name]; held && old.T == t && old.S == string(v[at:end]) {
				return true
			}
			into[name] = Value{T: t, S: string(v[at:end])}
			return true
		}
	}
	d := binDecoder{s: string(v)}
	val, ok := d.value(0)
	if !ok || d.i != len(d.s) {
		return false
	}
	into[name] = val
	return true
}

// pruneInto deletes from into every key but the names whose bit is set in
// found (bit j for names[j], the first of equal names), so that into holds
// exactly this item's attributes. When into has just those keys, which is
// the usual case, it does not look at the map at all.
func pruneInto(into Item, names []string, found uint64) {
	if len(into) == bits.OnesCount64(found) {
		return
	}
	for k := range into {
		if j := nameIndex(names, k); j < 0 || found&(1<<j) == 0 {
			delete(into, k)
		}
	}
}
