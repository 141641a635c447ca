package table

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

// splitScope returns the account and region of a scope made by Scope.
func splitScope(scope string) (account, region string) {
	if a, r, ok := strings.Cut(scope, scopeSep); ok {
		return a, r
	}
	return DefaultAccount, scope
}

// regionOf returns the region of a scope made by Scope.
func regionOf(scope string) string {
	_, r := splitScope(scope)
	return r
}

// sameAccount reports whether an ARN that names account may be used by a
// caller in scope: only its own account's resources are visible.
func sameAccount(scope, account string) bool {
	a, _ := splitScope(scope)
	return a == account
}

// splitARN splits arn:PARTITION:dynamodb:REGION:ACCOUNT:RESOURCE into the
// scope it names (see Scope), its account and its resource part.
func splitARN(arn string) (scope, account, resource string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", "", "", false
	}
	return Scope(parts[4], parts[3]), parts[4], parts[5], true
}

// foreignARN reports whether s is a DynamoDB ARN of an account other than
// scope's, and if so returns the scope it names.
func foreignARN(scope, s string) (string, bool) {
	if !strings.HasPrefix(s, "arn:") {
		return "", false
	}
	arnScope, account, _, ok := splitARN(s)
	if !ok || sameAccount(scope, account) {
		return "", false
	}
	return arnScope, true
}

// Caller is who makes a request, as resource-based policies see it.
type Caller struct {
	Account   string
	AccessKey string
	Operation string // "GetItem"; the policy action is "dynamodb:GetItem"
}

// Action is the IAM action of c's operation.
func (c Caller) Action() string { return "dynamodb:" + c.Operation }

type callerKey struct{}

// WithCaller returns ctx carrying c: the Service then enforces tables'
// resource-based policies on c (when Options.Policies is set).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// unpoliced returns ctx without its Caller: what is looked up with it is
// not judged by resource-based policies.
func unpoliced(ctx context.Context) context.Context {
	return context.WithValue(ctx, callerKey{}, nil)
}

// callerOf returns the Caller ctx carries, if policies are enforced.
func (s *Service) callerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && s.opts.Policies != nil
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
// revision once and keeps the result (see policyCache).
type PolicyParser func(doc string) Policy

// crossAccount reports whether DynamoDB lets another account call op
// through a resource-based policy ("DynamoDB API operations supported by
// resource-based policies"). Any other operation on another account's
// resource is refused whatever the policy says.
func crossAccount(op string) bool {
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

// authorize checks the caller (from ctx), whose scope is scope, against
// the resource-based policy stored under key (see policy.go: "" for the
// table, a stream's label for a stream) of table m, for resource, the ARN
// the request names (the table's, one of its indexes', or a stream's). An
// explicit Deny refuses anyone; a caller of another account needs an
// Allow, and an operation that supports cross-account access. m may be nil
// (a deleted table's stream): then nothing allows. Without
// Options.Policies or a caller, nothing is checked.
func (s *Service) authorize(ctx context.Context, scope string, m *tableMeta, key, resource string) error {
	c, ok := s.callerOf(ctx)
	if !ok {
		return nil
	}
	var p Policy
	owner := DefaultAccount
	if m != nil {
		owner, _ = splitScope(m.Region)
		p = s.policies.get(s.opts.Policies, m, key)
	} else if _, a, _, ok := splitARN(resource); ok {
		owner = a
	}
	cross := !sameAccount(scope, owner)
	if p == nil && !cross {
		return nil
	}
	effect := PolicyNoStatement
	if p != nil {
		effect = p.Evaluate(c, resource)
	}
	switch {
	case effect == PolicyDenied:
		return Errorf(AccessDeniedException, "%s with an explicit deny in a resource-based policy", notAuthorized(c, resource))
	case cross && (effect != PolicyAllowed || !crossAccount(c.Operation)):
		return denyCross(c, resource)
	}
	return nil
}

// notAuthorized starts every AccessDeniedException a policy causes.
func notAuthorized(c Caller, resource string) string {
	return "User: arn:aws:iam::" + c.Account + ":root is not authorized to perform: " + c.Action() + " on resource: " + resource
}

// denyCross is the AccessDeniedException of another account's resource
// that no resource-based policy opens to the caller.
func denyCross(c Caller, resource string) error {
	return Errorf(AccessDeniedException, "%s because no resource-based policy allows the %s action", notAuthorized(c, resource), c.Action())
}

// refuseForeign refuses a caller (from ctx) that names, by ARN, a resource
// of another account that cannot carry a resource-based policy (a
// backup): AccessDeniedException when policies are enforced, notFound
// otherwise (one account sees only its own). It returns nil for the
// caller's own resources and for ARNs that are not DynamoDB's.
func (s *Service) refuseForeign(ctx context.Context, scope, arn string, notFound error) error {
	if _, foreign := foreignARN(scope, arn); !foreign {
		return nil
	}
	if c, ok := s.callerOf(ctx); ok {
		return denyCross(c, arn)
	}
	return notFound
}
