package table

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/store/etcdtest"
)

// TestInsightsSizesMatchWalkOverEtcd: over etcd, the sizes an insights
// report of one front-end takes from its maintained statistics (followed
// through etcd's watch) equal those of a walk (the plain twin), after its
// own writes and after another front-end's.
func TestInsightsSizesMatchWalkOverEtcd(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	rng := rand.New(rand.NewPCG(7, 31))
	open := func() *Service {
		db, err := store.Open(store.Options{Etcd: &store.EtcdOptions{Endpoints: c.Endpoints(), Prefix: "sizes/",
			DialTimeout: time.Minute, RequestTimeout: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		s := New(db, Options{Now: clk.now})
		t.Cleanup(func() {
			s.Close()
			_ = db.Close()
		})
		return s
	}
	a, b := open(), open()
	createSizesTable(t, a)
	mixedWrites(t, a, rng, 150)
	compareInsights(t, a, "before following")
	if len(a.sizes.m) != 3 {
		t.Fatalf("the report follows %d spaces, want the table's and its two indexes'", len(a.sizes.m))
	}
	mixedWrites(t, b, rng, 150)
	compareInsights(t, a, "after the other front-end's writes")
	mixedWrites(t, a, rng, 100)
	compareInsights(t, a, "after its own writes")
}
