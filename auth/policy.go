package auth

import (
	"encoding/json"
	"strings"

	"github.com/ddblocal/ddblocal/table"
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
	Account   string // the caller's account
	AccessKey string // the caller's access key
	Action    string // "dynamodb:GetItem"
	Resource  string // the table's ARN
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

// EvaluatePolicy judges req against the policy document doc, evaluating
// this subset of IAM: Effect Allow or Deny; Principal "*", {"AWS": …}
// naming "*", the account ID, the account's root ARN or
// "arn:aws:iam::ACCOUNT:user/ACCESSKEY" (wildcards allowed); Action or
// NotAction with * and ? wildcards, case-insensitive; Resource with
// wildcards. A statement with a Condition, a NotPrincipal or a
// NotResource is not understood: it never allows, and a Deny of that kind
// denies whenever its principal and action match. Any matching Deny wins.
// A document that is not JSON denies.
func EvaluatePolicy(doc string, req PolicyRequest) Effect {
	var p struct {
		Statement json.RawMessage
	}
	if json.Unmarshal([]byte(doc), &p) != nil {
		return Denied
	}
	var stmts []map[string]json.RawMessage
	raw := []byte(strings.TrimSpace(string(p.Statement)))
	if len(raw) > 0 && raw[0] == '{' {
		raw = append(append([]byte{'['}, raw...), ']')
	}
	if json.Unmarshal(raw, &stmts) != nil {
		return Denied
	}
	effect := NoStatement
	for _, m := range stmts {
		var st statement
		b, _ := json.Marshal(m)
		if json.Unmarshal(b, &st) != nil {
			return Denied
		}
		_, notPrincipal := m["NotPrincipal"]
		_, notResource := m["NotResource"]
		unknown := len(st.Condition) > 0 || notPrincipal || notResource
		matches := (notPrincipal || principalMatches(st.Principal, req)) && actionMatches(st, req.Action) &&
			(notResource || anyGlob(st.Resource, req.Resource, false))
		switch {
		case !matches:
		case st.Effect == "Deny":
			return Denied
		case st.Effect == "Allow" && !unknown:
			effect = Allowed
		}
	}
	return effect
}

// principalMatches reports whether a Principal element names req's caller.
func principalMatches(raw json.RawMessage, req PolicyRequest) bool {
	var star string
	if json.Unmarshal(raw, &star) == nil {
		return star == "*"
	}
	var m map[string]stringList
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	for _, p := range m["AWS"] {
		if p == "*" || p == req.Account || glob(p, Principal(req.Account), false) ||
			glob(p, "arn:aws:iam::"+req.Account+":user/"+req.AccessKey, false) {
			return true
		}
	}
	return false
}

// actionMatches reports whether st's Action (or NotAction) covers action.
func actionMatches(st statement, action string) bool {
	if len(st.NotAction) > 0 {
		return !anyGlob(st.NotAction, action, true)
	}
	return anyGlob(st.Action, action, true)
}

func anyGlob(patterns []string, s string, fold bool) bool {
	for _, p := range patterns {
		if glob(p, s, fold) {
			return true
		}
	}
	return false
}

// glob matches s against an IAM pattern: * any run, ? any one byte.
func glob(p, s string, fold bool) bool {
	if fold {
		p, s = strings.ToLower(p), strings.ToLower(s)
	}
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

// TablePolicy is EvaluatePolicy in the form table.Options.Policies takes.
func TablePolicy(doc string, c table.Caller, resource string) table.PolicyEffect {
	switch EvaluatePolicy(doc, PolicyRequest{Account: c.Account, AccessKey: c.AccessKey, Action: c.Action(), Resource: resource}) {
	case Allowed:
		return table.PolicyAllowed
	case Denied:
		return table.PolicyDenied
	}
	return table.PolicyNoStatement
}
