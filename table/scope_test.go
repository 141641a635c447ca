package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/access"
)

// TestARNInScope checks that a table's ARN names its scope's account and
// region, and that parsing it gives the scope back.
func TestARNInScope(t *testing.T) {
	for _, tc := range []struct{ account, region, arn string }{
		{access.DefaultAccount, "us-east-1", "arn:aws:dynamodb:us-east-1:000000000000:table/T"},
		{"", "eu-west-2", "arn:aws:dynamodb:eu-west-2:000000000000:table/T"},
		{"111111111111", "us-east-1", "arn:aws:dynamodb:us-east-1:111111111111:table/T"},
	} {
		scope := access.Scope(tc.account, tc.region)
		if got := (&tableMeta{Region: scope, Name: "T"}).arn(); got != tc.arn {
			t.Errorf("arn in scope %q: got %q, want %q", scope, got, tc.arn)
		}
		if s, _, ok := parseTableARN(tc.arn); !ok || s != scope {
			t.Errorf("parseTableARN(%q): got scope %q, %v, want %q", tc.arn, s, ok, scope)
		}
	}
}
