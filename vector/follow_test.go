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

// ready is f.Ready(defs, seq), failing the test on an error.
func ready(t *testing.T, f *Follower, seq uint64, defs ...*Def) map[string]*Index {
	t.Helper()
	xs, err := f.Ready(defs, seq)
	if err != nil {
		t.Fatalf("Ready(%d): %v", seq, err)
	}
	return xs
}

func TestFollowerBuildsThenFollows(t *testing.T) {
	lt := newLogTable(t)
	lt.write("a", vecItem(t, "t1", "1", "0"), 1)
	lt.write("b", vecItem(t, "t1", "2", "0"), 2)
	lt.write("c", vecItem(t, "", "3", "0"), 3) // no HASH value: not indexed
	f := NewFollower(lt.db, "T")
	x := ready(t, f, 3, followDef())["emb"]
	if got := keys(x, "t1"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("after build: %v", got)
	}
	lt.write("c", vecItem(t, "t1", "0.5", "0"), 4)           // now indexed
	lt.write("a", nil, 5)                                    // deleted
	lt.write("b", attr.Item{"tenant": attr.String("t1")}, 6) // vector removed
	lt.write("d", vecItem(t, "t2", "1", "1"), 7)
	if got := keys(x, "t1"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("before Ready moved it: %v", got)
	}
	if ready(t, f, 7, followDef())["emb"] != x {
		t.Fatal("Ready rebuilt an index it could move forward")
	}
	if got := keys(x, "t1"); !reflect.DeepEqual(got, []string{"c"}) {
		t.Fatalf("t1 at 7: %v", got)
	}
	if got := keys(x, "t2"); !reflect.DeepEqual(got, []string{"d"}) {
		t.Fatalf("t2 at 7: %v", got)
	}
}

// TestFollowerHoldsExactlyTheWatermark: an index holds the records up to
// the watermark it is given and none after, whether it was kept since the
// start, moved forward, or built late from a snapshot that has later
// records (set back); and one given an older watermark than it holds (an
// owner that applied what it is about to publish) is left as it is.
func TestFollowerHoldsExactlyTheWatermark(t *testing.T) {
	lt := newLogTable(t)
	early := NewFollower(lt.db, "T")
	ready(t, early, 0, followDef())
	lt.write("a", vecItem(t, "t", "1", "0"), 5)
	lt.write("c", vecItem(t, "t", "2", "0"), 6)
	lt.write("b", vecItem(t, "t", "3", "0"), 11)
	lt.write("a", vecItem(t, "t", "5", "0"), 12)
	lt.write("c", nil, 13)
	lt.write("d", vecItem(t, "t", "4", "0"), 9)
	for _, step := range []struct {
		seq  uint64
		want []string
	}{{0, nil}, {2, []string{"a", "c"}}, {4, []string{"c", "b", "a"}}, {6, []string{"b", "d", "a"}}} {
		late := NewFollower(lt.db, "T")
		for name, f := range map[string]*Follower{"kept since the start": early, "built late": late} {
			if got := keys(ready(t, f, step.seq, followDef())["emb"], "t"); !reflect.DeepEqual(got, step.want) {
				t.Errorf("at %d, follower %s: %v, want %v", step.seq, name, got, step.want)
			}
		}
	}
	if got := keys(ready(t, early, 2, followDef())["emb"], "t"); !reflect.DeepEqual(got, []string{"b", "d", "a"}) {
		t.Errorf("given an older watermark: %v, want the index left at 6", got)
	}
}

func TestFollowerRebuildsAfterTrim(t *testing.T) {
	lt := newLogTable(t)
	f := NewFollower(lt.db, "T")
	ready(t, f, 0, followDef())
	for i := 0; i < 5; i++ {
		lt.write(fmt.Sprint(i), vecItem(t, "t", fmt.Sprint(i), "0"), int64(i))
	}
	lt.trim(3) // records 1-3 gone before the follower saw them
	if got := keys(ready(t, f, 4, followDef())["emb"], "t"); !reflect.DeepEqual(got, []string{"0", "1", "2", "3"}) {
		t.Fatalf("after rebuild at 4: %v", got)
	}
	// Built at a watermark whose next records are gone, an index cannot be
	// set back: an error, never a wrong index.
	if _, err := NewFollower(lt.db, "T").Ready([]*Def{followDef()}, 2); err == nil {
		t.Fatal("built at 2 with records 1-3 trimmed: no error")
	}
	if _, err := NewFollower(lt.db, "T").Ready([]*Def{followDef()}, 6); err == nil {
		t.Fatal("built at 6, past the log's end: no error")
	}
}

// TestFollowerReadyLatest: an owner with no lag builds at the log's last
// record, which it needs no record for, even when the log was trimmed to
// its end, and then moves to each new last record.
func TestFollowerReadyLatest(t *testing.T) {
	lt := newLogTable(t)
	for i := 0; i < 3; i++ {
		lt.write(fmt.Sprint(i), vecItem(t, "t", fmt.Sprint(i), "0"), int64(i))
	}
	lt.trim(3)
	f := NewFollower(lt.db, "T")
	xs, seq, err := f.ReadyLatest([]*Def{followDef()})
	if err != nil || seq != 3 || !reflect.DeepEqual(keys(xs["emb"], "t"), []string{"0", "1", "2"}) {
		t.Fatalf("ReadyLatest = %v at %d (err %v)", keys(xs["emb"], "t"), seq, err)
	}
	lt.write("1", nil, 4)
	xs, seq, err = f.ReadyLatest([]*Def{followDef()})
	if err != nil || seq != 4 || !reflect.DeepEqual(keys(xs["emb"], "t"), []string{"0", "2"}) {
		t.Fatalf("after a delete: %v at %d (err %v)", keys(xs["emb"], "t"), seq, err)
	}
}

func TestFollowerReadyDropsRebuildsAndResets(t *testing.T) {
	lt := newLogTable(t)
	lt.write("a", vecItem(t, "t", "1", "0"), 1)
	f := NewFollower(lt.db, "T")
	d := followDef()
	first := ready(t, f, 1, d)["emb"]
	if ready(t, f, 1, d)["emb"] != first || f.Index("emb") != first {
		t.Fatal("Ready with the same Def rebuilt the index")
	}
	d2 := *d
	d2.Hash = index.KeyAttr{}
	if ready(t, f, 1, &d2)["emb"] == first {
		t.Fatal("Ready with a changed Def kept the old index")
	}
	if xs := ready(t, f, 1); len(xs) != 0 || f.Index("emb") != nil {
		t.Fatalf("Ready without defs kept %v", xs)
	}
	ready(t, f, 1, d)
	f.Reset()
	if f.Index("emb") != nil {
		t.Fatal("Reset kept the index")
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
	f := NewFollower(lt.db, "T")
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
				xs, rerr := f.Ready(defs, 1)
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
