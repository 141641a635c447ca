package table

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
		if a, r := splitScope(scope); a != tc.wantAccount || r != tc.region {
			t.Errorf("splitScope(%q): got %q, %q, want %q, %q", scope, a, r, tc.wantAccount, tc.region)
		}
		if got := (&tableMeta{Region: scope, Name: "T"}).arn(); got != tc.arn {
			t.Errorf("arn in scope %q: got %q, want %q", scope, got, tc.arn)
		}
		if s, _, ok := parseTableARN(tc.arn); !ok || s != scope {
			t.Errorf("parseTableARN(%q): got scope %q, %v, want %q", tc.arn, s, ok, scope)
		}
		if _, foreign := foreignARN(scope, tc.arn); foreign {
			t.Errorf("foreignARN(%q, %q): got true, want false", scope, tc.arn)
		}
		if got, foreign := foreignARN(Scope("999999999999", tc.region), tc.arn); !foreign || got != scope {
			t.Errorf("foreignARN from another account of %q: got %q, %v, want %q, true", tc.arn, got, foreign, scope)
		}
	}
}
