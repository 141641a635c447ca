package store

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSpaceCRUD(t *testing.T) { forEngines(t, testSpaceCRUD) }

func testSpaceCRUD(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t1")

	type op struct {
		put, del string // key to put (value "v-"+key) or delete
	}
	tests := []struct {
		name string
		ops  []op
		key  string
		want []byte // nil = absent
	}{
		{name: "absent", key: "a", want: nil},
		{name: "put", ops: []op{{put: "a"}}, key: "a", want: []byte("v-a")},
		{name: "overwrite", ops: []op{{put: "a"}, {put: "a"}}, key: "a", want: []byte("v-a")},
		{name: "delete", ops: []op{{put: "b"}, {del: "b"}}, key: "b", want: nil},
		{name: "delete absent", ops: []op{{del: "zz"}}, key: "zz", want: nil},
		{name: "binary key", ops: []op{{put: "\x00\xff"}}, key: "\x00\xff", want: []byte("v-\x00\xff")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustUpdate(t, db, func(tx *Tx) error {
				s := tx.Space("t1")
				for _, o := range tt.ops {
					if o.put != "" {
						if err := s.Put([]byte(o.put), []byte("v-"+o.put)); err != nil {
							return err
						}
					}
					if o.del != "" {
						if err := s.Delete([]byte(o.del)); err != nil {
							return err
						}
					}
				}
				// Read-your-writes inside the transaction.
				if got := s.Get([]byte(tt.key)); !bytes.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
					t.Errorf("in tx Get(%q) = %q, want %q", tt.key, got, tt.want)
				}
				return nil
			})
			mustView(t, db, func(tx *Tx) error {
				if got := tx.Space("t1").Get([]byte(tt.key)); !bytes.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
					t.Errorf("after commit Get(%q) = %q, want %q", tt.key, got, tt.want)
				}
				return nil
			})
		})
	}
}

func TestPutCopiesBuffers(t *testing.T) { forEngines(t, testPutCopiesBuffers) }

func testPutCopiesBuffers(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	mustUpdate(t, db, func(tx *Tx) error {
		s := tx.Space("t")
		buf := []byte("k1")
		val := []byte("v1")
		if err := s.Put(buf, val); err != nil {
			return err
		}
		// Reuse both buffers, as a caller building keys in place would.
		copy(buf, "k2")
		copy(val, "v2")
		return s.Put(buf, val)
	})
	mustView(t, db, func(tx *Tx) error {
		s := tx.Space("t")
		for _, k := range []string{"k1", "k2"} {
			if got, want := string(s.Get([]byte(k))), "v"+k[1:]; got != want {
				t.Errorf("Get(%q) = %q, want %q", k, got, want)
			}
		}
		return nil
	})
}

func TestEmptyValueIsPresent(t *testing.T) { forEngines(t, testEmptyValueIsPresent) }

func testEmptyValueIsPresent(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	mustUpdate(t, db, func(tx *Tx) error {
		s := tx.Space("t")
		if err := s.Put([]byte("k"), nil); err != nil {
			return err
		}
		if got := s.Get([]byte("k")); got == nil || len(got) != 0 {
			t.Errorf("in tx Get = %v, want non-nil empty", got)
		}
		return nil
	})
	mustView(t, db, func(tx *Tx) error {
		if got := tx.Space("t").Get([]byte("k")); got == nil || len(got) != 0 {
			t.Errorf("after commit Get = %v, want non-nil empty", got)
		}
		return nil
	})
}

func TestWriteErrors(t *testing.T) { forEngines(t, testWriteErrors) }

func testWriteErrors(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	tests := []struct {
		name string
		fn   func(s *Space) error
		want error
	}{
		{"empty key", func(s *Space) error { return s.Put(nil, []byte("v")) }, ErrKeyRequired},
		{"key too large", func(s *Space) error { return s.Put(make([]byte, MaxKeySize+1), nil) }, ErrKeyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.Update(t.Context(), func(tx *Tx) error { return tt.fn(tx.Space("t")) })
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}

	t.Run("read-only", func(t *testing.T) {
		err := db.View(func(tx *Tx) error {
			s := tx.Space("t")
			for name, err := range map[string]error{
				"Put":           s.Put([]byte("k"), nil),
				"Delete":        s.Delete([]byte("k")),
				"AddStats":      s.AddStats(1, 1),
				"PutMeta":       s.PutMeta("m", nil),
				"TrimLog":       s.TrimLog(1),
				"CatalogPut":    tx.CatalogPut([]byte("k"), nil),
				"CatalogDelete": tx.CatalogDelete([]byte("k")),
				"CreateSpace":   tx.CreateSpace("x"),
				"DropSpace":     tx.DropSpace("t"),
			} {
				if !errors.Is(err, ErrReadOnly) {
					t.Errorf("%s in View: got %v, want %v", name, err, ErrReadOnly)
				}
			}
			if _, err := s.AppendLog(nil); !errors.Is(err, ErrReadOnly) {
				t.Errorf("AppendLog in View: got %v, want %v", err, ErrReadOnly)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("tx used after fn returned", func(t *testing.T) {
		var kept *Space
		mustUpdate(t, db, func(tx *Tx) error { kept = tx.Space("t"); return nil })
		if err := kept.Put([]byte("k"), nil); !errors.Is(err, ErrTxClosed) {
			t.Errorf("Put: got %v, want %v", err, ErrTxClosed)
		}
		if got := kept.Get([]byte("k")); got != nil {
			t.Errorf("Get = %q, want nil", got)
		}
		if err := kept.Ascend(nil, nil, func(k, v []byte) bool { return true }); !errors.Is(err, ErrTxClosed) {
			t.Errorf("Ascend: got %v, want %v", err, ErrTxClosed)
		}
	})
}

func TestAscendDescend(t *testing.T) { forEngines(t, testAscendDescend) }

func testAscendDescend(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t", "a", "b", "ba", "bb", "bz", "c", "d")
	withSpace(t, db, "empty")

	// b\xff is a prefix range's typical exclusive end for prefix "b".
	tests := []struct {
		name     string
		space    string
		from, to []byte
		limit    int // stop after this many (0 = all)
		asc      []string
		desc     []string
	}{
		{name: "all", space: "t", asc: keyList("a b ba bb bz c d"), desc: keyList("d c bz bb ba b a")},
		{name: "from only", space: "t", from: bk("bb"), asc: keyList("bb bz c d"), desc: keyList("d c bz bb")},
		{name: "to only", space: "t", to: bk("bb"), asc: keyList("a b ba"), desc: keyList("ba b a")},
		{name: "from between keys", space: "t", from: bk("bc"), to: bk("cz"), asc: keyList("bz c"), desc: keyList("c bz")},
		{name: "prefix b", space: "t", from: bk("b"), to: bk("b\xff"), asc: keyList("b ba bb bz"), desc: keyList("bz bb ba b")},
		{name: "prefix b (after b)", space: "t", from: bk("b\x00"), to: bk("c"), asc: keyList("ba bb bz"), desc: keyList("bz bb ba")},
		{name: "to is exclusive", space: "t", from: bk("a"), to: bk("c"), asc: keyList("a b ba bb bz"), desc: keyList("bz bb ba b a")},
		{name: "to past end", space: "t", from: bk("c"), to: bk("zzz"), asc: keyList("c d"), desc: keyList("d c")},
		{name: "from past end", space: "t", from: bk("e"), asc: nil, desc: nil},
		{name: "to before start", space: "t", to: bk("0"), asc: nil, desc: nil},
		{name: "to equals first key", space: "t", to: bk("a"), asc: nil, desc: nil},
		{name: "empty range", space: "t", from: bk("c"), to: bk("c"), asc: nil, desc: nil},
		{name: "inverted range", space: "t", from: bk("d"), to: bk("a"), asc: nil, desc: nil},
		{name: "single key", space: "t", from: bk("c"), to: bk("c\x00"), asc: keyList("c"), desc: keyList("c")},
		{name: "empty bounds are not nil", space: "t", from: []byte{}, to: nil, asc: keyList("a b ba bb bz c d"), desc: keyList("d c bz bb ba b a")},
		{name: "limit", space: "t", limit: 2, asc: keyList("a b"), desc: keyList("d c")},
		{name: "empty space", space: "empty", asc: nil, desc: nil},
		{name: "empty space bounded", space: "empty", from: bk("a"), to: bk("z"), asc: nil, desc: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustView(t, db, func(tx *Tx) error {
				sp := tx.Space(tt.space)
				collect := func(iter func(from, to []byte, fn func(k, v []byte) bool) error) []string {
					var got []string
					err := iter(tt.from, tt.to, func(k, v []byte) bool {
						if !bytes.Equal(k, v) {
							t.Errorf("key %q has value %q", k, v)
						}
						got = append(got, string(k))
						return tt.limit == 0 || len(got) < tt.limit
					})
					if err != nil {
						t.Errorf("iterate: %v", err)
					}
					return got
				}
				if got := collect(sp.Ascend); !slices.Equal(got, tt.asc) {
					t.Errorf("Ascend(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.asc)
				}
				if got := collect(sp.Descend); !slices.Equal(got, tt.desc) {
					t.Errorf("Descend(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.desc)
				}
				return nil
			})
		})
	}
}

// keyList splits a space-separated list of keys.
func keyList(keys string) []string { return strings.Fields(keys) }

// bk is shorthand for []byte(k).
func bk(k string) []byte { return []byte(k) }

func TestDropSpace(t *testing.T) { forEngines(t, testDropSpace) }

func testDropSpace(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t", "a", "b")
	withSpace(t, db, "t/idx", "x")
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if _, err := sp.AppendLog([]byte("rec")); err != nil {
			return err
		}
		if err := sp.AddStats(2, 10); err != nil {
			return err
		}
		return sp.PutMeta("w", []byte("1"))
	})

	tests := []struct {
		name string
		fn   func(tx *Tx) error
		want error
	}{
		{"create existing", func(tx *Tx) error { return tx.CreateSpace("t") }, ErrSpaceExists},
		{"create empty id", func(tx *Tx) error { return tx.CreateSpace("") }, ErrSpaceIDRequired},
		{"drop absent", func(tx *Tx) error { return tx.DropSpace("nope") }, nil},
		{"drop", func(tx *Tx) error { return tx.DropSpace("t") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.Update(t.Context(), tt.fn); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}

	mustView(t, db, func(tx *Tx) error {
		if sp := tx.Space("t"); sp != nil {
			t.Errorf("Space(t) after drop = %v, want nil", sp)
		}
		if tx.Space("t/idx") == nil {
			t.Errorf("Space(t/idx) dropped with t, want kept")
		}
		var ids []string
		_ = tx.SpaceIDs(func(id string) bool { ids = append(ids, id); return true })
		if want := []string{"t/idx"}; !slices.Equal(ids, want) {
			t.Errorf("SpaceIDs = %q, want %q", ids, want)
		}
		return nil
	})

	// Re-creating a dropped space starts from nothing: data, log, meta, stats.
	withSpace(t, db, "t")
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		n := 0
		_ = sp.Ascend(nil, nil, func(k, v []byte) bool { n++; return true })
		items, bytes := sp.Stats()
		if n != 0 || items != 0 || bytes != 0 || sp.LastLogSeq() != 0 || sp.GetMeta("w") != nil {
			t.Errorf("recreated space: keys=%d stats=(%d,%d) lastSeq=%d meta=%q, want all empty",
				n, items, bytes, sp.LastLogSeq(), sp.GetMeta("w"))
		}
		return nil
	})
}
