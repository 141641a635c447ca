package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/access"
)

// countingPolicy is a Policy that remembers which document it was parsed from.
type countingPolicy struct{ doc string }

func (countingPolicy) Evaluate(access.Caller, string) access.PolicyEffect {
	return access.PolicyNoStatement
}

// TestPolicyCache: a stored policy is parsed once per table incarnation,
// key and revision; a new revision, a new document under a reused
// revision, or another table parses again.
func TestPolicyCache(t *testing.T) {
	parses := 0
	parse := func(doc string) access.Policy {
		parses++
		return countingPolicy{doc}
	}
	var pc policyCache
	m := &tableMeta{ID: "t1", Policies: map[string]resourcePolicy{"": {Document: "A", Revision: "1"}, "label": {Document: "S", Revision: "1"}}}
	for _, tc := range []struct {
		name       string
		m          *tableMeta
		key        string
		wantDoc    string
		wantParses int
	}{
		{"first", m, "", "A", 1},
		{"again", m, "", "A", 1},
		{"stream key", m, "label", "S", 2},
		{"new revision", &tableMeta{ID: "t1", Policies: map[string]resourcePolicy{"": {Document: "B", Revision: "2"}}}, "", "B", 3},
		{"reused revision, new document", &tableMeta{ID: "t1", Policies: map[string]resourcePolicy{"": {Document: "C", Revision: "2"}}}, "", "C", 4},
		{"other incarnation", &tableMeta{ID: "t2", Policies: map[string]resourcePolicy{"": {Document: "A", Revision: "1"}}}, "", "A", 5},
	} {
		got := pc.get(parse, tc.m, tc.key)
		if got == nil || got.(countingPolicy).doc != tc.wantDoc || parses != tc.wantParses {
			t.Errorf("%s: got %v after %d parses, want %s after %d", tc.name, got, parses, tc.wantDoc, tc.wantParses)
		}
	}
	if got := pc.get(parse, m, "none"); got != nil {
		t.Errorf("no policy: got %v, want nil", got)
	}
}
