package gsi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
)

// randomOp returns a random write on one of nkeys items: a delete one time
// in eight, otherwise a put whose index attributes are each sometimes
// missing or of the wrong type (sparse) and drawn from small domains, so
// that successive writes to one item often change its index keys.
func randomOp(r *rand.Rand, nkeys int) op {
	pk := fmt.Sprintf("p%d", r.IntN(nkeys))
	if r.IntN(8) == 0 {
		return op{pk, nil}
	}
	return op{pk, randomItem(r, pk)}
}

// randomItem returns a random item with table key pk.
func randomItem(r *rand.Rand, pk string) attr.Item {
	it := attr.Item{"pk": attr.String(pk)}
	maybe := func(name string, v attr.Value) {
		switch r.IntN(10) {
		case 0: // absent
		case 1:
			it[name] = attr.Bool(true) // the wrong type for every index key
		default:
			it[name] = v
		}
	}
	maybe("g", attr.String(string(rune('a'+r.IntN(4)))))
	maybe("s", attr.Int(int64(r.IntN(5))))
	maybe("h", attr.Int(int64(r.IntN(50))))
	maybe("x", attr.String(string(rune('a'+r.IntN(3)))))
	if r.IntN(2) == 0 {
		it["y"] = attr.String(fmt.Sprint(r.Int()))
	}
	if r.IntN(3) == 0 {
		it["big"] = attr.Binary(make([]byte, r.IntN(300)))
	}
	return it
}

// TestBackfillWhileWriting builds an index over 5,000 items in small chunks
// while another goroutine keeps writing (key changes, sparse items, deletes)
// and the applier keeps the other indexes current and trims the log with no
// retention; then the new index must equal what the table says.
func TestBackfillWhileWriting(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			g, hh, x := byG(), byH(), byGX()
			h := newHarness(t, g, hh)
			h.built()
			r := rand.New(rand.NewPCG(seed, 0))
			var ops []op
			for i := range 5000 {
				pk := fmt.Sprintf("p%d", i)
				ops = append(ops, op{pk, randomItem(r, pk)})
			}
			for i := 0; i < len(ops); i += 500 {
				if _, err := h.writeAll(ops[i : i+500]); err != nil {
					t.Fatal(err)
				}
			}
			a := h.start(h.options())
			h.addIndex(x)

			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			var writeErr error
			var writes int
			go func() {
				defer wg.Done()
				wr := rand.New(rand.NewPCG(seed, 1))
				for {
					select {
					case <-stop:
						return
					default:
					}
					batch := make([]op, 1+wr.IntN(16))
					for i := range batch {
						batch[i] = randomOp(wr, 6000)
					}
					if _, writeErr = h.writeAll(batch); writeErr != nil {
						return
					}
					writes += len(batch)
					a.Notify()
				}
			}()
			err := Backfill(context.Background(), h.db, tableID, x, spaceID(x.Name), 64)
			close(stop)
			wg.Wait()
			if err != nil {
				t.Fatalf("Backfill: %v", err)
			}
			if writeErr != nil {
				t.Fatalf("writer: %v", writeErr)
			}
			a.Notify()
			waitFor(t, a, h.lastSeq())
			t.Logf("%d concurrent writes during the backfill", writes)
			for _, d := range []*index.Def{g, hh, x} {
				h.checkIndex(d)
			}
			if n := len(h.logSeqs()); n != 0 {
				t.Errorf("log records left with no retention: got %d, want 0", n)
			}
		})
	}
}

// TestRandomOpsWithRestarts writes random operations while appliers are
// started and closed in turn (a Close mid-way is a crash as far as the
// store is concerned: nothing outside committed transactions survives), and
// checks every index and counter against the table at the end.
func TestRandomOpsWithRestarts(t *testing.T) {
	tests := []struct {
		seed       uint64
		rounds     int
		opsPerRnd  int
		nkeys      int
		writeBatch int
	}{
		{seed: 1, rounds: 5, opsPerRnd: 400, nkeys: 50, writeBatch: 1},
		{seed: 2, rounds: 4, opsPerRnd: 1200, nkeys: 300, writeBatch: 40},
		{seed: 3, rounds: 8, opsPerRnd: 100, nkeys: 10, writeBatch: 5},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint("seed ", tc.seed), func(t *testing.T) {
			defs := []*index.Def{byG(), byH(), byGX()}
			h := newHarness(t, defs...)
			h.built()
			r := rand.New(rand.NewPCG(tc.seed, 0))
			for range tc.rounds {
				a := Start(context.Background(), h.options())
				for i := 0; i < tc.opsPerRnd; i += tc.writeBatch {
					batch := make([]op, tc.writeBatch)
					for j := range batch {
						batch[j] = randomOp(r, tc.nkeys)
					}
					if _, err := h.writeAll(batch); err != nil {
						t.Fatal(err)
					}
					a.Notify()
				}
				a.Close() // usually before it has caught up
			}
			a := h.start(h.options())
			waitFor(t, a, h.lastSeq())
			for _, d := range defs {
				h.checkIndex(d)
			}
		})
	}
}
