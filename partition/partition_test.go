package partition

import "testing"

func TestEvenAndOf(t *testing.T) {
	max := ^uint64(0)
	tests := []struct {
		n    int
		h    uint64
		want int
	}{
		{1, 0, 0}, {1, max, 0},
		{4, 0, 0}, {4, 1<<62 - 1, 0}, {4, 1 << 62, 1}, {4, 1 << 63, 2}, {4, 3 << 62, 3}, {4, max, 3},
		{0, max, 0},
	}
	for _, tc := range tests {
		if got := Even(tc.n).Of(tc.h); got != tc.want {
			t.Errorf("Even(%d).Of(%#x) = %d, want %d", tc.n, tc.h, got, tc.want)
		}
	}
}

func TestRangesCoverHashSpace(t *testing.T) {
	for _, m := range []Map{{}, Even(1), Even(3), Even(4), Even(7)} {
		var next uint64
		for i := 0; i < m.Len(); i++ {
			lo, hi := m.Range(i)
			if lo != next || hi < lo {
				t.Fatalf("Len %d: partition %d is [%#x, %#x], want it to start at %#x", m.Len(), i, lo, hi, next)
			}
			if m.Of(lo) != i || m.Of(hi) != i {
				t.Fatalf("Len %d: Of of partition %d's bounds = %d, %d", m.Len(), i, m.Of(lo), m.Of(hi))
			}
			next = hi + 1
		}
		if next != 0 { // wrapped past the top exactly once
			t.Fatalf("Len %d: ranges end at %#x, want the top of the hash space", m.Len(), next-1)
		}
	}
}

func TestSplitHalvesAndKeepsOthers(t *testing.T) {
	m := Even(2)
	s, ok := m.Split(0)
	if !ok || s.Len() != 3 {
		t.Fatalf("Split(0) = %d partitions, ok %v; want 3, true", s.Len(), ok)
	}
	lo0, hi0 := s.Range(0)
	lo1, hi1 := s.Range(1)
	if lo0 != 0 || hi0 != 1<<62-1 || lo1 != 1<<62 || hi1 != 1<<63-1 {
		t.Fatalf("halves [%#x,%#x] [%#x,%#x]", lo0, hi0, lo1, hi1)
	}
	if lo, hi := s.Range(2); lo != 1<<63 || hi != ^uint64(0) {
		t.Fatalf("untouched partition moved to [%#x,%#x]", lo, hi)
	}
	if m.Len() != 2 {
		t.Fatalf("Split changed its receiver: Len %d", m.Len())
	}
	one := Map{starts: []uint64{0, 5, 6}}
	if _, ok := one.Split(1); ok {
		t.Fatal("a one-hash partition split")
	}
}
