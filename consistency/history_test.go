package consistency

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
)

// fakeLog is an in-memory change log.
type fakeLog struct{ recs [][]byte }

func (l *fakeLog) AscendLog(after uint64, fn func(uint64, []byte) bool) error {
	for i := after; i < uint64(len(l.recs)); i++ {
		if !fn(i+1, l.recs[i]) {
			break
		}
	}
	return nil
}

func (l *fakeLog) LastLogSeq() uint64 { return uint64(len(l.recs)) }

func (l *fakeLog) write(t int64, key string, old, new attr.Item) {
	r := changelog.Record{Time: t, Key: []byte(key)}
	if old != nil {
		r.Old = attr.AppendBinary(nil, old)
	}
	if new != nil {
		r.New = attr.AppendBinary(nil, new)
	}
	l.recs = append(l.recs, changelog.Append(nil, r))
}

func item(v string) attr.Item { return attr.Item{"v": attr.String(v)} }

func TestHistoryAt(t *testing.T) {
	log := &fakeLog{}
	log.write(10, "a", nil, item("1"))       // insert at 10
	log.write(20, "a", item("1"), item("2")) // update at 20
	log.write(25, "b", nil, item("x"))
	log.write(30, "a", item("2"), nil) // delete at 30
	h := NewHistory()
	if err := h.Sync("t", log, 0); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key     string
		at      int64
		want    string // "" = absent
		changed bool
	}{
		{"a", 5, "", true},
		{"a", 10, "1", true},
		{"a", 19, "1", true},
		{"a", 20, "2", true},
		{"a", 29, "2", true},
		{"a", 30, "", false},
		{"b", 24, "", true},
		{"b", 25, "", false},
		{"c", 0, "", false},
	}
	for _, tt := range tests {
		got, changed := h.At("t", []byte(tt.key), tt.at)
		g := ""
		if got != nil {
			g = got["v"].S
		}
		if changed != tt.changed || g != tt.want {
			t.Errorf("At(%s, %d): got %q, %v; want %q, %v", tt.key, tt.at, g, changed, tt.want, tt.changed)
		}
	}
	ch := h.Changed("t", []byte("a"), []byte("b"), 15)
	if len(ch) != 1 || string(ch[0].Key) != "a" || ch[0].Old["v"].S != "1" {
		t.Errorf("Changed: got %+v", ch)
	}
	// Pruning forgets what no read looks back to.
	log.write(40, "c", nil, item("c"))
	if err := h.Sync("t", log, 26); err != nil {
		t.Fatal(err)
	}
	if _, changed := h.At("t", []byte("b"), 0); changed {
		t.Error("b's change at 25 survived pruning at 26")
	}
	if got, changed := h.At("t", []byte("a"), 29); !changed || got["v"].S != "2" {
		t.Errorf("a at 29 after pruning: got %v, %v", got, changed)
	}
	due := h.DuePrefix("t", func(seq uint64, tm int64) bool { return tm <= 30 })
	if due != 4 {
		t.Errorf("DuePrefix: got %d, want 4", due)
	}
}
