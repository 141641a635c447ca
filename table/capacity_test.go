package table

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
		if got := readUnits(tt.size, tt.consistent); got != tt.want {
			t.Errorf("readUnits(%d, %v): got %v, want %v", tt.size, tt.consistent, got, tt.want)
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
		if got := writeUnits(tt.old, tt.new); got != tt.want {
			t.Errorf("writeUnits(%d, %d): got %v, want %v", tt.old, tt.new, got, tt.want)
		}
	}
}

func TestMeterReport(t *testing.T) {
	m := newMeter("T", false)
	m.addTable(2)
	m.addIndex(true, "g", 1)
	m.addIndex(false, "l", 1)
	if got := m.report("NONE"); got != nil {
		t.Errorf("NONE: got %+v, want nil", got)
	}
	tot := m.report("TOTAL")
	if tot.CapacityUnits != 4 || tot.Table != nil || *tot.WriteCapacityUnits != 4 {
		t.Errorf("TOTAL: got %+v", tot)
	}
	idx := m.report("INDEXES")
	if idx.Table.CapacityUnits != 2 || idx.GlobalSecondaryIndexes["g"].CapacityUnits != 1 || idx.LocalSecondaryIndexes["l"].CapacityUnits != 1 {
		t.Errorf("INDEXES: got %+v", idx)
	}
	m.transaction = true
	if got := m.report("TOTAL").CapacityUnits; got != 8 {
		t.Errorf("transactional: got %v, want 8", got)
	}
}
