package store

import (
	"slices"
	"testing"
)

func TestCatalog(t *testing.T) { forEngines(t, testCatalog) }

func testCatalog(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	keys := []string{"us-east-1/Zebra", "eu-west-1/b", "us-east-1/Apple", "eu-west-1/a", "us-east-1/apple", "\x00first"}
	mustUpdate(t, db, func(tx *Tx) error {
		for _, k := range keys {
			if err := tx.CatalogPut([]byte(k), []byte("def:"+k)); err != nil {
				return err
			}
		}
		return tx.CatalogDelete([]byte("eu-west-1/b"))
	})

	tests := []struct {
		name  string
		from  []byte
		limit int
		want  []string
	}{
		{"all", nil, 0, []string{"\x00first", "eu-west-1/a", "us-east-1/Apple", "us-east-1/Zebra", "us-east-1/apple"}},
		{"from region", []byte("us-east-1/"), 0, []string{"us-east-1/Apple", "us-east-1/Zebra", "us-east-1/apple"}},
		{"from exact key", []byte("us-east-1/Zebra"), 0, []string{"us-east-1/Zebra", "us-east-1/apple"}},
		{"past end", []byte("zz"), 0, nil},
		{"limit", nil, 2, []string{"\x00first", "eu-west-1/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			mustView(t, db, func(tx *Tx) error {
				return tx.CatalogAscend(tt.from, func(k, v []byte) bool {
					if string(v) != "def:"+string(k) {
						t.Errorf("value of %q = %q", k, v)
					}
					got = append(got, string(k))
					return tt.limit == 0 || len(got) < tt.limit
				})
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("CatalogAscend(%q) = %q, want %q", tt.from, got, tt.want)
			}
		})
	}

	mustView(t, db, func(tx *Tx) error {
		for _, tc := range []struct{ key, want string }{
			{"eu-west-1/a", "def:eu-west-1/a"},
			{"eu-west-1/b", ""},
			{"nope", ""},
		} {
			if got := tx.CatalogGet([]byte(tc.key)); string(got) != tc.want {
				t.Errorf("CatalogGet(%q) = %q, want %q", tc.key, got, tc.want)
			}
		}
		return nil
	})
}
