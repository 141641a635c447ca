package capacity

import "testing"

func TestReadUnits(t *testing.T) {
	tests := []struct {
		size       int
		consistent bool
		want       float64
	}{
		{0, true, 1}, {0, false, 0.5},
		{1, true, 1}, {4095, true, 1}, {4096, true, 1}, {4097, true, 2},
		{4096, false, 0.5}, {4097, false, 1}, {8192, false, 1}, {8193, false, 1.5},
		{400 * 1024, true, 100},
	}
	for _, tt := range tests {
		if got := ReadUnits(tt.size, tt.consistent); got != tt.want {
			t.Errorf("ReadUnits(%d, %v): got %v, want %v", tt.size, tt.consistent, got, tt.want)
		}
	}
}

func TestWriteUnits(t *testing.T) {
	tests := []struct {
		old, new int
		want     float64
	}{
		{0, 0, 1}, {0, 1, 1}, {0, 1024, 1}, {0, 1025, 2}, {1025, 10, 2}, {3000, 2000, 3}, {0, 400 * 1024, 400},
	}
	for _, tt := range tests {
		if got := WriteUnits(tt.old, tt.new); got != tt.want {
			t.Errorf("WriteUnits(%d, %d): got %v, want %v", tt.old, tt.new, got, tt.want)
		}
	}
}
