package access

import "testing"

func TestScope(t *testing.T) {
	for _, tc := range []struct {
		account, region, scope string
		wantAccount            string
		arn                    string
	}{
		{DefaultAccount, "us-east-1", "us-east-1", DefaultAccount, "arn:aws:dynamodb:us-east-1:000000000000:table/T"},
		{"", "eu-west-2", "eu-west-2", DefaultAccount, "arn:aws:dynamodb:eu-west-2:000000000000:table/T"},
		{"111111111111", "us-east-1", "111111111111,us-east-1", "111111111111", "arn:aws:dynamodb:us-east-1:111111111111:table/T"},
	} {
		scope := Scope(tc.account, tc.region)
		if scope != tc.scope {
			t.Errorf("Scope(%q, %q): got %q, want %q", tc.account, tc.region, scope, tc.scope)
		}
		if a, r := SplitScope(scope); a != tc.wantAccount || r != tc.region {
			t.Errorf("SplitScope(%q): got %q, %q, want %q, %q", scope, a, r, tc.wantAccount, tc.region)
		}
		if _, foreign := ForeignARN(scope, tc.arn); foreign {
			t.Errorf("ForeignARN(%q, %q): got true, want false", scope, tc.arn)
		}
		if got, foreign := ForeignARN(Scope("999999999999", tc.region), tc.arn); !foreign || got != scope {
			t.Errorf("ForeignARN from another account of %q: got %q, %v, want %q, true", tc.arn, got, foreign, scope)
		}
	}
}
