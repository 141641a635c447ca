package store

import (
	"errors"
	"testing"
)

func TestStats(t *testing.T) { forEngines(t, testStats) }

func testStats(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	tests := []struct {
		name                 string
		items, bytes         int64
		wantItems, wantBytes int64
	}{
		{"first add", 1, 100, 1, 100},
		{"second add", 2, 50, 3, 150},
		{"negative", -1, -100, 2, 50},
		{"zero", 0, 0, 2, 50},
		{"below zero is kept", -5, -60, -3, -10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").AddStats(tt.items, tt.bytes) })
			mustView(t, db, func(tx *Tx) error {
				items, bytes := tx.Space("t").Stats()
				if items != tt.wantItems || bytes != tt.wantBytes {
					t.Errorf("Stats() = (%d, %d), want (%d, %d)", items, bytes, tt.wantItems, tt.wantBytes)
				}
				return nil
			})
		})
	}

	t.Run("rolled back with failing fn", func(t *testing.T) {
		boom := errors.New("boom")
		err := db.Update(t.Context(), func(tx *Tx) error {
			if err := tx.Space("t").AddStats(1000, 1000); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Update: got %v, want %v", err, boom)
		}
		mustView(t, db, func(tx *Tx) error {
			if items, bytes := tx.Space("t").Stats(); items != -3 || bytes != -10 {
				t.Errorf("Stats() = (%d, %d), want (-3, -10)", items, bytes)
			}
			return nil
		})
	})
}

func TestMeta(t *testing.T) { forEngines(t, testMeta) }

func testMeta(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if err := sp.AddStats(7, 7); err != nil {
			return err
		}
		for _, kv := range [][2]string{{"watermark", "42"}, {"", "empty-name"}, {"stats", "user"}, {"watermark", "43"}} {
			if err := sp.PutMeta(kv[0], []byte(kv[1])); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		name string
		want string // "" = absent
	}{
		{"watermark", "43"},
		{"", "empty-name"},
		{"stats", "user"},
		{"missing", ""},
	}
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		for _, tt := range tests {
			got := sp.GetMeta(tt.name)
			if string(got) != tt.want || (got == nil) != (tt.want == "") {
				t.Errorf("GetMeta(%q) = %q, want %q", tt.name, got, tt.want)
			}
		}
		// User metadata named like the counters must not disturb them.
		if items, bytes := sp.Stats(); items != 7 || bytes != 7 {
			t.Errorf("Stats() = (%d, %d), want (7, 7)", items, bytes)
		}
		return nil
	})
}

// TestGetMetaMatchesPlain: in a write transaction over the memory engine,
// GetMeta (its key built in the writer's scratch buffer) answers what its
// plain twin answers, for names of every length around the buffer's
// reuse, present, absent, empty and just written in the same
// transaction, and the scratch key of one read does not disturb the next.
func TestGetMetaMatchesPlain(t *testing.T) {
	db := openMem(t)
	withSpace(t, db, "t")
	names := []string{"", "a", "gsi-wm/g", "gsi-wm/a-much-longer-index-name-than-the-others", "log", "missing", "gsi-wm/"}
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		for i, n := range names[:4] {
			if err := sp.PutMeta(n, []byte{byte(i), 'v'}); err != nil {
				return err
			}
		}
		return sp.PutMeta("log", []byte{})
	})
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if err := sp.PutMeta("written-here", []byte("x")); err != nil {
			return err
		}
		if _, ok := sp.metaB().(*memBucket); !ok {
			t.Fatal("the memory engine's meta bucket is not a memBucket: the fast path is not tested")
		}
		for _, n := range append(names, "written-here", names[3], names[1]) {
			got, want := sp.GetMeta(n), sp.getMetaPlain(n)
			if string(got) != string(want) || (got == nil) != (want == nil) {
				t.Errorf("GetMeta(%q) = %q (nil %v), plain %q (nil %v)", n, got, got == nil, want, want == nil)
			}
		}
		return nil
	})
}
