package auth

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/access"
)

// Effect is what a resource-based policy says about one request.
type Effect int

// The outcomes of EvaluatePolicy.
const (
	NoStatement Effect = iota // no statement matches: allowed in the owner's account only
	Allowed                   // an Allow statement matches and no Deny does
	Denied                    // a Deny statement matches: explicit deny wins
)

// PolicyRequest is one request judged against a resource-based policy.
type PolicyRequest struct {
	Account   string // the caller's account; a service's: the account it acts for (aws:SourceAccount)
	AccessKey string // the caller's access key
	Action    string // "dynamodb:GetItem"
	Resource  string // the table's ARN
	// Service is the service principal making the request
	// ("replication.dynamodb.amazonaws.com"), "" for a credential's;
	// SourceArn is the resource it acts for (aws:SourceArn).
	Service, SourceArn string
}

// Principal returns the IAM principal a credential acts as: its account's
// root, as access keys without IAM users are.
func Principal(account string) string { return "arn:aws:iam::" + account + ":root" }

// statement is the subset of an IAM policy statement ddblocal evaluates.
type statement struct {
	Effect    string
	Principal json.RawMessage
	Action    stringList
	NotAction stringList
	Resource  stringList
	Condition json.RawMessage
}

// stringList is an IAM element that is a string or a list of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*l = []string{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return err
	}
	*l = ss
	return nil
}

// Policy is a parsed resource-based policy, ready to judge requests
// without parsing its JSON again. It is safe for concurrent use.
type Policy struct {
	stmts []parsedStatement
	bad   bool // the document is not a policy: it denies everything
}

// parsedStatement is a statement with its Principal decoded and its
// action patterns lower-cased.
type parsedStatement struct {
	statement
	anyone                    bool       // Principal "*"
	principals                stringList // Principal {"AWS": …}
	services                  stringList // Principal {"Service": …}
	conds                     []condition
	unknown                   bool // a Condition outside policy_condition.go's, NotPrincipal or NotResource: never allows
	notPrincipal, notResource bool
}

// ParsePolicy parses a policy document for Evaluate. A document that is not
// JSON, or whose statements are not objects, gives a Policy that denies
// every request.
func ParsePolicy(doc string) *Policy {
	var p struct {
		Statement json.RawMessage
	}
	if json.Unmarshal([]byte(doc), &p) != nil {
		return &Policy{bad: true}
	}
	var stmts []map[string]json.RawMessage
	raw := []byte(strings.TrimSpace(string(p.Statement)))
	if len(raw) > 0 && raw[0] == '{' {
		raw = append(append([]byte{'['}, raw...), ']')
	}
	if json.Unmarshal(raw, &stmts) != nil {
		return &Policy{bad: true}
	}
	out := &Policy{stmts: make([]parsedStatement, 0, len(stmts))}
	for _, m := range stmts {
		var st parsedStatement
		b, _ := json.Marshal(m)
		if json.Unmarshal(b, &st.statement) != nil {
			return &Policy{bad: true}
		}
		_, st.notPrincipal = m["NotPrincipal"]
		_, st.notResource = m["NotResource"]
		conds, known := parseConditions(st.Condition)
		st.conds = conds
		st.unknown = !known || st.notPrincipal || st.notResource
		var star string
		if json.Unmarshal(st.Principal, &star) == nil {
			st.anyone = star == "*"
		} else {
			var byKind map[string]stringList
			if json.Unmarshal(st.Principal, &byKind) == nil {
				st.principals, st.services = byKind["AWS"], byKind["Service"]
			}
		}
		for i, a := range st.Action {
			st.Action[i] = strings.ToLower(a)
		}
		for i, a := range st.NotAction {
			st.NotAction[i] = strings.ToLower(a)
		}
		out.stmts = append(out.stmts, st)
	}
	return out
}

// EvaluatePolicy judges req against the policy document doc; it is
// ParsePolicy(doc).Evaluate(req).
func EvaluatePolicy(doc string, req PolicyRequest) Effect {
	return ParsePolicy(doc).Evaluate(req)
}

// Evaluate judges req against p, evaluating this subset of IAM: Effect
// Allow or Deny; Principal "*", {"AWS": …} naming "*", the account ID,
// the account's root ARN or "arn:aws:iam::ACCOUNT:user/ACCESSKEY"
// (wildcards allowed), {"Service": …} naming req's service principal;
// Action or NotAction with * and ? wildcards, case-insensitive; Resource
// with wildcards; Condition with the string and ARN operators on the keys
// policy_condition.go lists. A statement with another Condition, a
// NotPrincipal or a NotResource is not understood: it never allows, and a
// Deny of that kind denies whenever its principal and action match. Any
// matching Deny wins.
func (p *Policy) Evaluate(req PolicyRequest) Effect {
	if p.bad {
		return Denied
	}
	action := strings.ToLower(req.Action)
	effect := NoStatement
	for i := range p.stmts {
		st := &p.stmts[i]
		matches := (st.notPrincipal || st.principalMatches(req)) && st.actionMatches(action) &&
			(st.notResource || anyGlob(st.Resource, req.Resource)) && (st.unknown || holds(st.conds, req))
		switch {
		case !matches:
		case st.Effect == "Deny":
			return Denied
		case st.Effect == "Allow" && !st.unknown:
			effect = Allowed
		}
	}
	return effect
}

// principalMatches reports whether st's Principal names req's caller: a
// service principal is named by "*" or by its name under "Service".
func (st *parsedStatement) principalMatches(req PolicyRequest) bool {
	if st.anyone {
		return true
	}
	if req.Service != "" {
		return slices.Contains(st.principals, "*") || slices.Contains(st.services, req.Service)
	}
	for _, p := range st.principals {
		if p == "*" || p == req.Account || glob(p, Principal(req.Account)) ||
			glob(p, "arn:aws:iam::"+req.Account+":user/"+req.AccessKey) {
			return true
		}
	}
	return false
}

// actionMatches reports whether st's Action (or NotAction) covers action,
// both lower-cased.
func (st *parsedStatement) actionMatches(action string) bool {
	if len(st.NotAction) > 0 {
		return !anyGlob(st.NotAction, action)
	}
	return anyGlob(st.Action, action)
}

func anyGlob(patterns []string, s string) bool {
	for _, p := range patterns {
		if glob(p, s) {
			return true
		}
	}
	return false
}

// glob matches s against an IAM pattern: * any run, ? any one byte.
func glob(p, s string) bool {
	// Iterative matching with one backtrack point, linear in practice.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi, mark = star+1, mark+1
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// TablePolicy is ParsePolicy in the form table.Options.Policies takes.
func TablePolicy(doc string) access.Policy { return tablePolicy{ParsePolicy(doc)} }

type tablePolicy struct{ p *Policy }

func (t tablePolicy) Evaluate(c access.Caller, resource string) access.PolicyEffect {
	switch t.p.Evaluate(PolicyRequest{Account: c.Account, AccessKey: c.AccessKey, Action: c.Action(), Resource: resource,
		Service: c.Service, SourceArn: c.SourceArn}) {
	case Allowed:
		return access.PolicyAllowed
	case Denied:
		return access.PolicyDenied
	}
	return access.PolicyNoStatement
}
