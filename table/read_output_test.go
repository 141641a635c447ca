package table

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// plainReadOutput has ReadOutput's fields without its methods: what
// encoding/json writes for it is the reference AppendJSON must match.
type plainReadOutput struct {
	Items            *[]attr.Item `json:",omitempty"`
	Count            int
	ScannedCount     int
	LastEvaluatedKey attr.Item         `json:",omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:",omitempty"`
}

func TestReadOutputJSON(t *testing.T) {
	items := []attr.Item{
		{"pk": attr.String("a<&>\u2028"), "n": {T: attr.TypeN, S: "1.5"}, "m": attr.Map(map[string]attr.Value{"z": attr.Null(), "a": attr.Bool(true)})},
		{"pk": attr.String("b")},
	}
	var rawItems []byte
	for i, it := range items {
		if i > 0 {
			rawItems = append(rawItems, ',')
		}
		var err error
		if rawItems, err = attr.AppendBinaryJSON(rawItems, attr.AppendBinary(nil, it)); err != nil {
			t.Fatal(err)
		}
	}
	cc := &ConsumedCapacity{TableName: "T", CapacityUnits: 2.5, Table: &Capacity{CapacityUnits: 2.5}}
	empty := []attr.Item{}
	var nilItems []attr.Item
	lek := attr.Item{"pk": attr.String("k")}
	for _, tc := range []struct {
		name string
		out  ReadOutput
		want plainReadOutput
	}{
		{"items", ReadOutput{Items: &items, Count: 2, ScannedCount: 3, LastEvaluatedKey: lek, ConsumedCapacity: cc},
			plainReadOutput{Items: &items, Count: 2, ScannedCount: 3, LastEvaluatedKey: lek, ConsumedCapacity: cc}},
		{"raw items", ReadOutput{itemsJSON: rawItems, Count: 2, ScannedCount: 3, LastEvaluatedKey: lek},
			plainReadOutput{Items: &items, Count: 2, ScannedCount: 3, LastEvaluatedKey: lek}},
		{"raw empty", ReadOutput{itemsJSON: []byte{}, ScannedCount: 1},
			plainReadOutput{Items: &empty, ScannedCount: 1}},
		{"nil slice", ReadOutput{Items: &nilItems}, plainReadOutput{Items: &nilItems}},
		{"count only", ReadOutput{Count: 4, LastEvaluatedKey: attr.Item{}}, plainReadOutput{Count: 4, LastEvaluatedKey: attr.Item{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.want); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			got, err := tc.out.AppendJSON(nil)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("AppendJSON: got %s, %v\nwant %s", got, err, want)
			}
			gotList, err := tc.out.ItemList()
			var wantList []attr.Item
			if tc.want.Items != nil {
				wantList = *tc.want.Items
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
