package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// TestCheckOnDemand: which OnDemandThroughput members a table takes, by
// billing mode and by operation (-1 clears a member only in UpdateTable).
func TestCheckOnDemand(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	const pre = "One or more parameter values were invalid: "
	for _, tc := range []struct {
		name      string
		od        *ddb.OnDemandThroughput
		mode      string
		clearable bool
		want      string // "" when taken
	}{
		{"none", nil, "PROVISIONED", false, ""},
		{"empty", &ddb.OnDemandThroughput{}, "PAY_PER_REQUEST", false, ""},
		{"read only", &ddb.OnDemandThroughput{MaxReadRequestUnits: n(100)}, "PAY_PER_REQUEST", false, ""},
		{"provisioned read", &ddb.OnDemandThroughput{MaxReadRequestUnits: n(100)}, "PROVISIONED", true,
			pre + "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"},
		{"provisioned write, out of range", &ddb.OnDemandThroughput{MaxWriteRequestUnits: n(0)}, "PROVISIONED", true,
			pre + "MaxWriteRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"},
		{"zero", &ddb.OnDemandThroughput{MaxReadRequestUnits: n(0), MaxWriteRequestUnits: n(0)}, "PAY_PER_REQUEST", true,
			pre + "Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{"write below -1", &ddb.OnDemandThroughput{MaxReadRequestUnits: n(5), MaxWriteRequestUnits: n(-2)}, "PAY_PER_REQUEST", true,
			pre + "Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{"-1 at CreateTable", &ddb.OnDemandThroughput{MaxWriteRequestUnits: n(-1)}, "PAY_PER_REQUEST", false,
			pre + "Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{"-1 at UpdateTable", &ddb.OnDemandThroughput{MaxWriteRequestUnits: n(-1)}, "PAY_PER_REQUEST", true, ""},
	} {
		err := checkOnDemand(tc.od, tc.mode, tc.clearable)
		got := ""
		if err != nil {
			got = err.Error()
			if e, ok := err.(*ddb.Error); ok {
				got = e.Message
			}
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCheckCreateWarm: the floor of a new table's warm throughput, by
// billing mode, member by member.
func TestCheckCreateWarm(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	const pre = "One or more parameter values were invalid: Requested "
	for _, tc := range []struct {
		name string
		m    tableMeta
		w    *ddb.WarmThroughput
		want string
	}{
		{"none", tableMeta{BillingMode: "PAY_PER_REQUEST"}, nil, ""},
		{"on demand, at the floor", tableMeta{BillingMode: "PAY_PER_REQUEST"}, &ddb.WarmThroughput{ReadUnitsPerSecond: n(12000), WriteUnitsPerSecond: n(4000)}, ""},
		{"on demand, reads below", tableMeta{BillingMode: "PAY_PER_REQUEST"}, &ddb.WarmThroughput{ReadUnitsPerSecond: n(11999)},
			pre + "ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. See: " + onDemandInitialDoc},
		{"on demand, writes below", tableMeta{BillingMode: "PAY_PER_REQUEST"}, &ddb.WarmThroughput{ReadUnitsPerSecond: n(20000), WriteUnitsPerSecond: n(1)},
			pre + "WriteUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. See: " + onDemandInitialDoc},
		{"provisioned, at capacity", tableMeta{BillingMode: "PROVISIONED", ReadCapacity: 10, WriteCapacity: 10}, &ddb.WarmThroughput{ReadUnitsPerSecond: n(10), WriteUnitsPerSecond: n(10)}, ""},
		{"provisioned, writes below", tableMeta{BillingMode: "PROVISIONED", ReadCapacity: 10, WriteCapacity: 10}, &ddb.WarmThroughput{WriteUnitsPerSecond: n(9)},
			pre + "WriteUnitsPerSecond for WarmThroughput for table is lower than WriteCapacityUnits of ProvisionedThroughput"},
	} {
		err := tc.m.checkCreateWarm(tc.w)
		got := ""
		if e, ok := err.(*ddb.Error); ok {
			got = e.Message
		} else if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
