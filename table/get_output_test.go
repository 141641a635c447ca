package table

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// testItem has every type and characters that HTML escaping would change.
func testItem() attr.Item {
	return attr.Item{
		"pk": attr.String("a<&>\u2028"), "n": {T: attr.TypeN, S: "1.5"}, "b": attr.Binary([]byte{0, 1, 2}),
		"m": attr.Map(map[string]attr.Value{"z": attr.Null(), "a": attr.Bool(true)}),
		"l": attr.List([]attr.Value{attr.String("x"), attr.StringSet("q", "p")}),
	}
}

func TestGetItemOutputReadItem(t *testing.T) {
	item := testItem()
	raw, err := attr.AppendBinaryJSON(nil, attr.AppendBinary(nil, item))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		out  ddb.GetItemOutput
		want attr.Item
	}{
		{"item", ddb.GetItemOutput{Item: item}, item},
		{"rendered item", ddb.GetItemOutput{RenderedItem: raw}, item},
		{"absent", ddb.GetItemOutput{}, nil},
		{"empty projection", ddb.GetItemOutput{Item: attr.Item{}}, attr.Item{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.out.ReadItem()
			if err != nil || len(got) != len(tc.want) || (got == nil) != (tc.want == nil) || !attr.Equal(attr.Map(got), attr.Map(tc.want)) {
				t.Errorf("ReadItem: got %v, %v; want %v", got, err, tc.want)
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
	if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: item}); err != nil {
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
			in := &ddb.GetItemInput{TableName: "A", Key: tc.key, ConsistentRead: tc.consistent, ReturnConsumedCapacity: "TOTAL"}
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
			// The rendered item must be the bytes the decoded one renders to.
			var want []byte
			if len(tc.want) > 0 {
				want = attr.AppendItemJSON(nil, decodedOut.Item)
			}
			if got := rawOut.RenderedItem; rawOut.Item != nil || !bytes.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("RenderedItem: got %s (Item %v)\nwant %s", got, rawOut.Item, want)
			}
			if got, err := rawOut.ReadItem(); err != nil || !attr.Equal(attr.Map(got), attr.Map(tc.want)) {
				t.Errorf("ReadItem: got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
