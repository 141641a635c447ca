package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{0, 100},
		{10 << 20, 100},
		{24 << 20, 100},
		{32 << 20, 75},
		{64 << 20, 37},
		{100 << 20, 24},
		{160 << 20, 15},
		{320 << 20, 7},
		{343 << 20, 7},
		{640 << 20, 7},
		{4 << 30, 7},
	}
	for _, tt := range tests {
		if got := gcPercentFor(tt.live); got != tt.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tt.live>>20, got, tt.want)
		}
	}
}
