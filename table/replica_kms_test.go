package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// TestKMSARN: a table's SSEDescription names its own key in its own Region
// and account: a key ARN as given, an alias or a key ID made an ARN there,
// and the stand-in for the AWS managed key when it names none.
func TestKMSARN(t *testing.T) {
	on := true
	for _, tc := range []struct{ key, want string }{
		{"", "arn:aws:kms:eu-west-1:222222222222:key/ddblocal"},
		{"1234abcd-12ab-34cd-56ef-1234567890ab", "arn:aws:kms:eu-west-1:222222222222:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
		{"alias/eu-key", "arn:aws:kms:eu-west-1:222222222222:alias/eu-key"},
		{"arn:aws:kms:eu-west-1:222222222222:key/k", "arn:aws:kms:eu-west-1:222222222222:key/k"},
	} {
		m := &tableMeta{Region: access.Scope("222222222222", "eu-west-1"), SSE: &ddb.SSESpecification{Enabled: &on, SSEType: "KMS", KMSMasterKeyId: tc.key}}
		if got := m.kmsARN(); got != tc.want {
			t.Errorf("KMSMasterKeyId %q: got %s, want %s", tc.key, got, tc.want)
		}
	}
	if got := (&tableMeta{Region: access.Scope("222222222222", "eu-west-1")}).kmsARN(); got != "arn:aws:kms:eu-west-1:222222222222:key/ddblocal" {
		t.Errorf("no SSESpecification: got %s", got)
	}
}
