package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestPartiQLFunctionMessages: PartiQL's own messages for functions it
// refuses or restricts, with the position DynamoDB appends to some of them
// ("at LINE:COLUMN:LENGTH", counted in characters from 1).
func TestPartiQLFunctionMessages(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Fns", false)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Fns"), Item: map[string]types.AttributeValue{
		"pk": s("f"), "tags": &types.AttributeValueMemberSS{Value: []string{"red"}}, "word": s("w")}}); err != nil {
		t.Fatal(err)
	}
	// at is the position suffix of the n-th (from 0) occurrence of token in
	// stmt, length chars long.
	at := func(stmt, token string, nth, length int) string {
		i := -1
		for range nth + 1 {
			i += 1 + strings.Index(stmt[i+1:], token)
		}
		return fmt.Sprintf(" at 1:%d:%d", i+1, length)
	}
	sel := func(cond string) string { return `SELECT * FROM "Fns" WHERE pk = 'f' AND ` + cond }
	upd := func(set string) string { return `UPDATE "Fns" SET ` + set + ` WHERE pk = 'f'` }
	tests := []struct {
		stmt   string
		params []types.AttributeValue
		want   func(stmt string) string
	}{
		{sel("attribute_not_exists('tags')"), nil, func(string) string {
			return "Operator or function requires a document path; operator or function: attribute_not_exists"
		}},
		{sel("attribute_exists(?)"), []types.AttributeValue{s("tags")}, func(string) string {
			return "Operator or function requires a document path; operator or function: attribute_exists"
		}},
		{sel("attribute_not_exists(tags, word, pk)"), nil, func(string) string {
			return "Incorrect number of operands for operator or function; operator or function: attribute_not_exists, number of operands: 3"
		}},
		{`SELECT word, attribute_exists(tags) FROM "Fns" WHERE pk = 'f'`, nil, func(st string) string {
			return "Unexpected path component" + at(st, "attribute_exists", 0, 16)
		}},
		{sel("Exists(tags)"), nil, func(st string) string { return "Unrecognized function: exists" + at(st, "Exists", 0, 6) }},
		{sel("set_delete(tags, <<'red'>>) = tags"), nil, func(st string) string {
			return "Unrecognized function: set_delete" + at(st, "set_delete", 0, 10)
		}},
		{upd("word = set_add(tags, <<'blue'>>)"), nil, func(st string) string {
			return "The first argument to SET_ADD must equal the assignment value" + at(st, "set_add", 0, 7)
		}},
		{upd("tags = set_delete(tags)"), nil, func(st string) string {
			return "SET_DELETE must have exactly two arguments" + at(st, "set_delete", 0, 10)
		}},
		{upd("tags = set_add(tags, 7)"), nil, func(st string) string {
			return "The second argument to SET_ADD must be a value with type SET" + at(st, "tags", 1, 4)
		}},
		{upd(`"tags" = set_delete("tags", {'a': 1})`), nil, func(st string) string {
			return "The second argument to SET_DELETE must be a value with type SET" + at(st, `"tags"`, 1, 6)
		}},
		{upd("tags = set_add(tags, <<'blue', 'green', 'blue'>>)"), nil, func(string) string {
			return "One or more parameter values were invalid: Input collection [blue, green, blue] contains duplicates."
		}},
		{"INSERT INTO \"Fns\" VALUE {'pk': 'g',\n 'tags': set_add(<<'a'>>, <<'b'>>)}", nil, func(string) string {
			return "Unsupported data type: set_add under key root at 2:10:7"
		}},
	}
	for _, tt := range tests {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(tt.stmt), Parameters: tt.params})
		t.Run(tt.stmt, func(t *testing.T) { wantAPIError(t, err, "ValidationException", tt.want(tt.stmt)) })
	}
	wantItem(t, c, "Fns", map[string]types.AttributeValue{"pk": s("f")}, `M{pk:S"f",tags:SS["red"],word:S"w"}`)
}

// TestPartiQLParameterNumbers: a number given as a statement parameter is
// read as Java's BigDecimal reads a string: an exponent outside a 32-bit
// integer (or text that is no number) "cannot be converted", the text
// echoed, wherever the number sits in the parameter and in whichever
// statement position; the range check wraps in 32 bits (1e2147483647 is an
// underflow).
func TestPartiQLParameterNumbers(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Pnum", false)
	const unconv = "The parameter cannot be converted to a numeric value"
	stmts := []string{
		`SELECT * FROM "Pnum" WHERE pk = 'a' AND n = ?`,
		`INSERT INTO "Pnum" VALUE {'pk': 'b', 'n': ?}`,
		`UPDATE "Pnum" SET n = ? WHERE pk = 'a'`,
	}
	tests := []struct {
		param types.AttributeValue
		msg   string
	}{
		{n("1e99999999999"), unconv + ": 1e99999999999"},
		{n("-1E2147483648"), unconv + ": -1E2147483648"},
		{n("1e-2147483648"), unconv + ": 1e-2147483648"},
		{n("12.5.1"), unconv + ": 12.5.1"},
		{n(""), unconv},
		{n("1e2147483647"), "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{n("1e2147483646"), "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{n("1.5e126"), "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{n("2"), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": n("9e9999999999")}}}}, unconv + ": 9e9999999999"},
		{&types.AttributeValueMemberNS{Value: []string{"3", "abc"}}, unconv + ": abc"},
	}
	for _, st := range stmts {
		for _, tt := range tests {
			_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(st), Parameters: []types.AttributeValue{tt.param}})
			wantAPIError(t, err, "ValidationException", tt.msg)
		}
	}
	_, err := c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(stmts[2]), Parameters: []types.AttributeValue{n("5e-99999999999")}}}})
	wantAPIError(t, err, "ValidationException", unconv+": 5e-99999999999")
	// Numbers in range are read as any attribute value's.
	if _, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmts[1]),
		Parameters: []types.AttributeValue{n("1.50e2")}}); err != nil {
		t.Fatal(err)
	}
	wantItem(t, c, "Pnum", map[string]types.AttributeValue{"pk": s("b")}, `M{n:N150,pk:S"b"}`)
}

// TestPartiQLLiteralNumberPaths: a number literal breaking DynamoDB's rules
// is named from "root", which stands for each attribute of an INSERT's item
// (paths inside it follow); a literal whose exponent or scale does not fit
// 32 bits cannot even be parsed.
func TestPartiQLLiteralNumberPaths(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Lit", false)
	const over = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	tests := []struct{ stmt, msg string }{
		{`INSERT INTO "Lit" VALUE {'pk': 'a', 'n': -2e126}`, over + " under root"},
		{`INSERT INTO "Lit" VALUE {'pk': 'a', 'm': {'p': {'q': 3e200}}}`, over + " under root.p.q"},
		{`INSERT INTO "Lit" VALUE {'pk': 'a', 'm': {'l': [0, [5e130]]}}`, over + " under root.l[1][0]"},
		{`UPDATE "Lit" SET v = 2.5e-2147483647 WHERE pk = 'a'`, "Statement wasn't well formed, can't be processed: "},
	}
	for _, tt := range tests {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(tt.stmt)})
		t.Run(tt.stmt, func(t *testing.T) { wantAPIError(t, err, "ValidationException", tt.msg) })
	}
}
