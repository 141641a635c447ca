package partiql

import (
	"errors"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
)

// FuzzParse checks that no input panics the parser, that every error is an
// *Error positioned within the input, and that every statement it accepts
// renders to a canonical form that parses back to the same form.
func FuzzParse(f *testing.F) {
	for _, tc := range roundTrips {
		f.Add(tc.src)
	}
	for _, tc := range invalidStatements {
		f.Add(tc.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: error %T %v is not *Error", src, err, err)
			}
			if e.Pos < -1 || e.Pos > len(src) {
				t.Fatalf("%q: Pos %d outside [-1, %d]", src, e.Pos, len(src))
			}
			return
		}
		canon := s.String()
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not parse: %v", src, canon, err)
		}
		if got := again.String(); got != canon {
			t.Fatalf("%q: canonical form is not a fixed point:\n got %s\nwant %s", src, got, canon)
		}
	})
}

// FuzzPlan checks that planning any statement that parses never panics and
// refuses only with an *Error.
func FuzzPlan(f *testing.F) {
	for _, tc := range roundTrips {
		f.Add(tc.src)
	}
	f.Add(`SELECT * FROM t WHERE pk IN ['a', ?] AND sk BETWEEN 1 AND ? ORDER BY pk DESC`)
	f.Add(`UPDATE t SET a = set_add(a, <<?>>) WHERE pk = ? AND sk = 'x' AND b IS NOT NULL`)
	f.Fuzz(func(t *testing.T, src string) {
		st, n, err := parse(src)
		if err != nil {
			return
		}
		params := make([]attr.Value, n)
		for i := range params {
			params[i] = attr.String("p")
		}
		p := &prepared{stmt: st, bind: &binder{params: params}, schema: testSchema}
		var inputs []expressions.Input
		if sel, ok := st.(*Select); ok {
			var plan *readPlan
			if plan, err = planSelect(sel, testSchema, p.bind, nil, ""); err == nil {
				inputs = planInputs(plan)
			}
		} else {
			var w *writePlan
			if w, err = planWrite(p, ""); err == nil && w.cond != nil && *w.cond != "" {
				inputs = []expressions.Input{{ConditionExpression: w.cond, UpdateExpression: w.update, Names: w.names, Values: w.values}}
			}
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("%q: error %T %v is not *Error", src, err, err)
		}
		// What the planner writes is always well-formed expression text.
		for _, in := range inputs {
			_, err := expressions.Compile(in)
			if err != nil && (strings.Contains(err.Error(), "Syntax error") || strings.Contains(err.Error(), "redundant parentheses") ||
				strings.Contains(err.Error(), "unused") || strings.Contains(err.Error(), "undefined")) {
				t.Fatalf("%q: generated expressions refused: %v", src, err)
			}
		}
	})
}

// planInputs returns the expression parameters of a read plan's requests.
func planInputs(plan *readPlan) []expressions.Input {
	switch {
	case plan.get != nil:
		return []expressions.Input{{ProjectionExpression: plan.get.ProjectionExpression, Names: plan.get.ExpressionAttributeNames}}
	case plan.scan != nil:
		s := plan.scan
		return []expressions.Input{{FilterExpression: s.FilterExpression, ProjectionExpression: s.ProjectionExpression,
			Names: s.ExpressionAttributeNames, Values: s.ExpressionAttributeValues}}
	}
	var out []expressions.Input
	for _, q := range plan.queries {
		out = append(out, expressions.Input{KeyConditionExpression: q.KeyConditionExpression, FilterExpression: q.FilterExpression,
			ProjectionExpression: q.ProjectionExpression, Names: q.ExpressionAttributeNames, Values: q.ExpressionAttributeValues})
	}
	return out
}
