package vector

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// logTable is a table space written as the table package writes one: each
// write stores the item and appends a change-log record in one transaction.
type logTable struct {
	t  *testing.T
	db *store.DB
}

func newLogTable(t *testing.T) *logTable {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Update(context.Background(), func(tx *store.Tx) error { return tx.CreateSpace("T") }); err != nil {
		t.Fatal(err)
	}
	return &logTable{t, db}
}

// write stores item under key (nil deletes it) at time now.
func (lt *logTable) write(key string, item attr.Item, now int64) {
	lt.t.Helper()
	err := lt.db.Update(context.Background(), func(tx *store.Tx) error {
		sp := tx.Space("T")
		rec := changelog.Record{Time: now, Key: []byte(key), Old: sp.Get([]byte(key))}
		if item == nil {
			if err := sp.Delete([]byte(key)); err != nil {
				return err
			}
		} else {
			rec.New = attr.AppendBinary(nil, item)
			if err := sp.Put([]byte(key), rec.New); err != nil {
				return err
			}
		}
		_, err := sp.AppendLog(changelog.Append(nil, rec))
		return err
	})
	if err != nil {
		lt.t.Fatal(err)
	}
}

func (lt *logTable) trim(upTo uint64) {
	lt.t.Helper()
	if err := lt.db.Update(context.Background(), func(tx *store.Tx) error { return tx.Space("T").TrimLog(upTo) }); err != nil {
		lt.t.Fatal(err)
	}
}

func vecItem(t *testing.T, tenant string, xs ...string) attr.Item {
	it := attr.Item{"v": list(t, xs...)}
	if tenant != "" {
		it["tenant"] = attr.String(tenant)
	}
	return it
}

func followDef() *Def {
	return &Def{Name: "emb", Attribute: "v", Dims: 2, Func: Euclidean, Hash: index.KeyAttr{Name: "tenant", Type: attr.TypeS}}
}

func keys(x *Index, tenant string) []string {
	var out []string
	for _, h := range x.Search(Query{Vector: []float32{0, 0}, K: 100, Partition: FilterValue(attr.String(tenant))}) {
		out = append(out, h.Key)
	}
	return out
}

func TestFollowerBuildsThenFollows(t *testing.T) {
	lt := newLogTable(t)
	lt.write("a", vecItem(t, "t1", "1", "0"), 1)
	lt.write("b", vecItem(t, "t1", "2", "0"), 2)
	lt.write("c", vecItem(t, "", "3", "0"), 3) // no HASH value: not indexed
	f := NewFollower(lt.db, "T", nil)
	if err := f.Sync([]*Def{followDef()}); err != nil {
		t.Fatal(err)
	}
	x := f.Index("emb")
	if got := keys(x, "t1"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("after build: %v", got)
	}
	lt.write("c", vecItem(t, "t1", "0.5", "0"), 4)           // now indexed
	lt.write("a", nil, 5)                                    // deleted
	lt.write("b", attr.Item{"tenant": attr.String("t1")}, 6) // vector removed
	lt.write("d", vecItem(t, "t2", "1", "1"), 7)
	if f.Applied(7) {
		t.Fatal("Applied(7) before CatchUp")
	}
	if err := f.CatchUp(100); err != nil {
		t.Fatal(err)
	}
	if got := keys(x, "t1"); !reflect.DeepEqual(got, []string{"c"}) {
		t.Fatalf("t1 after catch-up: %v", got)
	}
	if got := keys(x, "t2"); !reflect.DeepEqual(got, []string{"d"}) || !f.Applied(7) {
		t.Fatalf("t2 after catch-up: %v (applied %v)", got, f.Applied(7))
	}
}

func TestFollowerRebuildsAfterTrim(t *testing.T) {
	lt := newLogTable(t)
	f := NewFollower(lt.db, "T", nil)
	if err := f.Sync([]*Def{followDef()}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		lt.write(fmt.Sprint(i), vecItem(t, "t", fmt.Sprint(i), "0"), int64(i))
	}
	lt.trim(3) // records 1-3 gone before the follower saw them
	if err := f.CatchUp(100); err != nil {
		t.Fatal(err)
	}
	if got := keys(f.Index("emb"), "t"); !reflect.DeepEqual(got, []string{"0", "1", "2", "3", "4"}) {
		t.Fatalf("after rebuild: %v", got)
	}
	if floor, ok := f.Floor(); !ok || floor != 5 {
		t.Fatalf("Floor = %d, %v", floor, ok)
	}
}

func TestFollowerHoldsBackRecordsNotDue(t *testing.T) {
	lt := newLogTable(t)
	f := NewFollower(lt.db, "T", func(_ uint64, at int64) bool { return at <= 10 })
	if err := f.Sync([]*Def{followDef()}); err != nil {
		t.Fatal(err)
	}
	lt.write("a", vecItem(t, "t", "1", "0"), 10)
	lt.write("b", vecItem(t, "t", "2", "0"), 11)
	lt.write("c", vecItem(t, "t", "3", "0"), 9) // behind b: held back with it
	if err := f.CatchUp(100); err != nil {
		t.Fatal(err)
	}
	if got := keys(f.Index("emb"), "t"); !reflect.DeepEqual(got, []string{"a"}) || f.Applied(2) {
		t.Fatalf("with b not due: %v", got)
	}
}

// TestFollowerBuildHoldsBackRecordsNotDue: a Follower built after writes
// that are not due yet (a process started, or another front-end, within a
// lag) shows what a Follower kept since before them shows: the items as
// they were before the first record not due, the later records applied
// once due.
func TestFollowerBuildHoldsBackRecordsNotDue(t *testing.T) {
	lt := newLogTable(t)
	dueBy := int64(10)
	due := func(_ uint64, at int64) bool { return at <= dueBy }
	early := NewFollower(lt.db, "T", due)
	if err := early.Sync([]*Def{followDef()}); err != nil {
		t.Fatal(err)
	}
	lt.write("a", vecItem(t, "t", "1", "0"), 5)
	lt.write("c", vecItem(t, "t", "2", "0"), 6)
	lt.write("b", vecItem(t, "t", "3", "0"), 11) // not due: holds back the rest
	lt.write("a", vecItem(t, "t", "5", "0"), 12)
	lt.write("c", nil, 13)
	lt.write("d", vecItem(t, "t", "4", "0"), 9) // due, but behind b
	late := NewFollower(lt.db, "T", due)
	for _, step := range []struct {
		dueBy int64
		want  []string
	}{{10, []string{"a", "c"}}, {100, []string{"b", "d", "a"}}} {
		dueBy = step.dueBy
		for name, f := range map[string]*Follower{"kept since the start": early, "built late": late} {
			xs, err := f.Ready([]*Def{followDef()}, 50)
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(xs["emb"], "t"); !reflect.DeepEqual(got, step.want) {
				t.Errorf("due by %d, follower %s: %v, want %v", step.dueBy, name, got, step.want)
			}
		}
	}
}

func TestFollowerSyncDropsAndRebuilds(t *testing.T) {
	lt := newLogTable(t)
	lt.write("a", vecItem(t, "t", "1", "0"), 1)
	f := NewFollower(lt.db, "T", nil)
	d := followDef()
	if err := f.Sync([]*Def{d}); err != nil {
		t.Fatal(err)
	}
	first := f.Index("emb")
	if err := f.Sync([]*Def{d}); err != nil || f.Index("emb") != first {
		t.Fatalf("Sync with the same Def rebuilt the index (err %v)", err)
	}
	d2 := *d
	d2.Hash = index.KeyAttr{}
	if err := f.Sync([]*Def{&d2}); err != nil || f.Index("emb") == first {
		t.Fatalf("Sync with a changed Def kept the old index (err %v)", err)
	}
	if err := f.Sync(nil); err != nil || f.Index("emb") != nil {
		t.Fatalf("Sync(nil) kept the index (err %v)", err)
	}
	if _, ok := f.Floor(); ok {
		t.Fatal("Floor with no indexes")
	}
}

func TestFollowerNeed(t *testing.T) {
	lt := newLogTable(t)
	f := NewFollower(lt.db, "T", func(_ uint64, at int64) bool { return at <= 10 })
	if err := f.Sync([]*Def{followDef()}); err != nil {
		t.Fatal(err)
	}
	lt.write("a", vecItem(t, "t", "1", "0"), 10)
	if err := f.CatchUp(50); err != nil || f.Need() != 50 {
		t.Fatalf("all applied: Need %d (err %v), want the CatchUp's start", f.Need(), err)
	}
	lt.write("b", vecItem(t, "t", "2", "0"), 30)
	if err := f.CatchUp(60); err != nil || f.Need() != 30 {
		t.Fatalf("one held back: Need %d (err %v), want its commit time", f.Need(), err)
	}
}

// TestParseImageMatchesParse: reading a vector straight from an encoded
// item gives the bits Parse gives from the decoded item, and nothing where
// Parse refuses.
func TestParseImageMatchesParse(t *testing.T) {
	d := &Def{Attribute: "v", Dims: 3}
	for _, v := range []attr.Value{list(t, "1", "-0.1", "3.4028235E+38"), list(t, "0.333333333333", "1E-50", "7"), list(t, "1", "2"),
		list(t, "1", "2", "1E+39"), {T: attr.TypeL, L: []attr.Value{num(t, "1"), attr.String("2"), num(t, "3")}}, attr.String("x")} {
		want, perr := Parse(v, 3, nil)
		got, err := parseImage(attr.AppendBinary(nil, attr.Item{"v": v, "other": attr.String("o")}), d, nil)
		if err != nil || (perr != nil) != (got == nil) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v: parseImage %v (%v), Parse %v (%v)", v, got, err, want, perr)
		}
	}
	if got, err := parseImage(attr.AppendBinary(nil, attr.Item{"w": list(t, "1", "2", "3")}), d, nil); got != nil || err != nil {
		t.Errorf("no vector attribute: %v, %v", got, err)
	}
}

// TestFollowerReadyKeepsItsDefs: requests that read different table
// definitions (one front-end's catalog a change behind another's) call
// Ready at once, one with the index and one without; each gets exactly
// the indexes it asked for, caught up, never an index dropped under it
// by the other (a search then dereferenced a missing index).
func TestFollowerReadyKeepsItsDefs(t *testing.T) {
	lt := newLogTable(t)
	lt.write("a", vecItem(t, "t", "1", "0"), 1)
	f := NewFollower(lt.db, "T", nil)
	with, without := []*Def{followDef()}, []*Def(nil)
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for i := 0; i < 200 && err == nil; i++ {
				defs := with
				if (g+i)%2 == 1 {
					defs = without
				}
				xs, rerr := f.Ready(defs, 100)
				switch x := xs["emb"]; {
				case rerr != nil:
					err = rerr
				case len(xs) != len(defs):
					err = fmt.Errorf("Ready(%d defs) returned %d indexes", len(defs), len(xs))
				case defs != nil && !reflect.DeepEqual(keys(x, "t"), []string{"a"}):
					err = fmt.Errorf("Ready returned an index holding %v", keys(x, "t"))
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
