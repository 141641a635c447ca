package api

import (
	"testing"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/auth"
)

// TestDefaultAccountsAgree: a caller without --credentials (auth's default
// account) must land in the scope tables stored before accounts existed.
func TestDefaultAccountsAgree(t *testing.T) {
	if got, want := access.Scope(auth.DefaultAccount, "us-east-1"), "us-east-1"; got != want {
		t.Fatalf("got scope %q, want %q", got, want)
	}
}
