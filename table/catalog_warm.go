package table

import (
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/throttle"
)

// A global index's warm throughput is kept as the table's is (warm and
// warmUnits, throttle_admit.go): what was asked for, never lowered, and
// described as what the index serves at once. An on-demand index serves
// what a new on-demand table's partitions serve (12,000 reads and 4,000
// writes a second: ack-api-quirks DDB-TABLE-155, recorded from the
// service, describes an index of a PAY_PER_REQUEST table so); a
// provisioned one its provisioned capacity (the Developer Guide's "Create
// a new DynamoDB table with higher warm throughput" and "Increase your
// existing DynamoDB table's warm throughput" describe an index of 50/25
// with its warm throughput 50/25 until raised, then as asked).

// indexWarm raises ix's warm throughput to what w asks for (w may be nil).
func (ix *indexMeta) indexWarm(w *ddb.WarmThroughput) {
	if w == nil {
		return
	}
	ix.WarmRead = max(ix.WarmRead, deref(w.ReadUnitsPerSecond))
	ix.WarmWrite = max(ix.WarmWrite, deref(w.WriteUnitsPerSecond))
}

// indexWarmUnits is the read and write units per second global index ix of
// m serves at once (see above).
func (m *tableMeta) indexWarmUnits(ix *indexMeta) (read, write int64) {
	if m.BillingMode == "PAY_PER_REQUEST" {
		return max(throttle.OnDemandReadUnits, ix.WarmRead), max(throttle.OnDemandWriteUnits, ix.WarmWrite)
	}
	return max(ix.ReadCapacity, ix.WarmRead), max(ix.WriteCapacity, ix.WarmWrite)
}

// indexWarmDescription is DescribeTable's WarmThroughput of global index ix.
func (m *tableMeta) indexWarmDescription(ix *indexMeta) *ddb.TableWarmThroughputDescription {
	r, w := m.indexWarmUnits(ix)
	return &ddb.TableWarmThroughputDescription{ReadUnitsPerSecond: r, WriteUnitsPerSecond: w, Status: "ACTIVE"}
}

// raiseIndexWarm applies an UpdateTable index Update's WarmThroughput to
// ix: the same value again changes nothing, a lower one is refused.
func (m *tableMeta) raiseIndexWarm(ix *indexMeta, w *ddb.WarmThroughput) error {
	if w == nil {
		return nil
	}
	r, wr := m.indexWarmUnits(ix)
	if err := checkWarmDecrease("index "+ix.Name, w, r, wr); err != nil {
		return err
	}
	ix.indexWarm(w)
	return nil
}

// raiseWarm applies UpdateTable's WarmThroughput to the table, refusing a
// value below what it serves now.
func (m *tableMeta) raiseWarm(w *ddb.WarmThroughput) error {
	if w == nil {
		return nil
	}
	r, wr := m.warmUnits()
	if err := checkWarmDecrease("table", w, r, wr); err != nil {
		return err
	}
	m.warm(w)
	return nil
}

// checkWarmDecrease refuses a WarmThroughput member below the current
// value (read, write) of what (the table or "index NAME"), the read member
// first, in the service's words (ack-api-quirks DDB-TABLE-059, -155 and
// -457, recorded from the service for both, with 0 and -1 too).
func checkWarmDecrease(what string, w *ddb.WarmThroughput, read, write int64) error {
	for _, mb := range []struct {
		name  string
		asked *int64
		cur   int64
	}{{"ReadUnitsPerSecond", w.ReadUnitsPerSecond, read}, {"WriteUnitsPerSecond", w.WriteUnitsPerSecond, write}} {
		if mb.asked != nil && *mb.asked < mb.cur {
			return invalid("Requested %s for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported", mb.name, what)
		}
	}
	return nil
}

// checkImportIndexWarm refuses an ImportTable whose global index asks for a
// warm throughput, as DynamoDB does although ImportTable's request syntax
// lists the member (ScyllaDB's Alternator suite, run against DynamoDB,
// records the refusal: test_import_table.py test_gsi_warm_throughput_rejected).
func checkImportIndexWarm(gsis []ddb.GlobalSecondaryIndex) error {
	for _, g := range gsis {
		if g.WarmThroughput != nil {
			return ddb.Errorf(ddb.ValidationException, "WarmThroughput is not supported on Global Secondary Indexes via ImportTable")
		}
	}
	return nil
}
