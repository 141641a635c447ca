package expressions

import (
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// TestAddKeepsSetsSorted: ADD to a set stores the union in attr's set order
// (the order every decoded set has), not old members then new ones.
// attr.Equal ignores member order, so TestUpdateApply cannot see this.
func TestAddKeepsSetsSorted(t *testing.T) {
	tests := []struct {
		name     string
		old, add attr.Value
		want     attr.Value
	}{
		{"SS", attr.StringSet("b", "d"), attr.StringSet("a", "c", "e"), attr.StringSet("a", "b", "c", "d", "e")},
		{"NS", ns(t, "9", "100"), ns(t, "10", "-1", "1000"), attr.Value{T: attr.TypeNS, SS: []string{"-1", "9", "10", "100", "1000"}}},
		{"BS", attr.BinarySet([]byte{2}, []byte{4}), attr.BinarySet([]byte{1, 9}, []byte{3}), attr.BinarySet([]byte{1, 9}, []byte{2}, []byte{3}, []byte{4})},
	}
	for _, tt := range tests {
		src := "ADD s :v"
		c, err := Compile(Input{UpdateExpression: &src, Values: map[string]attr.Value{":v": tt.add}})
		if err != nil {
			t.Fatalf("%s: Compile: %v", tt.name, err)
		}
		got, err := c.Update.Apply(attr.Item{"s": tt.old})
		if err != nil {
			t.Fatalf("%s: Apply: %v", tt.name, err)
		}
		if !reflect.DeepEqual(got["s"], tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got["s"], tt.want)
		}
	}
}
