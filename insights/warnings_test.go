package insights

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// load is a workload for one warning rule, applied to a fresh Recorder.
type load struct {
	name    string
	stored  []string // partition keys of stored items (one item each)
	apply   func(r *Recorder)
	limit   int64  // collection limit (a table with local indexes)
	want    string // warning kind expected, "" for none of the kinds in kinds
	message string // the expected message when want is set
}

// spreadKeys returns n distinct, unrelated partition keys.
func spreadKeys(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("user-%x", i*7919))
	}
	return out
}

// keyWarningLoads are loads whose traffic or stored keys do or do not
// warrant a key-design warning.
func keyWarningLoads() []load {
	spread := spreadKeys
	return []load{
		{name: "hot key", want: "hot-key", stored: spread(20), apply: func(r *Recorder) {
			for i := 0; i < 60; i++ {
				r.Write("t", "", key("hot", ""), 1)
			}
			for i := 0; i < 20; i++ {
				r.Write("t", "", key(fmt.Sprint("k", i), ""), 1)
			}
		}, message: `Partition key {"S":"hot"} took 75% of the consumed units of the table (60 of 80 units): one partition serves it, whatever the table's total capacity.`},
		{name: "spread load", stored: spread(20), apply: func(r *Recorder) {
			for i := 0; i < 80; i++ {
				r.Write("t", "", key(fmt.Sprint("k", i%20), ""), 1)
			}
		}},
		{name: "too little traffic to judge", stored: spread(20), apply: func(r *Recorder) {
			for i := 0; i < 10; i++ {
				r.Write("t", "", key("hot", ""), 1)
			}
		}},
		{name: "date keys", want: "date-like-key", stored: []string{"2026-10-01", "2026-10-02", "device#20261003", "x"},
			message: `3 of 4 sampled partition keys of the table look like dates or timestamps (e.g. {"S":"2026-10-01"}).`},
		{name: "sequential keys", want: "sequential-key", stored: func() []string {
			var out []string
			for i := 1000; i < 1030; i++ {
				out = append(out, fmt.Sprint("order-", i))
			}
			return out
		}(), message: "30 of 30 sampled partition keys of the table are sequential numbers (1000 to 1029)."},
		{name: "one shared number is no sequence (span 0)", stored: func() []string {
			var out []string
			for i := 0; i < 30; i++ {
				out = append(out, fmt.Sprint("tenant", string(rune('a'+i%26)), i/26, "-7"))
			}
			return out
		}()},
		{name: "few distinct numbers are no sequence", stored: func() []string {
			var out []string
			for i := 0; i < 30; i++ {
				out = append(out, fmt.Sprint("site", string(rune('a'+i%26)), i/26, "-", i%3))
			}
			return out
		}()},
		{name: "repeated sequence numbers count once", want: "sequential-key", stored: func() []string {
			var out []string
			for i := 0; i < 40; i++ {
				out = append(out, fmt.Sprint("shard", i%2, "-", 500+i/2))
			}
			return out
		}(), message: "40 of 40 sampled partition keys of the table are sequential numbers (500 to 519)."},
		{name: "sparse numbers are no sequence", stored: func() []string {
			var out []string
			for i := 0; i < 30; i++ {
				out = append(out, fmt.Sprint("order-", i*1000003))
			}
			return out
		}()},
		{name: "low cardinality", want: "low-cardinality", stored: func() []string {
			var out []string
			for i := 0; i < 120; i++ {
				out = append(out, []string{"ACTIVE", "DELETED", "PENDING"}[i%3])
			}
			return out
		}(), message: "Only 3 distinct partition key values hold the 120 items of the table: at most 3 partitions can share its load."},
	}
}

// readWarningLoads are loads whose reads or item collections do or do not
// warrant a warning.
func readWarningLoads() []load {
	spread := spreadKeys
	return []load{
		{name: "filters discard", want: "filter-discards", stored: spread(5), apply: func(r *Recorder) {
			for i := 0; i < 10; i++ {
				r.Page("t", "", PageRead{From: key("a", ""), Units: 1, Scanned: 20, Returned: 1, Filtered: true})
			}
		}, message: "Filters discarded 95% of the items they read (190 of 200): every item read was paid for."},
		{name: "filters keep most", stored: spread(5), apply: func(r *Recorder) {
			r.Page("t", "", PageRead{From: key("a", ""), Units: 1, Scanned: 200, Returned: 150, Filtered: true})
		}},
		{name: "scan and query", want: "scan-and-query", stored: spread(5), apply: func(r *Recorder) {
			r.Page("t", "", PageRead{LastRead: ^uint64(0), Units: 6, Scanned: 100, Returned: 100, Scan: true})
			r.Page("t", "", PageRead{From: key("a", ""), Units: 2, Scanned: 3, Returned: 3})
		}, message: "Scans consumed 75% of the read units of this table (6 of 8) while it also serves GetItem and Query reads (2 units)."},
		{name: "scan only", stored: spread(5), apply: func(r *Recorder) {
			r.Page("t", "", PageRead{LastRead: ^uint64(0), Units: 6, Scanned: 100, Returned: 100, Scan: true})
		}},
		{name: "collection near its limit", want: "collection-size", stored: []string{"big", "big", "big", "big", "big", "small"}, limit: 600,
			message: `The item collection of partition key {"S":"big"} holds 500 bytes, 83% of the 600-byte limit of a table with local secondary indexes.`},
		{name: "collection without local index has no limit", stored: []string{"big", "big", "big", "big", "big", "small"}},
	}
}

func TestWarningRules(t *testing.T) {
	for _, tc := range append(keyWarningLoads(), readWarningLoads()...) {
		t.Run(tc.name, func(t *testing.T) { checkWarnings(t, tc) })
	}
}

// checkWarnings applies tc's load and checks that exactly the warning it
// wants is reported, with its message.
func checkWarnings(t *testing.T, tc load) {
	t.Helper()
	kinds := []string{"hot-key", "date-like-key", "sequential-key", "low-cardinality", "filter-discards", "scan-and-query", "collection-size"}
	r := New(Options{Now: newClock().now})
	if tc.apply != nil {
		tc.apply(r)
	}
	tbl := tableOf(r, "t", false, storedKeys(tc.stored)...)
	tbl.CollectionLimit = tc.limit
	rep := r.Report("t", tbl)
	var got []Warning
	for _, w := range rep.Warnings {
		if w.Remedy == "" || w.Message == "" {
			t.Errorf("warning %+v lacks its reason or remedy", w)
		}
		got = append(got, w)
	}
	for _, k := range kinds {
		var found *Warning
		for i := range got {
			if got[i].Kind == k {
				found = &got[i]
			}
		}
		switch {
		case k == tc.want && found == nil:
			t.Errorf("no %s warning; got %+v", k, got)
		case k == tc.want && found.Message != tc.message:
			t.Errorf("%s message = %q, want %q", k, found.Message, tc.message)
		case k != tc.want && found != nil:
			t.Errorf("unexpected %s warning: %q", k, found.Message)
		}
	}
}

// storedKeys returns the storage keys of one item per partition key in pks,
// in storage order (hash, then key), as a table's space holds them.
func storedKeys(pks []string) [][]byte {
	var out [][]byte
	for i, pk := range pks {
		out = append(out, key(pk, fmt.Sprint(i)))
	}
	sortKeys(out)
	return out
}

func sortKeys(ks [][]byte) {
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && strings.Compare(string(ks[j-1]), string(ks[j])) > 0; j-- {
			ks[j-1], ks[j] = ks[j], ks[j-1]
		}
	}
}

func TestLooksLikeDate(t *testing.T) {
	tests := []struct {
		v    attr.Value
		want bool
	}{
		{attr.Value{T: attr.TypeS, S: "2026-10-02"}, true},
		{attr.Value{T: attr.TypeS, S: "birch#2026/10/02"}, true},
		{attr.Value{T: attr.TypeS, S: "20261002"}, true},
		{attr.Value{T: attr.TypeS, S: "2026-10-02T10:00:00Z"}, true},
		{attr.Value{T: attr.TypeS, S: "user-2026"}, false},
		{attr.Value{T: attr.TypeS, S: "20261399"}, false},
		{attr.Value{T: attr.TypeS, S: "1234567890123"}, false},
		{attr.Value{T: attr.TypeN, S: "1764633600"}, true},    // Unix seconds
		{attr.Value{T: attr.TypeN, S: "1764633600123"}, true}, // Unix milliseconds
		{attr.Value{T: attr.TypeN, S: "42"}, false},
	}
	dates := compileDates()
	for _, tc := range tests {
		if got := looksLikeDate(tc.v, dates); got != tc.want {
			t.Errorf("looksLikeDate(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
