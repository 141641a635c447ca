package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/capacity"
)

func TestMeterReport(t *testing.T) {
	m := capacity.NewMeter("T", false)
	m.AddTable(2)
	m.AddIndex(true, "g", 1)
	m.AddIndex(false, "l", 1)
	if got := report(m, "NONE"); got != nil {
		t.Errorf("NONE: got %+v, want nil", got)
	}
	tot := report(m, "TOTAL")
	if tot.CapacityUnits != 4 || tot.Table != nil || *tot.WriteCapacityUnits != 4 {
		t.Errorf("TOTAL: got %+v", tot)
	}
	idx := report(m, "INDEXES")
	if idx.Table.CapacityUnits != 2 || idx.GlobalSecondaryIndexes["g"].CapacityUnits != 1 || idx.LocalSecondaryIndexes["l"].CapacityUnits != 1 {
		t.Errorf("INDEXES: got %+v", idx)
	}
	m.Transaction = true
	if got := report(m, "TOTAL").CapacityUnits; got != 8 {
		t.Errorf("transactional: got %v, want 8", got)
	}
}
