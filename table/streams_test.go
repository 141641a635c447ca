package table

import "testing"

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
