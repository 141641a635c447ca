package table

import "strings"

// DefaultAccount is the account every table belongs to unless a caller
// says otherwise (DynamoDB Local's account, and ddblocal's without
// --credentials).
const DefaultAccount = "000000000000"

// scopeSep separates account and region in a scope. A region comes from a
// SigV4 credential scope, whose elements are separated by '/' and whose
// Authorization parameters by commas, so no verified region holds one.
const scopeSep = ","

// Scope returns the value every Service method takes as its region
// argument: the region for DefaultAccount (so that tables stored before
// accounts existed keep their keys), "ACCOUNT,REGION" for another account.
// Tables, tokens and ARNs are separated by scope: one account's tables are
// invisible to another.
func Scope(account, region string) string {
	if account == "" || account == DefaultAccount {
		return region
	}
	return account + scopeSep + region
}

// splitScope returns the account and region of a scope made by Scope.
func splitScope(scope string) (account, region string) {
	if a, r, ok := strings.Cut(scope, scopeSep); ok {
		return a, r
	}
	return DefaultAccount, scope
}

// sameAccount reports whether an ARN that names account may be used by a
// caller in scope: only its own account's resources are visible.
func sameAccount(scope, account string) bool {
	a, _ := splitScope(scope)
	return a == account
}
