package expressions

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func TestCompileRequestChecks(t *testing.T) {
	v := map[string]attr.Value{":v": num("1")}
	kc := map[string]LegacyCondition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{num("1")}}}
	tests := []struct {
		name string
		in   Input
		msg  string
	}{
		{"mixed", Input{ConditionExpression: ptr("a = :v"), Values: v, Expected: map[string]ExpectedAttributeValue{"a": {Value: &attr.Value{T: attr.TypeN, S: "1"}}}},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{"mixed many", Input{ProjectionExpression: ptr("a"), FilterExpression: ptr("b = :v"), Values: v, AttributesToGet: []string{"a"}, ScanFilter: map[string]LegacyCondition{}},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, ScanFilter} Expression parameters: {ProjectionExpression, FilterExpression}"},
		{"query: KeyConditions do not count without KeyConditionExpression", Input{Op: OpQuery, KeyConditions: kc, QueryFilter: map[string]LegacyCondition{}, ProjectionExpression: ptr("a")},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter} Expression parameters: {ProjectionExpression}"},
		{"query: every parameter", Input{Op: OpQuery, KeyConditions: kc, QueryFilter: map[string]LegacyCondition{}, AttributesToGet: []string{"a"}, ConditionalOperator: ptr("OR"),
			ProjectionExpression: ptr("a"), FilterExpression: ptr("b = :v"), KeyConditionExpression: ptr("pk = :v"), Values: v},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, QueryFilter, ConditionalOperator, KeyConditions} Expression parameters: {ProjectionExpression, FilterExpression, KeyConditionExpression}"},
		{"query: KeyConditions with KeyConditionExpression", Input{Op: OpQuery, KeyConditions: kc, KeyConditionExpression: ptr("pk = :v"), Values: v},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}"},
		{"scan: ConditionalOperator alone is legacy", Input{Op: OpScan, ConditionalOperator: ptr("AND"), FilterExpression: ptr("b = :v"), Values: v},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ConditionalOperator} Expression parameters: {FilterExpression}"},
		{"update: both kinds", Input{Op: OpUpdate, AttributeUpdates: map[string]AttributeValueUpdate{}, Expected: map[string]ExpectedAttributeValue{}, UpdateExpression: ptr("SET a = :v"), ConditionExpression: ptr("a = :v"), Values: v},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}"},
		{"query values with only a projection", Input{Op: OpQuery, KeyConditions: kc, ProjectionExpression: ptr("a"), Values: v},
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null"},
		{"update values without expression", Input{Op: OpUpdate, Values: v}, "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"},
		{"put values without expression", Input{Op: OpWrite, Values: v}, "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		{"scan values with only a projection", Input{Op: OpScan, ProjectionExpression: ptr("a"), Values: v}, "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"},
		{"names without expression", Input{Names: map[string]string{"#a": "a"}}, "ExpressionAttributeNames can only be specified when using expressions"},
		{"values without expression", Input{Values: v}, "ExpressionAttributeValues can only be specified when using expressions"},
		{"empty names", Input{ProjectionExpression: ptr("a"), Names: map[string]string{}}, "ExpressionAttributeNames must not be empty"},
		{"empty values", Input{ProjectionExpression: ptr("a"), Values: map[string]attr.Value{}}, "ExpressionAttributeValues must not be empty"},
		{"bad name key", Input{ProjectionExpression: ptr("a"), Names: map[string]string{"a": "a"}}, `ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		{"bad value key", Input{ConditionExpression: ptr("a = :v"), Values: map[string]attr.Value{"v": num("1")}}, `ExpressionAttributeValues contains invalid key: Syntax error; key: "v"`},
		{"unused names", Input{ProjectionExpression: ptr("#a"), Names: map[string]string{"#a": "a", "#c": "c", "#b": "b"}}, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b, #c}"},
		{"unused values", Input{ConditionExpression: ptr("a = :v"), Values: map[string]attr.Value{":v": num("1"), ":w": num("2")}}, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"},
		{"used across expressions", Input{ConditionExpression: ptr("#a = :v"), UpdateExpression: ptr("SET #b = :w"), Names: map[string]string{"#a": "a", "#b": "b", "#c": "c"}, Values: map[string]attr.Value{":v": num("1"), ":w": num("2")}},
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#c}"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.in)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: got %v, want *Error %q", tt.name, err, tt.msg)
			continue
		}
		if e.Msg != tt.msg || e.Pos != -1 {
			t.Errorf("%s: got (%q, %d), want (%q, -1)", tt.name, e.Msg, e.Pos, tt.msg)
		}
	}
}

func TestCompileFields(t *testing.T) {
	c, err := Compile(Input{
		KeyConditionExpression: ptr("pk = :v"),
		FilterExpression:       ptr("#a > :v"),
		ProjectionExpression:   ptr("#a, b"),
		Names:                  map[string]string{"#a": "a"},
		Values:                 map[string]attr.Value{":v": num("1")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.KeyCondition == nil || c.Filter == nil || c.Projection == nil || c.Condition != nil || c.Update != nil {
		t.Fatalf("got %+v, want KeyCondition, Filter and Projection only", c)
	}
	if got, want := c.Filter.TopLevelNames(), []string{"a"}; !equalStrings(got, want) {
		t.Errorf("Filter.TopLevelNames() = %v, want %v", got, want)
	}
	if got, want := c.Projection.TopLevelNames(), []string{"a", "b"}; !equalStrings(got, want) {
		t.Errorf("Projection.TopLevelNames() = %v, want %v", got, want)
	}
	none, err := Compile(Input{})
	if err != nil || *none != (Compiled{}) {
		t.Errorf("Compile(Input{}) = %+v, %v; want empty, nil", none, err)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCompileKeyConditionsWithExpressions: a Query may send the legacy
// KeyConditions with FilterExpression and ProjectionExpression (guregu/dynamo
// does); each is compiled from its own parameter.
func TestCompileKeyConditionsWithExpressions(t *testing.T) {
	c, err := Compile(Input{
		Op:                   OpQuery,
		KeyConditions:        map[string]LegacyCondition{"pk": {ComparisonOperator: "EQ", AttributeValueList: []attr.Value{num("1")}}},
		FilterExpression:     ptr("#a > :v"),
		ProjectionExpression: ptr("#a, b"),
		Names:                map[string]string{"#a": "a"},
		Values:               map[string]attr.Value{":v": num("2")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.KeyCondition == nil || c.Filter == nil || c.Projection == nil {
		t.Fatalf("got %+v, want KeyCondition, Filter and Projection", c)
	}
	if got, want := c.KeyCondition.String(), "pk = :legacy"; got != want {
		t.Errorf("KeyCondition = %q, want %q", got, want)
	}
	if got, want := c.Filter.TopLevelNames(), []string{"a"}; !equalStrings(got, want) {
		t.Errorf("Filter.TopLevelNames() = %v, want %v", got, want)
	}
}
