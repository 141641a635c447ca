package attr

import (
	"errors"
	"strings"
	"testing"
)

// nestedJSON is a string leaf inside depth single-member maps (or lists).
func nestedJSON(depth int, list bool) string {
	open, close := `{"M":{"n":`, `}}`
	if list {
		open, close = `{"L":[`, `]}`
	}
	return strings.Repeat(open, depth) + `{"S":"leaf"}` + strings.Repeat(close, depth)
}

func TestDepth(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		want int
	}{
		{String("x"), 0},
		{Value{T: TypeSS, SS: []string{"a"}}, 0},
		{Value{T: TypeM, M: map[string]Value{}}, 1},
		{Value{T: TypeL, L: []Value{String("x"), {T: TypeL, L: []Value{{T: TypeM, M: map[string]Value{"a": String("y")}}}}}}, 3},
	} {
		if got := tc.v.Depth(); got != tc.want {
			t.Errorf("%v: Depth %d, want %d", tc.v, got, tc.want)
		}
	}
	it := Item{"a": String("x"), "b": {T: TypeL, L: []Value{{T: TypeL}}}}
	if got := it.Depth(); got != 2 {
		t.Errorf("item Depth %d, want 2", got)
	}
}

// TestUnmarshalJSONDeep: the deep decoders read what UnmarshalJSON refuses
// as too deep, up to MaxDecodeDepth containers and no further.
func TestUnmarshalJSONDeep(t *testing.T) {
	for _, list := range []bool{false, true} {
		for _, tc := range []struct {
			depth  int
			strict bool // UnmarshalJSON reads it
			deep   bool // UnmarshalJSONDeep reads it
		}{
			{MaxNestingDepth, true, true},
			{MaxNestingDepth + 1, false, true},
			{100, false, true},
			{MaxDecodeDepth, false, true},
			{MaxDecodeDepth + 1, false, false},
			{5000, false, false},
		} {
			b := []byte(nestedJSON(tc.depth, list))
			var v Value
			err := v.UnmarshalJSON(b)
			if (err == nil) != tc.strict || (err != nil && !errors.Is(err, ErrNesting)) {
				t.Errorf("list %v, depth %d: UnmarshalJSON: %v", list, tc.depth, err)
			}
			var d Value
			err = d.UnmarshalJSONDeep(b)
			if (err == nil) != tc.deep || (err != nil && !errors.Is(err, ErrNesting)) {
				t.Errorf("list %v, depth %d: UnmarshalJSONDeep: %v", list, tc.depth, err)
			}
			if err == nil && d.Depth() != tc.depth {
				t.Errorf("list %v, depth %d: decoded Depth %d", list, tc.depth, d.Depth())
			}
			var it Item
			err = it.UnmarshalJSONDeep([]byte(`{"a":` + string(b) + `}`))
			if (err == nil) != tc.deep || (err == nil && it.Depth() != tc.depth) {
				t.Errorf("list %v, depth %d: Item.UnmarshalJSONDeep: %v, Depth %d", list, tc.depth, err, it.Depth())
			}
		}
	}
}
