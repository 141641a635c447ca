package table

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
)

func TestPrefixEndAndAfter(t *testing.T) {
	tests := []struct{ in, want []byte }{
		{[]byte{1, 2}, []byte{1, 3}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
		{[]byte{}, nil},
	}
	for _, tt := range tests {
		if got := prefixEnd(tt.in); !bytes.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("prefixEnd(%x): got %x, want %x", tt.in, got, tt.want)
		}
	}
	k := []byte{5, 6}
	if got := after(k); !bytes.Equal(got, []byte{5, 6, 0}) || &got[0] == &k[0] {
		t.Errorf("after: got %x", got)
	}
}

func TestSegmentRangeCoversHashSpace(t *testing.T) {
	for _, total := range []uint64{1, 2, 3, 7, 1000, 1000000} {
		for _, seg := range []uint64{0, 1, total / 2, total - 1} {
			if seg >= total {
				continue
			}
			from, to := segmentRange(seg, total)
			if seg == 0 && from != nil && binary.BigEndian.Uint64(from) != 0 {
				t.Errorf("total %d: segment 0 starts at %x", total, from)
			}
			if seg == total-1 && to != nil {
				t.Errorf("total %d: last segment ends at %x, want open", total, to)
			}
			if seg > 0 {
				pf, pt := segmentRange(seg-1, total)
				if !bytes.Equal(pt, from) || (pf != nil && bytes.Compare(pf, from) >= 0) {
					t.Errorf("total %d: segment %d does not start where %d ends", total, seg, seg-1)
				}
			}
		}
	}
}

func TestSortRange(t *testing.T) {
	ks := keySchema{PK: "pk", SK: "sk", PKType: attr.TypeS, SKType: attr.TypeS}
	prefix := partitionPrefix(attr.String("p"))
	key := func(s string) []byte { return storageKey(ks, attr.String("p"), ptr(attr.String(s))) }
	in := func(from, to, k []byte) bool {
		return bytes.Compare(k, from) >= 0 && (to == nil || bytes.Compare(k, to) < 0)
	}
	sks := []string{"a", "ab", "abc", "abd", "b", "b\x00", "c"}
	tests := []struct {
		op   string
		vals []string
		want []string
	}{
		{"=", []string{"ab"}, []string{"ab"}},
		{"<", []string{"b"}, []string{"a", "ab", "abc", "abd"}},
		{"<=", []string{"b"}, []string{"a", "ab", "abc", "abd", "b"}},
		{">", []string{"b"}, []string{"b\x00", "c"}},
		{">=", []string{"b"}, []string{"b", "b\x00", "c"}},
		{"BETWEEN", []string{"ab", "b"}, []string{"ab", "abc", "abd", "b"}},
		{"begins_with", []string{"ab"}, []string{"ab", "abc", "abd"}},
		{"begins_with", []string{"b"}, []string{"b", "b\x00"}},
	}
	for _, tt := range tests {
		var vals []attr.Value
		for _, v := range tt.vals {
			vals = append(vals, attr.String(v))
		}
		from, to, err := sortRange(attr.TypeS, prefix, expressions.KeyTerm{Name: "sk", Op: tt.op, Values: vals})
		if err != nil {
			t.Fatalf("%s %v: %v", tt.op, tt.vals, err)
		}
		var got []string
		for _, sk := range sks {
			if in(from, to, key(sk)) {
				got = append(got, sk)
			}
		}
		if len(got) != len(tt.want) || (len(got) > 0 && string(bytes.Join(toBytes(got), nil)) != string(bytes.Join(toBytes(tt.want), nil))) {
			t.Errorf("%s %q: got %q, want %q", tt.op, tt.vals, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func toBytes(ss []string) [][]byte {
	var out [][]byte
	for _, s := range ss {
		out = append(out, []byte(s), []byte{0})
	}
	return out
}
