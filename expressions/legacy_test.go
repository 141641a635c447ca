package expressions

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func vp(v attr.Value) *attr.Value { return &v }

func TestLegacyExpected(t *testing.T) {
	item := attr.Item{"a": num("5"), "s": attr.String("abc"), "ss": attr.StringSet("x", "y")}
	f, tr := false, true
	tests := []struct {
		name string
		exp  map[string]ExpectedAttributeValue
		op   *string
		want bool
	}{
		{"value equal", map[string]ExpectedAttributeValue{"a": {Value: vp(num("5"))}}, nil, true},
		{"exists true", map[string]ExpectedAttributeValue{"a": {Value: vp(num("6")), Exists: &tr}}, nil, false},
		{"exists false", map[string]ExpectedAttributeValue{"gone": {Exists: &f}}, nil, true},
		{"EQ", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{num("5")}}}, nil, true},
		{"NE", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "NE", AttributeValueList: []attr.Value{num("5")}}}, nil, false},
		{"LT", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "LT", AttributeValueList: []attr.Value{num("6")}}}, nil, true},
		{"GE", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "GE", AttributeValueList: []attr.Value{num("6")}}}, nil, false},
		{"NOT_NULL", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "NOT_NULL"}}, nil, true},
		{"NULL", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "NULL"}}, nil, false},
		{"CONTAINS", map[string]ExpectedAttributeValue{"ss": {ComparisonOperator: "CONTAINS", AttributeValueList: []attr.Value{attr.String("x")}}}, nil, true},
		{"NOT_CONTAINS", map[string]ExpectedAttributeValue{"s": {ComparisonOperator: "NOT_CONTAINS", AttributeValueList: []attr.Value{attr.String("b")}}}, nil, false},
		{"BEGINS_WITH", map[string]ExpectedAttributeValue{"s": {ComparisonOperator: "BEGINS_WITH", AttributeValueList: []attr.Value{attr.String("ab")}}}, nil, true},
		{"IN", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "IN", AttributeValueList: []attr.Value{num("1"), num("5")}}}, nil, true},
		{"BETWEEN", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "BETWEEN", AttributeValueList: []attr.Value{num("1"), num("4")}}}, nil, false},
		{"Value as the list", map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "GT", Value: vp(num("4"))}}, nil, true},
		{"NOT_CONTAINS with Value", map[string]ExpectedAttributeValue{"ss": {ComparisonOperator: "NOT_CONTAINS", Value: vp(attr.String("z"))}}, nil, true},
		{"AND", map[string]ExpectedAttributeValue{"a": {Value: vp(num("5"))}, "s": {Value: vp(attr.String("no"))}}, nil, false},
		{"OR", map[string]ExpectedAttributeValue{"a": {Value: vp(num("5"))}, "s": {Value: vp(attr.String("no"))}}, ptr("OR"), true},
	}
	for _, tt := range tests {
		c, err := Compile(Input{Expected: tt.exp, ConditionalOperator: tt.op})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := c.Condition.Eval(item); got != tt.want {
			t.Errorf("%s: Eval = %v, want %v (condition %s)", tt.name, got, tt.want, c.Condition)
		}
	}
}

func TestLegacyErrors(t *testing.T) {
	f, tr := false, true
	tests := []struct {
		name string
		in   Input
		msg  string
	}{
		{"operator without values", Input{Expected: map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "EQ"}}},
			"One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
		{"arity with Value", Input{Expected: map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "BETWEEN", Value: vp(num("1"))}}},
			"One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		{"arity between", Input{ScanFilter: map[string]LegacyCondition{"a": {ComparisonOperator: "BETWEEN", AttributeValueList: []attr.Value{num("1")}}}},
			"One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		{"arity null", Input{QueryFilter: map[string]LegacyCondition{"a": {ComparisonOperator: "NULL", AttributeValueList: []attr.Value{num("1")}}}},
			"One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
		{"type", Input{ScanFilter: map[string]LegacyCondition{"a": {ComparisonOperator: "LT", AttributeValueList: []attr.Value{attr.Bool(true)}}}},
			"One or more parameter values were invalid: ComparisonOperator LT is not valid for BOOL AttributeValue type"},
		{"begins_with type", Input{ScanFilter: map[string]LegacyCondition{"a": {ComparisonOperator: "BEGINS_WITH", AttributeValueList: []attr.Value{num("1")}}}},
			"One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
		{"exists true no value", Input{Expected: map[string]ExpectedAttributeValue{"a": {Exists: &tr}}},
			"One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"},
		{"exists false with value", Input{Expected: map[string]ExpectedAttributeValue{"a": {Exists: &f, Value: vp(num("1"))}}},
			"One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a"},
		{"value with list", Input{Expected: map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "EQ", Value: vp(num("1")), AttributeValueList: []attr.Value{num("1")}}}},
			"One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: a"},
		{"exists with operator", Input{Expected: map[string]ExpectedAttributeValue{"a": {ComparisonOperator: "NULL", Exists: &f}}},
			"One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a"},
		{"list without operator", Input{Expected: map[string]ExpectedAttributeValue{"a": {Exists: &tr, AttributeValueList: []attr.Value{num("1")}}}},
			"One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: a"},
		{"neither value nor exists", Input{Expected: map[string]ExpectedAttributeValue{"a": {}}},
			"One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"},
		{"key not indexable", Input{KeyConditions: map[string]LegacyCondition{"a": {ComparisonOperator: "NE", AttributeValueList: []attr.Value{num("1")}}}},
			"Attempted conditional constraint is not an indexable operation"},
		{"put without value", Input{AttributeUpdates: map[string]AttributeValueUpdate{"a": {Action: "PUT"}}},
			"One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
		{"between reversed", Input{ScanFilter: map[string]LegacyCondition{"a": {ComparisonOperator: "BETWEEN", AttributeValueList: []attr.Value{num("10"), num("9")}}}},
			"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
		{"between reversed key", Input{KeyConditions: map[string]LegacyCondition{"a": {ComparisonOperator: "BETWEEN", AttributeValueList: []attr.Value{attr.String("b"), attr.String("a")}}}},
			"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
		{"add of a string", Input{AttributeUpdates: map[string]AttributeValueUpdate{"a": {Action: "ADD", Value: vp(attr.String("x"))}}},
			"One or more parameter values were invalid: Action ADD is not supported for the type S"},
		{"delete of a number", Input{AttributeUpdates: map[string]AttributeValueUpdate{"a": {Action: "DELETE", Value: vp(num("1"))}}},
			"One or more parameter values were invalid: Action DELETE is not supported for the type N"},
		{"bad conditional operator", Input{Expected: map[string]ExpectedAttributeValue{}, ConditionalOperator: ptr("XOR")},
			"1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.in)
		if err == nil || err.Error() != tt.msg {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.msg)
		}
	}
}

func TestLegacyKeyConditionsAndFilters(t *testing.T) {
	c, err := Compile(Input{
		KeyConditions: map[string]LegacyCondition{
			"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{attr.String("p")}},
			"sk": {ComparisonOperator: "BEGINS_WITH", AttributeValueList: []attr.Value{attr.String("x")}},
		},
		QueryFilter:     map[string]LegacyCondition{"f": {ComparisonOperator: "GT", AttributeValueList: []attr.Value{num("1")}}},
		AttributesToGet: []string{"pk", "f"},
	})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := c.KeyCondition.KeyCondition([]string{"pk"}, []string{"sk"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := terms(kc.Partition)+terms(kc.Sort), "[pk = 1][sk begins_with 1]"; got != want {
		t.Errorf("KeyCondition = %s, want %s", got, want)
	}
	item := attr.Item{"pk": attr.String("p"), "f": num("2"), "other": num("3")}
	if !c.Filter.Eval(item) {
		t.Errorf("Filter.Eval = false, want true")
	}
	if got, want := c.Projection.Apply(item), (attr.Item{"pk": attr.String("p"), "f": num("2")}); !attr.Equal(attr.Map(got), attr.Map(want)) {
		t.Errorf("Projection.Apply = %+v, want %+v", got, want)
	}
}

func TestLegacyAttributeUpdates(t *testing.T) {
	c, err := Compile(Input{AttributeUpdates: map[string]AttributeValueUpdate{
		"put":  {Action: "PUT", Value: vp(attr.String("v"))},
		"def":  {Value: vp(num("1"))},
		"n":    {Action: "ADD", Value: vp(num("2"))},
		"l":    {Action: "ADD", Value: vp(strs("b"))},
		"gone": {Action: "DELETE"},
		"ss":   {Action: "DELETE", Value: vp(attr.StringSet("x"))},
	}})
	if err != nil {
		t.Fatal(err)
	}
	old := attr.Item{"n": num("1"), "l": strs("a"), "gone": num("0"), "ss": attr.StringSet("x", "y")}
	got, err := c.Update.Apply(old)
	if err != nil {
		t.Fatal(err)
	}
	want := attr.Item{"put": attr.String("v"), "def": num("1"), "n": num("3"), "l": strs("a", "b"), "ss": attr.StringSet("y")}
	if !attr.Equal(attr.Map(got), attr.Map(want)) {
		t.Errorf("Apply = %+v, want %+v", got, want)
	}
}

// TestLegacyTypeMismatch: an AttributeUpdates ADD or DELETE whose value does
// not fit the stored attribute fails with the legacy API's own message,
// where an UpdateExpression's fails with the expression message.
func TestLegacyTypeMismatch(t *testing.T) {
	old := attr.Item{"ss": attr.StringSet("a"), "n": num("1")}
	tests := []struct {
		name string
		up   AttributeValueUpdate
		attr string
	}{
		{"add NS to SS", AttributeValueUpdate{Action: "ADD", Value: vp(ns(t, "2"))}, "ss"},
		{"add N to SS", AttributeValueUpdate{Action: "ADD", Value: vp(num("2"))}, "ss"},
		{"delete NS from SS", AttributeValueUpdate{Action: "DELETE", Value: vp(ns(t, "2"))}, "ss"},
		{"delete SS from N", AttributeValueUpdate{Action: "DELETE", Value: vp(attr.StringSet("a"))}, "n"},
	}
	for _, tt := range tests {
		c, err := Compile(Input{AttributeUpdates: map[string]AttributeValueUpdate{tt.attr: tt.up}})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if _, err := c.Update.Apply(old); err == nil || err.Error() != "Type mismatch for attribute to update" {
			t.Errorf("%s: got %v, want Type mismatch for attribute to update", tt.name, err)
		}
	}
	u := mustUpdateWith(t, "ADD ss :one")
	if _, err := u.Apply(old); err == nil || err.Error() != "An operand in the update expression has an incorrect data type" {
		t.Errorf("ADD expression: got %v, want the expression message", err)
	}
}

func TestLegacyConditionalOperatorCount(t *testing.T) {
	eq := LegacyCondition{ComparisonOperator: "EQ", AttributeValueList: []attr.Value{num("1")}}
	exp := ExpectedAttributeValue{Value: vp(num("1"))}
	const without, one = "ConditionalOperator cannot be used without Filter or Expected", "ConditionalOperator can only be used when Filter or Expected has two or more elements"
	tests := []struct {
		name string
		in   Input
		msg  string // "" accepts
	}{
		{"alone", Input{ConditionalOperator: ptr("AND")}, without},
		{"empty Expected", Input{ConditionalOperator: ptr("AND"), Expected: map[string]ExpectedAttributeValue{}}, without},
		{"key conditions only", Input{ConditionalOperator: ptr("OR"), KeyConditions: map[string]LegacyCondition{"k": eq}}, without},
		{"one Expected", Input{ConditionalOperator: ptr("OR"), Expected: map[string]ExpectedAttributeValue{"a": exp}}, one},
		{"one ScanFilter", Input{ConditionalOperator: ptr("AND"), ScanFilter: map[string]LegacyCondition{"a": eq}}, one},
		{"two QueryFilter", Input{ConditionalOperator: ptr("OR"), QueryFilter: map[string]LegacyCondition{"a": eq, "b": eq}}, ""},
		{"one Expected, no operator", Input{Expected: map[string]ExpectedAttributeValue{"a": exp}}, ""},
	}
	for _, tt := range tests {
		_, err := Compile(tt.in)
		if (tt.msg == "" && err != nil) || (tt.msg != "" && (err == nil || err.Error() != tt.msg)) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.msg)
		}
	}
}
