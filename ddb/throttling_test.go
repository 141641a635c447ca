package ddb

import (
	"testing"

	"github.com/ddblocal/ddblocal/throttle"
)

func TestThrottled(t *testing.T) {
	const prov, od = true, false
	r := func(names ...string) []throttle.Reason {
		var out []throttle.Reason
		for _, n := range names {
			out = append(out, throttle.Reason{Reason: n, Resource: "arn"})
		}
		return out
	}
	tests := []struct {
		provisioned bool
		reasons     []throttle.Reason
		code        Code
		msg         string
	}{
		{prov, r("TableWriteKeyRangeThroughputExceeded"), ProvisionedThroughputExceededException, msgProvisionedTable},
		{prov, r("TableReadProvisionedThroughputExceeded", "IndexReadProvisionedThroughputExceeded"), ProvisionedThroughputExceededException, msgProvisionedTable},
		{prov, r("IndexWriteProvisionedThroughputExceeded"), ProvisionedThroughputExceededException, msgProvisionedIndex},
		{od, r("TableWriteKeyRangeThroughputExceeded"), ThrottlingException, msgOnDemandTable},
		{od, r("IndexWriteKeyRangeThroughputExceeded"), ThrottlingException, msgOnDemandIndex},
		{od, r("TableReadMaxOnDemandThroughputExceeded"), ThrottlingException, msgMaxOnDemand},
	}
	for _, tc := range tests {
		e := Throttled(tc.provisioned, tc.reasons)
		if e.Code != tc.code || e.Message != tc.msg || len(e.ThrottlingReasons) != len(tc.reasons) {
			t.Errorf("Throttled(%v, %v) = %s %q, want %s %q", tc.provisioned, tc.reasons, e.Code, e.Message, tc.code, tc.msg)
		}
	}
}
