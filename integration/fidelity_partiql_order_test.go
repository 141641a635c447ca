package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestPartiQLOrderingOperators: an ordering comparison in a WHERE refuses
// an operand whose type has no order (BOOL, NULL, lists, maps, sets),
// naming the operator as the statement wrote it (<, <=, >, >=, BETWEEN),
// whichever side the value is on; = and <> take every type; S against N
// and binaries (by their bytes) are ordered. As nubo-db/dynamodb-conformance
// pins it against the service (tests/tier2/partiql/comparison, eu-west-2).
func TestPartiQLOrderingOperators(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "POrd", false)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("POrd"), Item: map[string]types.AttributeValue{
		"pk": s("b"), "val": &types.AttributeValueMemberB{Value: []byte{1, 2, 3}}}}); err != nil {
		t.Fatal(err)
	}
	sel := func(cond string, params ...types.AttributeValue) (int, error) {
		out, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`SELECT pk FROM "POrd" WHERE pk = ? AND ` + cond), Parameters: append([]types.AttributeValue{s("b")}, params...)})
		if err != nil {
			return 0, err
		}
		return len(out.Items), nil
	}
	const wrong = "Incorrect operand type for operator or function; operator or function: "
	yes := &types.AttributeValueMemberBOOL{Value: true}
	for _, tc := range []struct {
		cond, op string
	}{
		{"val < ?", "<"}, {"val <= ?", "<="}, {"val > ?", ">"}, {"val >= ?", ">="},
		{"? < val", "<"}, {"? >= val", ">="},
	} {
		_, err := sel(tc.cond, yes)
		wantAPIError(t, err, "ValidationException", wrong+tc.op+", operand type: BOOL")
	}
	_, err := sel("val BETWEEN ? AND ?", yes, &types.AttributeValueMemberBOOL{Value: false})
	wantAPIError(t, err, "ValidationException", wrong+"BETWEEN, operand type: BOOL")
	unordered := []struct {
		typ string
		v   types.AttributeValue
	}{
		{"NULL", &types.AttributeValueMemberNULL{Value: true}},
		{"L", &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a")}}},
		{"M", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": s("b")}}},
		{"SS", &types.AttributeValueMemberSS{Value: []string{"a"}}},
		{"NS", &types.AttributeValueMemberNS{Value: []string{"1"}}},
		{"BS", &types.AttributeValueMemberBS{Value: [][]byte{{1}}}},
	}
	for _, u := range unordered {
		_, err := sel("val < ?", u.v)
		wantAPIError(t, err, "ValidationException", wrong+"<, operand type: "+u.typ)
		for cond, want := range map[string]int{"val = ?": 0, "val <> ?": 1} {
			if got, err := sel(cond, u.v); err != nil || got != want {
				t.Errorf("%s with %s: got %d items (%v), want %d", cond, u.typ, got, err, want)
			}
		}
	}
	for _, tc := range []struct {
		cond  string
		param types.AttributeValue
		want  int
	}{
		{"val < ?", n("5"), 0}, // S against N: ordered, never true
		{"val < ?", &types.AttributeValueMemberB{Value: []byte{1, 2, 4}}, 1},
		{"val > ?", &types.AttributeValueMemberB{Value: []byte{1, 2, 4}}, 0},
		{"val > ?", &types.AttributeValueMemberB{Value: []byte{1, 2}}, 1},
	} {
		if got, err := sel(tc.cond, tc.param); err != nil || got != tc.want {
			t.Errorf("%s with %v: got %d items (%v), want %d", tc.cond, tc.param, got, err, tc.want)
		}
	}
}
