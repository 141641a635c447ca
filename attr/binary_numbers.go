package attr

// BinaryNumbers calls fn with the canonical text of each element of the
// top-level attribute name of encoded item b, in order, when that attribute
// is a list of numbers, without decoding anything else: vector indexes read
// a 768-number embedding from every change-log image, and building its
// Values cost more than converting it. ok is false when the attribute is
// absent or not a list of numbers only (fn may then have seen the numbers
// before the first other element). text aliases b and is valid only
// during fn. err is ErrCorrupt for input no encoder produced (as far as
// the walk reaches).
func BinaryNumbers(b []byte, name string, fn func(i int, text []byte)) (ok bool, err error) {
	h, good := binaryBody(b)
	if !good {
		return false, errCorrupt()
	}
	w := binWalker{b: b, i: h.start}
	n, good := w.count()
	if !good {
		return false, errCorrupt()
	}
	for range n {
		k, good := w.bytes()
		if !good {
			return false, errCorrupt()
		}
		if string(k) != name {
			if !w.skip(0) {
				return false, errCorrupt()
			}
			continue
		}
		if w.i >= len(w.b) || Type(w.b[w.i]) != TypeL {
			return false, nil
		}
		w.i++
		return w.numbers(fn)
	}
	return false, nil
}

// numbers walks a list's elements for BinaryNumbers.
func (w *binWalker) numbers(fn func(i int, text []byte)) (bool, error) {
	n, good := w.count()
	if !good {
		return false, errCorrupt()
	}
	for i := range n {
		if w.i >= len(w.b) || Type(w.b[w.i]&^plainMark) != TypeN {
			return false, nil
		}
		w.i++
		text, good := w.bytes()
		if !good {
			return false, errCorrupt()
		}
		fn(i, text)
	}
	return true, nil
}
