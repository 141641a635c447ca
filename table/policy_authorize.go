package table

import (
	"context"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// callerOf returns the Caller ctx carries, if policies are enforced.
func (s *Service) callerOf(ctx context.Context) (access.Caller, bool) {
	c, ok := access.CallerOf(ctx)
	return c, ok && s.opts.Policies != nil
}

// authorize checks the caller (from ctx), whose scope is scope, against
// the resource-based policy stored under key (see policy_ops.go: "" for the
// table, a stream's label for a stream) of table m, for resource, the ARN
// the request names (the table's, one of its indexes', or a stream's). An
// explicit Deny refuses anyone; a caller of another account needs an
// Allow, and an operation that supports cross-account access. m may be nil
// (a deleted table's stream): then nothing allows. Without
// Options.Policies or a caller, nothing is checked.
func (s *Service) authorize(ctx context.Context, scope string, m *tableMeta, key, resource string) error {
	c, ok := s.callerOf(ctx)
	if !ok || !policed(scope, m, key) {
		return nil
	}
	var p access.Policy
	owner := access.DefaultAccount
	if m != nil {
		owner, _ = access.SplitScope(m.Region)
		p = s.policies.get(s.opts.Policies, m, key)
	} else if _, a, _, ok := access.SplitARN(resource); ok {
		owner = a
	}
	cross := !access.SameAccount(scope, owner)
	if p == nil && !cross {
		return nil
	}
	effect := access.PolicyNoStatement
	if p != nil {
		effect = p.Evaluate(c, resource)
	}
	switch {
	case effect == access.PolicyDenied:
		return ddb.Errorf(ddb.AccessDeniedException, "%s with an explicit deny in a resource-based policy", notAuthorized(c, resource))
	case cross && (effect != access.PolicyAllowed || !access.CrossAccount(c.Operation)):
		return denyCross(c, resource)
	}
	return nil
}

// policed reports whether authorize may refuse a caller of scope on m
// under policy key: m has a policy there, or belongs to another account,
// or is nil (a deleted table's stream, another account's missing table).
// Otherwise everyone is let through, and a caller's lookup of its own
// table need not build the ARN it would be judged on (the usual request
// with --credentials).
func policed(scope string, m *tableMeta, key string) bool {
	if m == nil {
		return true
	}
	if _, ok := m.Policies[key]; ok {
		return true
	}
	owner, _ := access.SplitScope(m.Region)
	return !access.SameAccount(scope, owner)
}

// notAuthorized starts every AccessDeniedException a policy causes.
func notAuthorized(c access.Caller, resource string) string {
	return "User: arn:aws:iam::" + c.Account + ":root is not authorized to perform: " + c.Action() + " on resource: " + resource
}

// denyCross is the AccessDeniedException of another account's resource
// that no resource-based policy opens to the caller.
func denyCross(c access.Caller, resource string) error {
	return ddb.Errorf(ddb.AccessDeniedException, "%s because no resource-based policy allows the %s action", notAuthorized(c, resource), c.Action())
}

// refuseForeign refuses a caller (from ctx) that names, by ARN, a resource
// of another account that cannot carry a resource-based policy (a
// backup): AccessDeniedException when policies are enforced, notFound
// otherwise (one account sees only its own). It returns nil for the
// caller's own resources and for ARNs that are not DynamoDB's.
func (s *Service) refuseForeign(ctx context.Context, scope, arn string, notFound error) error {
	if _, foreign := access.ForeignARN(scope, arn); !foreign {
		return nil
	}
	if c, ok := s.callerOf(ctx); ok {
		return denyCross(c, arn)
	}
	return notFound
}
