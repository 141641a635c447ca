package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{0, 100},
		{10 << 20, 100},
		{32 << 20, 100},
		{64 << 20, 50},
		{100 << 20, 32},
		{160 << 20, 20},
		{320 << 20, 10},
		{640 << 20, 10},
		{4 << 30, 10},
	}
	for _, tt := range tests {
		if got := gcPercentFor(tt.live); got != tt.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tt.live>>20, got, tt.want)
		}
	}
}
