package table

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// plainGetItemOutput has GetItemOutput's fields without its methods: what
// encoding/json writes for it is the reference AppendJSON must match.
type plainGetItemOutput struct {
	Item             attr.Item         `json:",omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:",omitempty"`
}

// wantJSON is what encoding/json writes for v without HTML escaping.
func wantJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// testItem has every type and characters that HTML escaping would change.
func testItem() attr.Item {
	return attr.Item{
		"pk": attr.String("a<&>\u2028"), "n": {T: attr.TypeN, S: "1.5"}, "b": attr.Binary([]byte{0, 1, 2}),
		"m": attr.Map(map[string]attr.Value{"z": attr.Null(), "a": attr.Bool(true)}),
		"l": attr.List([]attr.Value{attr.String("x"), attr.StringSet("q", "p")}),
	}
}

func TestGetItemOutputJSON(t *testing.T) {
	item := testItem()
	raw, err := attr.AppendBinaryJSON(nil, attr.AppendBinary(nil, item))
	if err != nil {
		t.Fatal(err)
	}
	cc := &ConsumedCapacity{TableName: "T", CapacityUnits: 0.5, Table: &Capacity{CapacityUnits: 0.5}}
	for _, tc := range []struct {
		name string
		out  GetItemOutput
		want plainGetItemOutput
	}{
		{"item", GetItemOutput{Item: item, ConsumedCapacity: cc}, plainGetItemOutput{Item: item, ConsumedCapacity: cc}},
		{"raw item", GetItemOutput{itemJSON: raw}, plainGetItemOutput{Item: item}},
		{"raw item and capacity", GetItemOutput{itemJSON: raw, ConsumedCapacity: cc}, plainGetItemOutput{Item: item, ConsumedCapacity: cc}},
		{"absent", GetItemOutput{}, plainGetItemOutput{}},
		{"absent with capacity", GetItemOutput{ConsumedCapacity: cc}, plainGetItemOutput{ConsumedCapacity: cc}},
		{"empty projection", GetItemOutput{Item: attr.Item{}}, plainGetItemOutput{Item: attr.Item{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := wantJSON(t, tc.want)
			got, err := tc.out.AppendJSON(nil)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("AppendJSON: got %s, %v\nwant %s", got, err, want)
			}
			if got, err := tc.out.MarshalJSON(); err != nil || !bytes.Equal(got, want) {
				t.Errorf("MarshalJSON: got %s, %v\nwant %s", got, err, want)
			}
			gotItem, err := tc.out.ReadItem()
			if err != nil || len(gotItem) != len(tc.want.Item) || !attr.Equal(attr.Map(gotItem), attr.Map(tc.want.Item)) {
				t.Errorf("ReadItem: got %v, %v; want %v", gotItem, err, tc.want.Item)
			}
		})
	}
}

// TestGetItemRawMatchesDecoded checks that GetItem's response written from
// the stored bytes equals the one written from the decoded item (which a
// projection naming every attribute takes), capacity included.
func TestGetItemRawMatchesDecoded(t *testing.T) {
	s, _ := txService(t)
	ctx := context.Background()
	item := testItem()
	if _, err := s.PutItem(ctx, "r", &PutItemInput{TableName: "A", Item: item}); err != nil {
		t.Fatal(err)
	}
	all := "pk, n, b, m, l"
	for _, tc := range []struct {
		name       string
		key        attr.Item
		consistent *bool
		want       attr.Item
	}{
		{"strong", attr.Item{"pk": item["pk"]}, ptr(true), item},
		{"eventual", attr.Item{"pk": item["pk"]}, nil, item},
		{"absent", keyOfPK("nope"), ptr(true), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &GetItemInput{TableName: "A", Key: tc.key, ConsistentRead: tc.consistent, ReturnConsumedCapacity: "TOTAL"}
			rawOut, err := s.GetItem(ctx, "r", in)
			if err != nil {
				t.Fatal(err)
			}
			projected := *in
			projected.ProjectionExpression = &all
			decodedOut, err := s.GetItem(ctx, "r", &projected)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rawOut.ConsumedCapacity, decodedOut.ConsumedCapacity) {
				t.Errorf("ConsumedCapacity: got %+v, want %+v", rawOut.ConsumedCapacity, decodedOut.ConsumedCapacity)
			}
			want := wantJSON(t, plainGetItemOutput{Item: tc.want, ConsumedCapacity: decodedOut.ConsumedCapacity})
			for name, out := range map[string]*GetItemOutput{"raw": rawOut, "decoded": decodedOut} {
				if got, err := out.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s AppendJSON: got %s, %v\nwant %s", name, got, err, want)
				}
			}
		})
	}
}
