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

// sameAccount reports whether an ARN that names account may be used by a
// caller in scope: only its own account's resources are visible.
func sameAccount(scope, account string) bool {
	a, _ := splitScope(scope)
	return a == account
}

// splitARN splits arn:PARTITION:dynamodb:REGION:ACCOUNT:RESOURCE into the
// scope it names (see Scope) and its resource part.
func splitARN(arn string) (scope, resource string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", "", false
	}
	return Scope(parts[4], parts[3]), parts[5], true
}

// arnScope returns the scope a table ARN names (its account and region).
func arnScope(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 {
		return ""
	}
	return Scope(parts[4], parts[3])
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

// PolicyEffect is what a resource-based policy says about one request.
type PolicyEffect int

// The effects a PolicyEvaluator returns.
const (
	PolicyNoStatement PolicyEffect = iota // nothing matches: the owner's account only
	PolicyAllowed                         // an Allow matches, no Deny does
	PolicyDenied                          // a Deny matches
)

// PolicyEvaluator judges caller c's request on resource (an ARN) against
// the policy document doc.
type PolicyEvaluator func(doc string, c Caller, resource string) PolicyEffect

// authorize checks a caller (from ctx) of scope against table m's
// resource-based policy: an explicit Deny refuses anyone, and a caller of
// another account needs an Allow. Without Options.Policies or a caller,
// nothing is checked.
func (s *Service) authorize(ctx context.Context, scope string, m *tableMeta) error {
	c, ok := ctx.Value(callerKey{}).(Caller)
	if s.opts.Policies == nil || !ok {
		return nil
	}
	owner, _ := splitScope(m.Region)
	cross := !sameAccount(scope, owner)
	p, has := m.Policies[""]
	if !has && !cross {
		return nil
	}
	effect := PolicyNoStatement
	if has {
		effect = s.opts.Policies(p.Document, c, m.arn())
	}
	who := "User: arn:aws:iam::" + c.Account + ":root is not authorized to perform: " + c.Action() + " on resource: " + m.arn()
	switch {
	case effect == PolicyDenied:
		return Errorf(AccessDeniedException, "%s with an explicit deny in a resource-based policy", who)
	case cross && effect != PolicyAllowed:
		return Errorf(AccessDeniedException, "%s because no resource-based policy allows the %s action", who, c.Action())
	}
	return nil
}
