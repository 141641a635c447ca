package attr

import (
	"bytes"
	"testing"
)

func TestBinarySize(t *testing.T) {
	for _, tc := range []struct {
		name string
		it   Item
	}{
		{"sample", sampleItem()},
		{"empty", Item{}},
		{"numbers", Item{"a": num("-0.001"), "b": num("123456789012345678901234567890123456.78")}},
		{"nested", Item{"m": Map(map[string]Value{"l": List([]Value{Null(), Bool(true), StringSet("x", "yy")})})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BinarySize(AppendBinary(nil, tc.it))
			if want := tc.it.Size(); err != nil || got != want {
				t.Errorf("got %d, %v; want %d", got, err, want)
			}
		})
	}
}

func TestDecodeBinaryNames(t *testing.T) {
	full := sampleItem()
	b := AppendBinary(nil, full)
	for _, tc := range []struct {
		name  string
		names []string
	}{
		{"none", nil},
		{"one", []string{"sk"}},
		{"nested and absent", []string{"m", "nope", "bs"}},
		{"all", []string{"pk", "sk", "empty", "uni", "bin", "nobin", "t", "f", "null", "ss", "ns", "bs", "m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeBinaryNames(b, tc.names)
			if err != nil {
				t.Fatal(err)
			}
			want := Item{}
			for _, n := range tc.names {
				if v, ok := full[n]; ok {
					want[n] = v
				}
			}
			if !Equal(Map(got), Map(want)) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestLazyCorrupt(t *testing.T) {
	good := AppendBinary(nil, sampleItem())
	for _, tc := range []struct {
		name    string
		b       []byte
		sizeErr bool // BinarySize must fail too: it checks only the header of a sized (version 2) encoding
	}{
		{"empty", nil, true},
		{"version", []byte{4, 0}, true},
		{"bad size header", []byte{2, 0x80}, true},
		{"truncated", good[:len(good)-1], false},
		{"trailing", append(append([]byte{}, good...), 0), false},
		{"bad bool", []byte{1, 1, 1, 'a', byte(TypeBOOL), 2}, true},
		{"bad type", []byte{1, 1, 1, 'a', 99}, true},
		{"huge count", []byte{1, 1, 1, 'a', byte(TypeL), 0xff, 0x7f}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := BinarySize(tc.b); tc.sizeErr && err == nil {
				t.Errorf("BinarySize: got nil error, want one")
			}
			if _, err := DecodeBinaryNames(tc.b, []string{"a"}); err == nil {
				t.Errorf("DecodeBinaryNames: got nil error, want one")
			}
		})
	}
}

// FuzzBinaryLazy: BinarySize and DecodeBinaryNames fail exactly when
// DecodeBinary does, and agree with it otherwise.
func FuzzBinaryLazy(f *testing.F) {
	f.Add(AppendBinary(nil, sampleItem()), "m")
	f.Add(AppendBinary(nil, Item{}), "")
	f.Add([]byte{1, 1, 1, 'a', byte(TypeL), 1, byte(TypeNULL)}, "a")
	for _, b := range binarySeeds(f) {
		f.Add(b, "p")
		f.Add(b, "sk")
	}
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		it, err := DecodeBinary(b)
		size, sizeErr := BinarySize(b)
		part, partErr := DecodeBinaryNames(b, []string{name})
		into := Item{"stale": Null()}
		size2, size2Err := BinarySizeNames(b, []string{name}, into)
		// BinarySize checks a sized (version 2) encoding's header only, so
		// it must agree with DecodeBinary on version 1 and whenever the
		// item decodes.
		v1 := len(b) > 0 && b[0] == binaryVersion1
		if (v1 || err == nil) && (err == nil) != (sizeErr == nil) ||
			(err == nil) != (partErr == nil) || (err == nil) != (size2Err == nil) {
			t.Fatalf("errors: DecodeBinary %v, BinarySize %v, DecodeBinaryNames %v, BinarySizeNames %v", err, sizeErr, partErr, size2Err)
		}
		if err != nil {
			return
		}
		if size2 != size || !Equal(Map(into), Map(part)) {
			t.Fatalf("BinarySizeNames = %d, %v; want %d, %v", size2, into, size, part)
		}
		if n, err := BinarySizeNames(b, nil, nil); err != nil || n != size {
			t.Fatalf("BinarySizeNames(nil into) = %d, %v; want %d", n, err, size)
		}
		// A map that already holds the attribute (the value kept when
		// equal) and another name must end up holding what a fresh one
		// does.
		held := Item{name: part[name], "other" + name: Null()}
		if n, err := BinarySizeNames(b, []string{name}, held); err != nil || n != size || !Equal(Map(held), Map(part)) {
			t.Fatalf("BinarySizeNames(reused map) = %d, %v, %v; want %d, %v", n, held, err, size, part)
		}
		// A crafted input may repeat a name, which the map keeps once, or
		// record any size; the computed size must match a version 1 item.
		if n, _ := (&binWalker{b: b, i: 1}).count(); v1 && n == len(it) && size != it.Size() {
			t.Fatalf("BinarySize = %d, want %d", size, it.Size())
		}
		v, ok := it[name]
		if got, gotOK := part[name]; ok != gotOK || len(part) > 1 || (ok && !Equal(got, v)) {
			t.Fatalf("DecodeBinaryNames(%q) = %v, want %v", name, part, v)
		}
		// The part, stored again with plain marks, reads and renders as
		// the decoded part does.
		enc := AppendBinary(nil, part)
		if got, err := AppendBinaryJSON(nil, enc); err != nil || !bytes.Equal(got, AppendItemJSON(nil, part)) {
			t.Fatalf("part re-encoded renders %s, %v; want %s", got, err, AppendItemJSON(nil, part))
		}
		if again, err := DecodeBinaryNames(enc, []string{name}); err != nil || !Equal(Map(again), Map(part)) {
			t.Fatalf("part re-encoded: DecodeBinaryNames = %v, %v; want %v", again, err, part)
		}
		if n, err := BinarySize(enc); err != nil || n != part.Size() {
			t.Fatalf("part re-encoded: BinarySize = %d, %v; want %d", n, err, part.Size())
		}
	})
}

func TestBinarySizeNames(t *testing.T) {
	full := sampleItem()
	b := AppendBinary(nil, full)
	into := Item{"left over": Null()}
	for _, names := range [][]string{{"sk"}, {"m", "nope", "bs"}, nil} {
		size, err := BinarySizeNames(b, names, into)
		want := Item{}
		for _, n := range names {
			if v, ok := full[n]; ok {
				want[n] = v
			}
		}
		if err != nil || size != full.Size() || !Equal(Map(into), Map(want)) {
			t.Errorf("names %v: got %d, %v, %v; want %d, %v", names, size, into, err, full.Size(), want)
		}
	}
	if size, err := BinarySizeNames(b, []string{"sk"}, nil); err != nil || size != full.Size() {
		t.Errorf("nil into: got %d, %v; want %d", size, err, full.Size())
	}
}

// TestBinarySizeNamesNilInto: with nothing to decode, a sized encoding's
// header alone is read and checked; a corrupt body is left to whatever
// reads the item next (documented trade-off), while version 1 is walked
// and checked in full.
func TestBinarySizeNamesNilInto(t *testing.T) {
	good := AppendBinary(nil, sampleItem())
	size := sampleItem().Size()
	v1 := []byte{binaryVersion1, 1, 1, 'a', byte(TypeS), 1, 'x'}
	for _, tc := range []struct {
		name    string
		b       []byte
		want    int
		wantErr bool
	}{
		{"good", good, size, false},
		{"empty", nil, 0, true},
		{"version", []byte{4, 0}, 0, true},
		{"bad size header", []byte{binaryVersion, 0x80}, 0, true},
		{"no item tag", []byte{binaryVersion, 5}, 0, true},
		{"item tag not M", []byte{binaryVersion, 5, byte(TypeL), 0}, 0, true},
		{"item tag marked B", []byte{binaryVersion, 5, byte(TypeB | plainMark), 0}, 0, true},
		{"no count", []byte{binaryVersion, 5, byte(TypeM)}, 0, true},
		{"bad count", []byte{binaryVersion, 5, byte(tagPlainM), 0x80}, 0, true},
		{"count beyond end", []byte{binaryVersion, 5, byte(TypeM), 2, 1}, 0, true},
		{"body not checked: truncated", good[:len(good)-1], size, false},
		{"body not checked: bad type", []byte{binaryVersion, 7, byte(tagPlainM), 1, 1, 'a', 99}, 7, false},
		{"version 2 bad size header", []byte{binaryVersion2, 0x80}, 0, true},
		{"version 2 no count", []byte{binaryVersion2, 5}, 0, true},
		{"version 2 bad count", []byte{binaryVersion2, 5, 0x80}, 0, true},
		{"version 2 count beyond end", []byte{binaryVersion2, 5, 2, 1}, 0, true},
		{"version 2 body not checked: bad type", []byte{binaryVersion2, 7, 1, 1, 'a', 99}, 7, false},
		{"version 1", v1, 2, false},
		{"version 1 truncated", v1[:len(v1)-1], 0, true},
		{"version 1 trailing", append(append([]byte{}, v1...), 0), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BinarySizeNames(tc.b, nil, nil)
			if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
				t.Errorf("got %d, %v; want %d, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
