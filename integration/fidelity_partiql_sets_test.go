package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestPartiQLBagDuplicates: a set literal with a member twice is refused
// wherever it is written (an INSERT's item, an UPDATE's SET, a WHERE, a
// transaction or a batch), as a set with duplicates is everywhere else in
// the API, in the words DynamoDB gives set_add's (paritysuite's
// conformance suite, partiqlFunctions: no position); numbers are compared
// as numbers, so <<1, 1.0>> is refused too; nothing is written.
func TestPartiQLBagDuplicates(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Bags", false)
	if _, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "Bags" VALUE {'pk': 'b', 's': <<'y', 'x'>>}`)}); err != nil {
		t.Fatal(err)
	}
	const dupX = "One or more parameter values were invalid: Input collection [x, x] contains duplicates."
	for _, tc := range []struct{ stmt, want string }{
		{`INSERT INTO "Bags" VALUE {'pk': 'a', 's': <<'x', 'x'>>}`, dupX},
		{`UPDATE "Bags" SET s = <<'x', 'x'>> WHERE pk = 'b'`, dupX},
		{`SELECT * FROM "Bags" WHERE pk = 'b' AND s = <<'x', 'x'>>`, dupX},
		{`INSERT INTO "Bags" VALUE {'pk': 'n', 'n': <<1, 1.0>>}`, ""},
		{`UPDATE "Bags" SET n = <<2, 20e-1>> WHERE pk = 'b'`, ""},
	} {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(tc.stmt)})
		if tc.want == "" {
			// A number set's duplicates in attr's words for number sets,
			// whichever layer's those are.
			if err == nil || !strings.Contains(err.Error(), "Input collection") || !strings.Contains(err.Error(), "contains duplicates") {
				t.Errorf("%s: got %v, want the duplicates refused", tc.stmt, err)
			}
			continue
		}
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	_, err := c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`INSERT INTO "Bags" VALUE {'pk': 't', 's': <<'x', 'x'>>}`)}}})
	if err == nil {
		t.Error("ExecuteTransaction stored a set with duplicates")
	}
	out, err := c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`INSERT INTO "Bags" VALUE {'pk': 'u', 's': <<'x', 'x'>>}`)}}})
	if err == nil && (len(out.Responses) != 1 || out.Responses[0].Error == nil) {
		t.Errorf("BatchExecuteStatement stored a set with duplicates: %+v", out.Responses)
	}
	for _, pk := range []string{"a", "n", "t", "u"} {
		wantItem(t, c, "Bags", map[string]types.AttributeValue{"pk": s(pk)}, "")
	}
	wantItem(t, c, "Bags", map[string]types.AttributeValue{"pk": s("b")}, `M{pk:S"b",s:SS["x" "y"]}`)
}
