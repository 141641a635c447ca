package partiql

import (
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func TestTarget(t *testing.T) {
	c := attr.String("c")
	tests := []struct {
		src       string
		params    []attr.Value
		wantTable string
		wantItem  attr.Item
	}{
		{`INSERT INTO "T" VALUE {'pk': 'c', 'n': 1}`, nil, "T", attr.Item{"pk": c, "n": attr.Value{T: attr.TypeN, S: "1"}}},
		{`INSERT INTO T VALUE {'pk': ?}`, []attr.Value{c}, "T", attr.Item{"pk": c}},
		{`INSERT INTO T VALUE ?`, []attr.Value{attr.Map(map[string]attr.Value{"pk": c})}, "T", attr.Item{"pk": c}},
		{`UPDATE T SET n = 1 WHERE pk = 'c' AND sk = ?`, []attr.Value{attr.String("s")}, "T", attr.Item{"pk": c, "sk": attr.String("s")}},
		{`DELETE FROM T WHERE 'c' = pk`, nil, "T", attr.Item{"pk": c}},
		{`SELECT * FROM "T"."byX" WHERE pk = 'c' OR pk = 'd'`, nil, "T", attr.Item{}},
		{`SELECT * FROM T WHERE pk IN ['c'] AND n > 2`, nil, "T", attr.Item{"pk": c}},
		{`EXISTS(SELECT * FROM T WHERE pk = 'c')`, nil, "T", attr.Item{"pk": c}},
		{`SELECT * FROM T`, nil, "T", attr.Item{}},
		{`UPDATE T SET n = 1 WHERE pk = ?`, nil, "T", nil},
		{`SELEKT`, nil, "", nil},
	}
	for _, tt := range tests {
		table, item := Target(tt.src, tt.params)
		if table != tt.wantTable || !reflect.DeepEqual(item, tt.wantItem) {
			t.Errorf("Target(%q): got %q %v, want %q %v", tt.src, table, item, tt.wantTable, tt.wantItem)
		}
	}
}
