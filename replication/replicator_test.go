package replication

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

func TestReplicatesWritesWithoutEcho(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	toEU, toUS := w.link(us, eu, false), w.link(eu, us, false)
	w.write(us, "a", "1")
	w.write(us, "b", "2")
	w.write(us, "a", "")
	w.drain(toEU)
	w.drain(toUS)
	if d := diff(w.items(eu), map[string]string{"b": "2"}); d != "" {
		t.Errorf("eu-west-1: %s", d)
	}
	if d := diff(w.items(us), map[string]string{"b": "2"}); d != "" {
		t.Errorf("us-east-1: %s", d)
	}
	recs := w.logRecords(eu)
	if len(recs) != 3 {
		t.Fatalf("eu-west-1 log: got %d records, want 3", len(recs))
	}
	for i, r := range recs {
		if r.Origin != "us-east-1" || r.OriginTime == 0 {
			t.Errorf("eu-west-1 record %d: origin %q at %d, want us-east-1 at its commit time", i, r.Origin, r.OriginTime)
		}
	}
	if n := len(w.logRecords(us)); n != 3 {
		t.Errorf("us-east-1 log: got %d records, want its own 3 (replicated writes must not come back)", n)
	}
	v, ok := w.version(eu, "a")
	if !ok || !v.Deleted || v.Region != "us-east-1" {
		t.Errorf("eu-west-1 version of a: got %+v %v, want a us-east-1 tombstone", v, ok)
	}
}

// TestLastWriterWins writes one key in two Regions before either write is
// replicated: every replica must end with the later write (the greater
// Region on a tie), and the discarded write is counted where it lost.
func TestLastWriterWins(t *testing.T) {
	tests := []struct {
		name           string
		usAt, euAt     int64
		usVal, euVal   string
		want           string // "" = absent
		usLost, euLost int64  // conflicts on the link into us-east-1, into eu-west-1
	}{
		{"eu later", 10, 20, "us", "eu", "eu", 0, 1},
		{"us later", 20, 10, "us", "eu", "us", 1, 0},
		{"tie: greater Region wins", 10, 10, "us", "eu", "us", 1, 0},
		{"later delete wins", 10, 20, "us", "", "", 0, 1},
		{"later put beats delete", 20, 10, "us", "", "us", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
			w.writeAt(us, "k", "seed", 1)
			w.writeAt(eu, "k", "seed", 1)
			toEU, toUS := w.link(us, eu, false), w.link(eu, us, false)
			w.writeAt(us, "k", tc.usVal, tc.usAt)
			w.writeAt(eu, "k", tc.euVal, tc.euAt)
			w.drain(toEU)
			w.drain(toUS)
			want := map[string]string{}
			if tc.want != "" {
				want["k"] = tc.want
			}
			for _, e := range []Endpoint{us, eu} {
				if d := diff(w.items(e), want); d != "" {
					t.Errorf("%s: %s", e.Region, d)
				}
			}
			if n, _ := toUS.Conflicts(); n != tc.usLost {
				t.Errorf("conflicts into us-east-1: got %d, want %d", n, tc.usLost)
			}
			n, list := toEU.Conflicts()
			if n != tc.euLost {
				t.Errorf("conflicts into eu-west-1: got %d, want %d", n, tc.euLost)
			}
			if n == 1 && (list[0].Region != "eu-west-1" || list[0].Loser.Region != "us-east-1" || list[0].Winner.Region != "eu-west-1" || string(list[0].Key) != "k") {
				t.Errorf("conflict listed: got %+v", list[0])
			}
		})
	}
}

func TestVersionWins(t *testing.T) {
	tests := []struct {
		v, cur Version
		want   bool
	}{
		{Version{Time: 2, Region: "a"}, Version{Time: 1, Region: "b"}, true},
		{Version{Time: 1, Region: "b"}, Version{Time: 2, Region: "a"}, false},
		{Version{Time: 1, Region: "b"}, Version{Time: 1, Region: "a"}, true},
		{Version{Time: 1, Region: "a"}, Version{Time: 1, Region: "b"}, false},
		{Version{Time: 1, Region: "a"}, Version{Time: 1, Region: "a", Deleted: true}, false},
		{Version{Time: 1, Region: "a"}, Version{}, true},
	}
	for _, tc := range tests {
		if got := tc.v.Wins(tc.cur); got != tc.want {
			t.Errorf("%+v.Wins(%+v): got %v, want %v", tc.v, tc.cur, got, tc.want)
		}
	}
}

func TestLagHoldsRecordsBack(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	w.update(func(tx *store.Tx) error { return Link(tx, us.ID, eu.ID, 0, false) })
	const lag = time.Second
	r := newReplicator(Options{DB: w.db, Source: us, Target: eu, Apply: w.apply(eu), Now: w.clock.Now,
		Due: func(_ uint64, t int64) bool { return t+int64(lag) <= w.clock.Now().UnixNano() }})
	w.write(us, "a", "1")
	w.clock.Advance(lag / 2)
	w.write(us, "b", "2")
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{}); d != "" {
		t.Fatalf("before the lag: %s", d)
	}
	st, _, err := r.Status()
	// a was written at T, the clock is now T + lag/2 + 2ns (each write moves it 1ns).
	if err != nil || st.Backlog != 2 || st.Lag != lag/2+2 {
		t.Errorf("status: got backlog %d lag %v (%v), want 2 and %v", st.Backlog, st.Lag, err, lag/2+2)
	}
	w.clock.Advance(lag / 2)
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{"a": "1"}); d != "" {
		t.Fatalf("after a's lag: %s", d)
	}
	w.clock.Advance(lag / 2)
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{"a": "1", "b": "2"}); d != "" {
		t.Fatalf("after b's lag: %s", d)
	}
	if st, _, _ := r.Status(); st.Backlog != 0 || st.Lag != 0 {
		t.Errorf("caught up: got backlog %d lag %v, want 0 and 0", st.Backlog, st.Lag)
	}
}

func TestPauseResume(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	r := w.link(us, eu, false)
	r.Pause()
	w.write(us, "a", "1")
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{}); d != "" {
		t.Fatalf("paused: %s", d)
	}
	if err := r.WaitFor(context.Background(), 1); !errors.Is(err, ErrPaused) {
		t.Errorf("WaitFor while paused: got %v, want ErrPaused", err)
	}
	if st, _, _ := r.Status(); !st.Paused || st.Backlog != 1 {
		t.Errorf("paused status: got %+v, want paused with backlog 1", st)
	}
	r.Resume()
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{"a": "1"}); d != "" {
		t.Fatalf("resumed: %s", d)
	}
}

// TestCopyNewReplica copies more than one chunk of items, some written
// before the source was a replica, and a tombstone that must stop an older
// write arriving later by another link from resurrecting its item.
func TestCopyNewReplica(t *testing.T) {
	w := newWorld(t)
	us := w.table("us-east-1", false)
	want := map[string]string{}
	for i := range maxCopy + 10 {
		k := fmt.Sprintf("old%04d", i)
		w.write(us, k, "v")
		want[k] = "v"
	}
	w.update(func(tx *store.Tx) error { return Enable(tx, us.ID) })
	w.write(us, "new", "n")
	want["new"] = "n"
	w.write(us, "gone", "g")
	goneAt := w.clock.Now().UnixNano()
	w.write(us, "gone", "")
	eu := w.table("eu-west-1", true)
	r := w.link(us, eu, true)
	// An older write of "gone" from a third Region reaches eu-west-1 first.
	w.update(func(tx *store.Tx) error {
		o := Options{Source: Endpoint{Region: "ap-south-1"}, Target: eu, Apply: w.apply(eu)}
		sp := spaces{dst: tx.Space(eu.ID), dstV: tx.Space(VersionsSpace(eu.ID))}
		return o.copyVersion(tx, sp, []byte("gone"), []byte("zombie"), Version{Time: goneAt - 5, Region: "ap-south-1"}, &batchResult{})
	})
	if st, _, _ := r.Status(); !st.Copying {
		t.Errorf("status before the copy: got %+v, want Copying", st)
	}
	w.drain(r)
	if d := diff(w.items(eu), want); d != "" {
		t.Fatalf("copied: %s", d)
	}
	if v, ok := w.version(eu, "new"); !ok || v.Region != "us-east-1" {
		t.Errorf("version of a copied item: got %+v %v, want us-east-1's", v, ok)
	}
	if _, ok := w.version(eu, "old0000"); ok {
		t.Errorf("an item written before us-east-1 was a replica got a version in eu-west-1")
	}
	// Writes after the copy are tailed, once each.
	w.write(us, "new", "n2")
	w.drain(r)
	if got := w.items(eu)["new"]; got != "n2" {
		t.Errorf("after the copy: got new=%q, want n2", got)
	}
	if n := w.applied[eu.ID+"/new"]; n != 2 {
		t.Errorf("Apply calls for new: got %d, want 2 (copy, then the later write)", n)
	}
}

// TestFailedApplyRollsBack checks that a batch whose Apply fails changes
// nothing, and that the record is applied exactly once when retried.
func TestFailedApplyRollsBack(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	w.update(func(tx *store.Tx) error { return Link(tx, us.ID, eu.ID, 0, false) })
	fail := true
	good := w.apply(eu)
	r := newReplicator(Options{DB: w.db, Source: us, Target: eu, Now: w.clock.Now,
		Apply: func(tx *store.Tx, c Change) (float64, error) {
			if u, err := good(tx, c); err != nil || string(c.Key) != "b" || !fail {
				return u, err
			}
			return 0, errors.New("injected")
		}})
	w.write(us, "a", "1")
	w.write(us, "b", "2")
	if _, err := r.step(context.Background()); err == nil {
		t.Fatal("step: got nil, want the injected error")
	}
	if d := diff(w.items(eu), map[string]string{}); d != "" {
		t.Fatalf("after the failed batch: %s", d)
	}
	var wm uint64
	w.db.View(func(tx *store.Tx) error { wm, _, _ = Watermark(tx, us.ID, eu.ID); return nil })
	if wm != 0 {
		t.Errorf("watermark after the failed batch: got %d, want 0", wm)
	}
	fail = false
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{"a": "1", "b": "2"}); d != "" {
		t.Fatalf("retried: %s", d)
	}
	if n := len(w.logRecords(eu)); n != 2 {
		t.Errorf("eu-west-1 log: got %d records, want 2 (each write applied once)", n)
	}
}

// TestThrottledApplyHoldsTheLink checks that a change the target has no
// capacity for stops the link before it (the changes before it committed,
// none after it applied), that the link takes it up again once the target
// admits it, and that the replicated units and throttled batches are
// counted once each.
func TestThrottledApplyHoldsTheLink(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	w.update(func(tx *store.Tx) error { return Link(tx, us.ID, eu.ID, 0, false) })
	full := true
	good := w.apply(eu)
	r := newReplicator(Options{DB: w.db, Source: us, Target: eu, Now: w.clock.Now,
		Apply: func(tx *store.Tx, c Change) (float64, error) {
			if full && string(c.Key) == "b" {
				return 0, ErrThrottled
			}
			return good(tx, c)
		}})
	w.write(us, "a", "1")
	w.write(us, "b", "22")
	w.write(us, "c", "333")
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{"a": "1"}); d != "" {
		t.Fatalf("while eu-west-1 throttles b: %s", d)
	}
	st, _, err := r.Status()
	if err != nil || st.Backlog != 2 || st.Throttled != 1 || st.ReplicatedUnits != 1 {
		t.Fatalf("status while throttled: got %+v (%v), want backlog 2, throttled 1, 1 unit", st, err)
	}
	full = false
	w.drain(r)
	if d := diff(w.items(eu), map[string]string{"a": "1", "b": "22", "c": "333"}); d != "" {
		t.Fatalf("once admitted: %s", d)
	}
	st, _, err = r.Status()
	if err != nil || st.Backlog != 0 || st.Throttled != 1 || st.ReplicatedUnits != 6 {
		t.Errorf("status once admitted: got %+v (%v), want backlog 0, throttled 1, 6 units", st, err)
	}
	if n := w.applied[eu.ID+"/b"]; n != 1 {
		t.Errorf("Apply calls for b that wrote: got %d, want 1", n)
	}
}

func TestRestartResumesFromWatermark(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	r := w.link(us, eu, false)
	w.write(us, "a", "1")
	w.drain(r)
	w.write(us, "b", "2")
	r2 := w.replicator(us, eu) // a new process: only the store carries over
	w.drain(r2)
	if n := w.applied[eu.ID+"/a"]; n != 1 {
		t.Errorf("Apply calls for a: got %d, want 1", n)
	}
	if d := diff(w.items(eu), map[string]string{"a": "1", "b": "2"}); d != "" {
		t.Fatal(d)
	}
}

func TestFloorAndUnlink(t *testing.T) {
	w := newWorld(t)
	us, eu, ap := w.table("us-east-1", true), w.table("eu-west-1", true), w.table("ap-south-1", false)
	toEU := w.link(us, eu, false)
	w.write(us, "a", "1")
	w.write(us, "b", "2")
	floor := func(e Endpoint) (f uint64, ok bool) {
		w.db.View(func(tx *store.Tx) error { f, ok = Floor(tx, e.ID); return nil })
		return f, ok
	}
	if f, ok := floor(us); !ok || f != 0 {
		t.Errorf("floor before replicating: got %d %v, want 0 true", f, ok)
	}
	w.drain(toEU)
	if f, ok := floor(us); !ok || f != 2 {
		t.Errorf("floor after replicating: got %d %v, want 2 true", f, ok)
	}
	if _, ok := floor(ap); ok {
		t.Errorf("floor of a table that is no replica: got ok, want none")
	}
	w.write(us, "c", "3")
	w.update(func(tx *store.Tx) error { return Unlink(tx, us.ID, eu.ID) })
	if f, _ := floor(us); f != 2 {
		t.Errorf("floor after unlink: got %d, want the stamp 2", f)
	}
	w.update(func(tx *store.Tx) error { return Disable(tx, us.ID) })
	if _, ok := floor(us); ok {
		t.Errorf("floor after Disable: got ok, want none")
	}
	if err := w.db.Update(context.Background(), func(tx *store.Tx) error { return Link(tx, us.ID, eu.ID, 0, false) }); !errors.Is(err, ErrNotReplica) {
		t.Errorf("Link from a disabled table: got %v, want ErrNotReplica", err)
	}
}

// TestRandomConvergence writes random keys in three Regions, interleaved
// with random batches of the six links, then drains them: every replica
// must hold the same items and, when no two writes share a commit time,
// for each key the write with the greatest version. With shared times, a
// write wins over what its own replica held when it was made.
func TestRandomConvergence(t *testing.T) {
	for seed := range uint64(10) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomRun(t, seed, false) })
		t.Run(fmt.Sprint(seed, "-ties"), func(t *testing.T) { randomRun(t, seed, true) })
	}
}

func randomRun(t *testing.T, seed uint64, ties bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := newWorld(t)
	regions := []Endpoint{w.table("us-east-1", true), w.table("eu-west-1", true), w.table("ap-south-1", true)}
	var links []*Replicator
	for _, s := range regions {
		for _, d := range regions {
			if s != d {
				links = append(links, w.link(s, d, false))
			}
		}
	}
	type write struct {
		v   Version
		val string
	}
	last := map[string]write{}
	for i := range 300 {
		if rng.IntN(3) == 0 {
			if _, err := links[rng.IntN(len(links))].step(context.Background()); err != nil {
				t.Fatal(err)
			}
			continue
		}
		e, k := regions[rng.IntN(3)], fmt.Sprint("k", rng.IntN(5))
		val := fmt.Sprint(e.Region, i)
		if rng.IntN(4) == 0 {
			val = ""
		}
		if _, there := w.items(e)[k]; val == "" && !there {
			continue // deleting an absent item writes nothing, so replicates nothing
		}
		// Commit times never go back (the server reads its clock inside the
		// transaction).
		at := w.clock.Now().UnixNano()
		if !ties || rng.IntN(2) == 0 {
			w.clock.Advance(time.Nanosecond)
		}
		w.writeAt(e, k, val, at)
		if v := (Version{Time: at, Region: e.Region}); v.Wins(last[k].v) {
			last[k] = write{v, val}
		}
	}
	for range 2 {
		for _, r := range links {
			w.drain(r)
		}
	}
	first := w.items(regions[0])
	for _, e := range regions[1:] {
		if d := diff(w.items(e), first); d != "" {
			t.Errorf("%s differs from %s: %s", e.Region, regions[0].Region, d)
		}
	}
	if ties {
		return
	}
	want := map[string]string{}
	for k, wr := range last {
		if wr.val != "" {
			want[k] = wr.val
		}
	}
	if d := diff(first, want); d != "" {
		t.Errorf("%s: %s", regions[0].Region, d)
	}
}

// TestOwnWriteWinsOverEqualTime: a write made at the same instant as the
// replicated deletion its replica had just applied must win everywhere, as
// it did in its own replica, though the other Region's name is greater.
func TestOwnWriteWinsOverEqualTime(t *testing.T) {
	w := newWorld(t)
	ap, eu := w.table("ap-south-1", true), w.table("eu-west-1", true)
	toAP, toEU := w.link(eu, ap, false), w.link(ap, eu, false)
	w.writeAt(eu, "k", "eu", 100)
	w.drain(toAP)
	w.writeAt(eu, "k", "", 106)
	w.drain(toAP)
	w.writeAt(ap, "k", "ap", 106)
	w.drain(toEU)
	w.drain(toAP)
	for _, e := range []Endpoint{ap, eu} {
		if d := diff(w.items(e), map[string]string{"k": "ap"}); d != "" {
			t.Errorf("%s: %s", e.Region, d)
		}
	}
	if v, _ := w.version(eu, "k"); v != (Version{Time: 107, Region: "ap-south-1"}) {
		t.Errorf("version in eu-west-1: got %+v, want ap-south-1's at 107", v)
	}
}

func TestStartWaitForAndClose(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	w.update(func(tx *store.Tx) error { return Link(tx, us.ID, eu.ID, 0, false) })
	r := Start(context.Background(), Options{DB: w.db, Source: us, Target: eu, Apply: w.apply(eu)})
	w.write(us, "a", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.WaitFor(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if d := diff(w.items(eu), map[string]string{"a": "1"}); d != "" {
		t.Fatal(d)
	}
	r.Close()
	r.Close()
	if err := r.WaitFor(ctx, 5); !errors.Is(err, ErrClosed) {
		t.Errorf("WaitFor after Close: got %v, want ErrClosed", err)
	}
}

// TestStartPaused: a link started paused applies nothing, not even the
// change already in the source's log when it starts (a restart with the
// link held), until it is resumed.
func TestStartPaused(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	w.update(func(tx *store.Tx) error { return Link(tx, us.ID, eu.ID, 0, false) })
	w.write(us, "a", "1")
	r := Start(context.Background(), Options{DB: w.db, Source: us, Target: eu, Apply: w.apply(eu), Paused: true})
	defer r.Close()
	r.Notify()
	time.Sleep(3 * tick) // its first batch and two ticks' worth
	if d := diff(w.items(eu), map[string]string{}); d != "" {
		t.Fatalf("started paused: %s", d)
	}
	if !r.Paused() {
		t.Fatal("started paused: Paused() is false")
	}
	r.Resume()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.WaitFor(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if d := diff(w.items(eu), map[string]string{"a": "1"}); d != "" {
		t.Fatalf("resumed: %s", d)
	}
}

func TestStateRoundTrip(t *testing.T) {
	w := newWorld(t)
	us := w.table("us-east-1", true)
	want := state{stamp: 7, links: []link{
		{name: "a", wm: 3, copying: copyItems, cursor: []byte("k\x00")},
		{name: "b", wm: 9},
		{name: "c", wm: 1, copying: copyTombstones, cursor: []byte{}},
	}}
	w.update(func(tx *store.Tx) error { return writeState(tx.Space(us.ID), want) })
	w.db.View(func(tx *store.Tx) error {
		got, ok, err := readState(tx.Space(us.ID))
		if !ok || err != nil || got.stamp != want.stamp || !slices.EqualFunc(got.links, want.links, func(x, y link) bool {
			return x.name == y.name && x.wm == y.wm && x.copying == y.copying && string(x.cursor) == string(y.cursor) && (x.cursor == nil) == (y.cursor == nil)
		}) {
			t.Errorf("state round trip: got %+v %v %v, want %+v", got, ok, err, want)
		}
		return nil
	})
}

func FuzzDecodeVersion(f *testing.F) {
	f.Add(appendVersion(nil, Version{Time: 5, Region: "us-east-1", Deleted: true}, 7))
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, seq, err := decodeVersion(b)
		if err != nil {
			return
		}
		again, aseq, err := decodeVersion(appendVersion(nil, v, seq))
		if err != nil || again != v || aseq != seq {
			t.Fatalf("re-encode of %+v %d: got %+v %d, %v", v, seq, again, aseq, err)
		}
	})
}

// claim is a one-owner claim a test gives and takes by hand: held is what
// Held says, valid whether a fenced transaction may still commit.
type claim struct{ held, valid bool }

func (c *claim) Held() bool { return c.held }

func (c *claim) Fence(*store.Tx) error {
	if !c.valid {
		return store.ErrNotOwner
	}
	return nil
}

// TestFencedBatches checks that a link's batches are fenced by its owner's
// claim, as in cluster mode where two front-ends run the same link: a
// process that does not hold the claim applies nothing, one that lost it
// after looking commits nothing, and the one that holds it applies each
// write once.
func TestFencedBatches(t *testing.T) {
	w := newWorld(t)
	us, eu := w.table("us-east-1", true), w.table("eu-west-1", true)
	w.update(func(tx *store.Tx) error { return Link(tx, us.ID, eu.ID, 0, false) })
	a, b := &claim{held: true}, &claim{}
	ra := newReplicator(Options{DB: w.db, Source: us, Target: eu, Apply: w.apply(eu), Now: w.clock.Now, Owner: a})
	rb := newReplicator(Options{DB: w.db, Source: us, Target: eu, Apply: w.apply(eu), Now: w.clock.Now, Owner: b})
	w.write(us, "a", "1")
	w.write(us, "b", "2")
	if _, err := rb.step(context.Background()); err != nil {
		t.Fatalf("a step without the claim: %v", err)
	}
	if _, err := ra.step(context.Background()); !errors.Is(err, store.ErrNotOwner) {
		t.Fatalf("a step whose claim lapsed before commit: %v, want store.ErrNotOwner", err)
	}
	if d := diff(w.items(eu), map[string]string{}); d != "" {
		t.Fatalf("without a valid claim: %s", d)
	}
	a.held, b.held, b.valid = false, true, true // the claim moves to b
	w.drain(ra)
	w.drain(rb)
	if d := diff(w.items(eu), map[string]string{"a": "1", "b": "2"}); d != "" {
		t.Fatalf("with b's claim: %s", d)
	}
	if n := len(w.logRecords(eu)); n != 2 {
		t.Errorf("eu-west-1 log: %d records, want 2 (each write applied once)", n)
	}
}
