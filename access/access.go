// Package access holds who may reach which table: scopes (an account and a
// region), DynamoDB ARNs, the caller a request carries, and the contract a
// resource-based policy fulfils. It knows nothing of tables or storage.
package access

import (
	"context"
	"strings"
)

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

// SplitScope returns the account and region of a scope made by Scope.
func SplitScope(scope string) (account, region string) {
	if a, r, ok := strings.Cut(scope, scopeSep); ok {
		return a, r
	}
	return DefaultAccount, scope
}

// RegionOf returns the region of a scope made by Scope.
func RegionOf(scope string) string {
	_, r := SplitScope(scope)
	return r
}

// SameAccount reports whether an ARN that names account may be used by a
// caller in scope: only its own account's resources are visible.
func SameAccount(scope, account string) bool {
	a, _ := SplitScope(scope)
	return a == account
}

// SplitARN splits arn:PARTITION:dynamodb:REGION:ACCOUNT:RESOURCE into the
// scope it names (see Scope), its account and its resource part.
func SplitARN(arn string) (scope, account, resource string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", "", "", false
	}
	return Scope(parts[4], parts[3]), parts[4], parts[5], true
}

// ForeignARN reports whether s is a DynamoDB ARN of an account other than
// scope's, and if so returns the scope it names.
func ForeignARN(scope, s string) (string, bool) {
	if !strings.HasPrefix(s, "arn:") {
		return "", false
	}
	arnScope, account, _, ok := SplitARN(s)
	if !ok || SameAccount(scope, account) {
		return "", false
	}
	return arnScope, true
}

// Caller is who makes a request, as resource-based policies see it.
type Caller struct {
	Account   string
	AccessKey string
	Operation string // "GetItem"; the policy action is "dynamodb:GetItem"
	// Service is a service principal acting for the resource SourceArn of
	// Account ("replication.dynamodb.amazonaws.com" replicating a
	// multi-account global table), "" for a credential.
	Service, SourceArn string
}

// Action is the IAM action of c's operation.
func (c Caller) Action() string { return "dynamodb:" + c.Operation }

type callerKey struct{}

// WithCaller returns ctx carrying c: the Service then enforces tables'
// resource-based policies on c (when Options.Policies is set).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// Unpoliced returns ctx without its Caller: what is looked up with it is
// not judged by resource-based policies.
func Unpoliced(ctx context.Context) context.Context {
	return context.WithValue(ctx, callerKey{}, nil)
}

// PolicyEffect is what a resource-based policy says about one request.
type PolicyEffect int

// The effects a Policy returns.
const (
	PolicyNoStatement PolicyEffect = iota // nothing matches: the owner's account only
	PolicyAllowed                         // an Allow matches, no Deny does
	PolicyDenied                          // a Deny matches
)

// Policy is a parsed resource-based policy document.
type Policy interface {
	// Evaluate judges caller c's request on resource (an ARN).
	Evaluate(c Caller, resource string) PolicyEffect
}

// PolicyParser parses a policy document. The Service parses each stored
// revision once and keeps the result (table keeps the result per stored revision).
type PolicyParser func(doc string) Policy

// CrossAccount reports whether DynamoDB lets another account call op
// through a resource-based policy ("DynamoDB API operations supported by
// resource-based policies"). Any other operation on another account's
// resource is refused whatever the policy says.
func CrossAccount(op string) bool {
	switch op {
	case "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
		"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
		"DescribeTable", "UpdateTable", "DeleteTable",
		"TagResource", "UntagResource", "ListTagsOfResource",
		"DescribeStream", "GetShardIterator", "GetRecords":
		return true
	}
	return false
}

// CallerOf returns the Caller ctx carries, if any.
func CallerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
