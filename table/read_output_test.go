package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// TestReadOutputItemList checks that ItemList decodes rendered items as
// the items they were rendered from (api tests how they are written).
func TestReadOutputItemList(t *testing.T) {
	items := []attr.Item{
		{"pk": attr.String("a<&>\u2028"), "n": {T: attr.TypeN, S: "1.5"}, "m": attr.Map(map[string]attr.Value{"z": attr.Null(), "a": attr.Bool(true)})},
		{"pk": attr.String("b")},
	}
	var rawItems attr.ItemsJSON
	for i, it := range items {
		if i > 0 {
			rawItems = append(rawItems, ',')
		}
		var err error
		if rawItems, err = attr.AppendBinaryJSON(rawItems, attr.AppendBinary(nil, it)); err != nil {
			t.Fatal(err)
		}
	}
	empty := []attr.Item{}
	var nilItems []attr.Item
	for _, tc := range []struct {
		name string
		out  ddb.ReadOutput
		want *[]attr.Item
	}{
		{"items", ddb.ReadOutput{Items: &items, Count: 2}, &items},
		{"rendered items", ddb.ReadOutput{RenderedItems: rawItems, Count: 2}, &items},
		{"rendered empty", ddb.ReadOutput{RenderedItems: attr.ItemsJSON{}, ScannedCount: 1}, &empty},
		{"nil slice", ddb.ReadOutput{Items: &nilItems}, &nilItems},
		{"count only", ddb.ReadOutput{Count: 4}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gotList, err := tc.out.ItemList()
			var wantList []attr.Item
			if tc.want != nil {
				wantList = *tc.want
			}
			if err != nil || len(gotList) != len(wantList) || (gotList == nil) != (wantList == nil) {
				t.Fatalf("ItemList: got %v, %v; want %v", gotList, err, wantList)
			}
			for i := range gotList {
				if !attr.Equal(attr.Map(gotList[i]), attr.Map(wantList[i])) {
					t.Errorf("ItemList[%d]: got %v, want %v", i, gotList[i], wantList[i])
				}
			}
		})
	}
}
