package table

import (
	"context"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

func TestParseStreamARN(t *testing.T) {
	tests := []struct {
		arn                string
		scope, name, label string // scope as Scope makes it from the ARN's account and region
		ok                 bool
	}{
		{"arn:aws:dynamodb:us-east-1:000000000000:table/Orders/stream/2030-01-01T00:00:00.000", "us-east-1", "Orders", "2030-01-01T00:00:00.000", true},
		{"arn:aws:dynamodb:eu-west-1:123456789012:table/a.b-c/stream/L", "123456789012,eu-west-1", "a.b-c", "L", true},
		{"arn:aws:dynamodb:us-east-1:000000000000:table/Orders", "", "", "", false},
		{"arn:aws:dynamodb:us-east-1:000000000000:table//stream/L", "", "", "", false},
		{"arn:aws:s3:us-east-1:000000000000:table/T/stream/L", "", "", "", false},
		{"Orders", "", "", "", false},
	}
	for _, tc := range tests {
		r, n, l, ok := parseStreamARN(tc.arn)
		if ok != tc.ok || (ok && (r != tc.scope || n != tc.name || l != tc.label)) {
			t.Errorf("parseStreamARN(%q): got %q %q %q %v, want %q %q %q %v", tc.arn, r, n, l, ok, tc.scope, tc.name, tc.label, tc.ok)
		}
	}
}

// TestReenabledStreamGetsFreshLabel: a stream disabled and enabled again
// while the clock stands still gets a label, and so an ARN, of its own.
func TestReenabledStreamGetsFreshLabel(t *testing.T) {
	ctx := context.Background()
	s, _ := txService(t)
	on, off := true, false
	labels := map[string]bool{}
	for i, spec := range []*ddb.StreamSpecification{
		{StreamEnabled: &on, StreamViewType: "KEYS_ONLY"},
		{StreamEnabled: &off},
		{StreamEnabled: &on, StreamViewType: "KEYS_ONLY"},
		{StreamEnabled: &off},
		{StreamEnabled: &on, StreamViewType: "NEW_IMAGE"},
	} {
		out, err := s.UpdateTable(ctx, "r", &ddb.UpdateTableInput{TableName: "A", StreamSpecification: spec})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !*spec.StreamEnabled {
			continue
		}
		l := out.TableDescription.LatestStreamLabel
		if labels[l] {
			t.Fatalf("step %d: got label %s again, want a fresh one", i, l)
		}
		labels[l] = true
	}
	if got, want := len(labels), 3; got != want {
		t.Errorf("distinct labels: got %d, want %d", got, want)
	}
}
