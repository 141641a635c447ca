package codec

import (
	"bytes"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// plainReadOutput has ReadOutput's wire members: what encoding/json writes
// for it is the reference the Encoder must match.
type plainReadOutput struct {
	Items            *[]attr.Item `json:",omitempty"`
	Count            int
	ScannedCount     int
	LastEvaluatedKey attr.Item             `json:",omitempty"`
	ConsumedCapacity *ddb.ConsumedCapacity `json:",omitempty"`
}

// plainGetItemOutput is GetItemOutput's wire members.
type plainGetItemOutput struct {
	Item             attr.Item             `json:",omitzero"` // {} for a projection that left nothing
	ConsumedCapacity *ddb.ConsumedCapacity `json:",omitempty"`
}

// renderItems renders items as table's reads do: transcoded from their
// storage encoding, comma-separated.
func renderItems(t *testing.T, items ...attr.Item) attr.ItemsJSON {
	t.Helper()
	raw := attr.ItemsJSON{}
	for i, it := range items {
		if i > 0 {
			raw = append(raw, ',')
		}
		var err error
		if raw, err = attr.AppendBinaryJSON(raw, attr.AppendBinary(nil, it)); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

// encodeBoth encodes v through a pointer and as a value: the Encoder plans
// both, and must write the same.
func encodeBoth[T any](t *testing.T, v T, want []byte) {
	t.Helper()
	for name, x := range map[string]any{"pointer": &v, "value": v} {
		got, err := new(Encoder).AppendValue(nil, x)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: got %s, %v\nwant %s", name, got, err, want)
		}
	}
}

func TestEncodeReadOutput(t *testing.T) {
	items := []attr.Item{
		{"pk": attr.String("a<&>\u2028"), "n": {T: attr.TypeN, S: "1.5"}, "m": attr.Map(map[string]attr.Value{"z": attr.Null(), "a": attr.Bool(true)})},
		{"pk": attr.String("b")},
	}
	cc := &ddb.ConsumedCapacity{TableName: "T", CapacityUnits: 2.5, Table: &ddb.Capacity{CapacityUnits: 2.5}}
	empty := []attr.Item{}
	var nilItems []attr.Item
	lek := attr.Item{"pk": attr.String("k")}
	for _, tc := range []struct {
		name string
		out  ddb.ReadOutput
		want plainReadOutput
	}{
		{"items", ddb.ReadOutput{Items: &items, Count: 2, ScannedCount: 3, LastEvaluatedKey: lek, ConsumedCapacity: cc},
			plainReadOutput{Items: &items, Count: 2, ScannedCount: 3, LastEvaluatedKey: lek, ConsumedCapacity: cc}},
		{"rendered items", ddb.ReadOutput{RenderedItems: renderItems(t, items...), Count: 2, ScannedCount: 3, LastEvaluatedKey: lek, ConsumedCapacity: cc},
			plainReadOutput{Items: &items, Count: 2, ScannedCount: 3, LastEvaluatedKey: lek, ConsumedCapacity: cc}},
		{"rendered empty", ddb.ReadOutput{RenderedItems: renderItems(t), ScannedCount: 1},
			plainReadOutput{Items: &empty, ScannedCount: 1}},
		{"nil slice", ddb.ReadOutput{Items: &nilItems}, plainReadOutput{Items: &nilItems}},
		{"count only", ddb.ReadOutput{Count: 4, LastEvaluatedKey: attr.Item{}}, plainReadOutput{Count: 4, LastEvaluatedKey: attr.Item{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			encodeBoth(t, tc.out, stdJSON(t, tc.want))
		})
	}
}

func TestEncodeGetItemOutput(t *testing.T) {
	item := attr.Item{
		"pk": attr.String("a<&>\u2028"), "n": {T: attr.TypeN, S: "1.5"}, "b": attr.Binary([]byte{0, 1, 2}),
		"m": attr.Map(map[string]attr.Value{"z": attr.Null(), "a": attr.Bool(true)}),
		"l": attr.List([]attr.Value{attr.String("x"), attr.StringSet("q", "p")}),
	}
	raw := attr.ItemJSON(renderItems(t, item))
	cc := &ddb.ConsumedCapacity{TableName: "T", CapacityUnits: 0.5, Table: &ddb.Capacity{CapacityUnits: 0.5}}
	for _, tc := range []struct {
		name string
		out  ddb.GetItemOutput
		want plainGetItemOutput
	}{
		{"item", ddb.GetItemOutput{Item: item, ConsumedCapacity: cc}, plainGetItemOutput{Item: item, ConsumedCapacity: cc}},
		{"rendered item", ddb.GetItemOutput{RenderedItem: raw}, plainGetItemOutput{Item: item}},
		{"rendered item and capacity", ddb.GetItemOutput{RenderedItem: raw, ConsumedCapacity: cc}, plainGetItemOutput{Item: item, ConsumedCapacity: cc}},
		{"absent", ddb.GetItemOutput{}, plainGetItemOutput{}},
		{"absent with capacity", ddb.GetItemOutput{ConsumedCapacity: cc}, plainGetItemOutput{ConsumedCapacity: cc}},
		{"empty projection", ddb.GetItemOutput{Item: attr.Item{}}, plainGetItemOutput{Item: attr.Item{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			encodeBoth(t, tc.out, stdJSON(t, tc.want))
		})
	}
}
