package consistency

import (
	"testing"
	"time"
)

func TestParseLag(t *testing.T) {
	tests := []struct {
		in   string
		want Lag
		err  bool
	}{
		{"0", Lag{}, false},
		{"750ms", Lag{750 * time.Millisecond, 750 * time.Millisecond}, false},
		{"random:0-2s", Lag{0, 2 * time.Second}, false},
		{"random:100ms-1s", Lag{100 * time.Millisecond, time.Second}, false},
		{"random:2s-1s", Lag{}, true},
		{"random:1s", Lag{}, true},
		{"-1s", Lag{}, true},
		{"soon", Lag{}, true},
	}
	for _, tt := range tests {
		got, err := ParseLag(tt.in)
		if (err != nil) != tt.err || (!tt.err && got != tt.want) {
			t.Errorf("ParseLag(%q): got %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil {
			if again, err := ParseLag(got.String()); err != nil || again != got {
				t.Errorf("ParseLag(%q.String() = %q): got %v, %v", tt.in, got.String(), again, err)
			}
		}
	}
}

func TestTableLags(t *testing.T) {
	p := NewPolicy(Lag{time.Second, time.Second}, 1)
	tests := []struct {
		tags      map[string]string
		reads, ix time.Duration
	}{
		{nil, time.Second, time.Second},
		{map[string]string{EventualLagTag: "750ms"}, 750 * time.Millisecond, 750 * time.Millisecond},
		{map[string]string{GSILagTag: "2s"}, time.Second, 2 * time.Second},
		{map[string]string{EventualLagTag: "0", GSILagTag: "3s"}, 0, 3 * time.Second},
		{map[string]string{EventualLagTag: "bogus"}, time.Second, time.Second},
	}
	for _, tt := range tests {
		r, g := p.TableLags(tt.tags)
		if r.Max != tt.reads || g.Max != tt.ix {
			t.Errorf("TableLags(%v): got %v, %v; want %v, %v", tt.tags, r, g, tt.reads, tt.ix)
		}
	}
}

func TestRandomLagsAreReproducible(t *testing.T) {
	l := Lag{0, 2 * time.Second}
	a, b := NewPolicy(l, 42), NewPolicy(l, 42)
	for i := 0; i < 100; i++ {
		da, db := a.Draw(l), b.Draw(l)
		if da != db || da < l.Min || da > l.Max {
			t.Fatalf("draw %d: got %v and %v, want equal values in [%v, %v]", i, da, db, l.Min, l.Max)
		}
		ra, rb := a.RecordDelay(l, "t", uint64(i)), b.RecordDelay(l, "t", uint64(i))
		if ra != rb || ra < l.Min || ra > l.Max {
			t.Fatalf("record %d: got %v and %v", i, ra, rb)
		}
	}
	if c := NewPolicy(l, 43); c.RecordDelay(l, "t", 1) == a.RecordDelay(l, "t", 1) && c.RecordDelay(l, "t", 2) == a.RecordDelay(l, "t", 2) {
		t.Error("another seed gave the same delays")
	}
	fixed := Lag{time.Second, time.Second}
	if got := a.Draw(fixed); got != time.Second {
		t.Errorf("fixed lag: got %v", got)
	}
}
