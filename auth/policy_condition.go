package auth

import (
	"encoding/json"
	"strings"
)

// condition is one test of a statement's Condition block: an operator
// ("StringEquals"), a condition key, lower-cased ("aws:sourceaccount"), and
// the values any of which may match.
type condition struct {
	op     string // the operator without its IfExists suffix
	ifNull bool   // IfExists: true when the key is absent
	key    string
	values []string
}

// parseConditions parses a statement's Condition block into the tests
// Evaluate understands; ok is false when it uses an operator or a key
// outside them (the statement is then not understood, as before
// conditions were evaluated).
func parseConditions(raw json.RawMessage) (conds []condition, ok bool) {
	if len(raw) == 0 {
		return nil, true
	}
	var block map[string]map[string]stringList
	if json.Unmarshal(raw, &block) != nil {
		return nil, false
	}
	for op, tests := range block {
		base, ifExists := strings.CutSuffix(op, "IfExists")
		if !knownOperator(base) {
			return nil, false
		}
		for key, values := range tests {
			key = strings.ToLower(key)
			if !knownConditionKey(key) {
				return nil, false
			}
			conds = append(conds, condition{op: base, ifNull: ifExists, key: key, values: values})
		}
	}
	return conds, true
}

// knownOperator reports whether Evaluate implements the condition operator
// op (without IfExists): the string and ARN operators.
func knownOperator(op string) bool {
	switch op {
	case "StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase",
		"StringLike", "StringNotLike", "ArnEquals", "ArnNotEquals", "ArnLike", "ArnNotLike":
		return true
	}
	return false
}

// knownConditionKey reports whether a request carries condition key k
// (lower-cased) when it applies: the caller's account, and for a service
// acting for a resource, the resource's account and ARN and the service's
// name.
func knownConditionKey(k string) bool {
	switch k {
	case "aws:principalaccount", "aws:sourceaccount", "aws:sourcearn", "aws:principalservicename":
		return true
	}
	return false
}

// contextValue returns the value of condition key k (lower-cased) in req,
// and whether req has it. A credential's request has aws:PrincipalAccount;
// a service principal's has aws:PrincipalServiceName and the account and
// ARN of the resource it acts for, aws:SourceAccount and aws:SourceArn.
func (req PolicyRequest) contextValue(k string) (string, bool) {
	service := req.Service != ""
	switch k {
	case "aws:principalaccount":
		return req.Account, !service
	case "aws:principalservicename":
		return req.Service, service
	case "aws:sourceaccount":
		return req.Account, service
	case "aws:sourcearn":
		return req.SourceArn, service && req.SourceArn != ""
	}
	return "", false
}

// holds reports whether every condition in conds holds for req: a positive
// operator needs the key present and one of its values matching, a
// negated one that none matches (an absent key satisfies it), and
// IfExists makes an absent key satisfy any operator.
func holds(conds []condition, req PolicyRequest) bool {
	for _, c := range conds {
		v, present := req.contextValue(c.key)
		negated := strings.Contains(c.op, "Not")
		switch {
		case !present:
			if !c.ifNull && !negated {
				return false
			}
		case c.anyMatches(v) == negated:
			return false
		}
	}
	return true
}

// anyMatches reports whether v matches one of c's values by c's operator,
// negation aside.
func (c condition) anyMatches(v string) bool {
	for _, want := range c.values {
		var ok bool
		switch c.op {
		case "StringEquals", "StringNotEquals":
			ok = want == v
		case "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase":
			ok = strings.EqualFold(want, v)
		default: // StringLike, ArnEquals, ArnLike and their negations take wildcards
			ok = glob(want, v)
		}
		if ok {
			return true
		}
	}
	return false
}
