package codec

import (
	"errors"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

type deepTarget struct {
	TableName string
	Item      attr.Item
	Values    map[string]attr.Value `json:",omitempty"`
	Expected  map[string]struct{ Value *attr.Value }
}

// TestDecodeDeep: a body Decode refuses as nested too deeply is read by
// DecodeDeep, values and all, up to attr.MaxDecodeDepth containers; past
// that, or when the body is not one the fast path reads, it gives up.
func TestDecodeDeep(t *testing.T) {
	nest := func(depth int) string {
		return strings.Repeat(`{"M":{"n":`, depth) + `{"S":"leaf"}` + strings.Repeat(`}}`, depth)
	}
	for _, tc := range []struct {
		name  string
		body  string
		depth int // of the deepest value read; -1: DecodeDeep gives up
	}{
		{"item", `{"TableName":"t","Item":{"a":` + nest(40) + `}}`, 40},
		{"value", `{"TableName":"t","Item":{"a":{"S":"x"}},"Values":{":v":` + nest(100) + `}}`, 100},
		{"expected", `{"TableName":"t","Expected":{"a":{"Value":` + nest(63) + `}}}`, 63},
		{"at the bound", `{"Item":{"a":` + nest(attr.MaxDecodeDepth) + `}}`, attr.MaxDecodeDepth},
		{"past the bound", `{"Item":{"a":` + nest(attr.MaxDecodeDepth+1) + `}}`, -1},
		{"far past the bound", `{"Item":{"a":` + nest(4000) + `}}`, -1},
		{"not the fast path's", `{"TableName":"t\u0041","Item":{"a":` + nest(40) + `}}`, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fd Decoder
			var strict deepTarget
			if err := fd.Decode([]byte(tc.body), &strict); !errors.Is(err, attr.ErrNesting) {
				t.Fatalf("Decode: %v, want the nesting error", err)
			}
			var in deepTarget
			ok := fd.DecodeDeep([]byte(tc.body), &in)
			if ok != (tc.depth >= 0) {
				t.Fatalf("DecodeDeep: %v, want %v", ok, tc.depth >= 0)
			}
			if !ok {
				return
			}
			got := in.Item.Depth()
			for _, v := range in.Values {
				got = max(got, v.Depth())
			}
			for _, e := range in.Expected {
				got = max(got, e.Value.Depth())
			}
			if got != tc.depth {
				t.Errorf("deepest value read: %d, want %d", got, tc.depth)
			}
		})
	}
}
