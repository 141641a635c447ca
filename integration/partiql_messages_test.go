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

// TestPartiQLMultiAttributeIndex: PartiQL refuses to read a global index
// whose key has several HASH or RANGE attributes (a BatchExecuteStatement
// fails only that statement, ahead of its key-only rule); the table itself
// and ordinary indexes stay readable, and a malformed statement or bad
// parameter is reported first.
func TestPartiQLMultiAttributeIndex(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "MultiIx", false, map[string]types.ScalarAttributeType{"h1": "S", "h2": "S", "r1": "S", "r2": "S"},
		[]types.GlobalSecondaryIndex{
			gsiDef("twoHash", []string{"h1", "h2"}, []string{"r1"}, types.ProjectionTypeAll),
			gsiDef("twoRange", []string{"h1"}, []string{"r1", "r2"}, types.ProjectionTypeAll),
			gsiDef("plain", []string{"h1"}, []string{"r1"}, types.ProjectionTypeAll),
		}, nil)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("MultiIx"), Item: map[string]types.AttributeValue{
		"pk": s("i"), "h1": s("a"), "h2": s("b"), "r1": s("c"), "r2": s("d")}}); err != nil {
		t.Fatal(err)
	}
	const refused = "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys."
	run := func(stmt string, params ...types.AttributeValue) error {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Parameters: params})
		return err
	}
	for _, st := range []string{
		`SELECT * FROM "MultiIx"."twoHash" WHERE h1 = 'a' AND h2 = 'b'`,
		`SELECT r1 FROM "MultiIx"."twoRange" WHERE h1 = 'a' ORDER BY r1`,
		`SELECT * FROM "MultiIx"."twoHash" WHERE pk = 'i'`,
		`SELECT * FROM "MultiIx"."twoRange"`,
	} {
		wantAPIError(t, run(st), "ValidationException", refused)
	}
	wantAPIError(t, run(`SELECT * FROM "MultiIx"."twoHash" WHERE`), "ValidationException", "Statement wasn't well formed, can't be processed: Unexpected term")
	wantAPIError(t, run(`SELECT * FROM "MultiIx"."twoHash" WHERE h1 = ?`, n("7e99999999999")), "ValidationException",
		"The parameter cannot be converted to a numeric value: 7e99999999999")
	for _, st := range []string{`SELECT * FROM "MultiIx"."plain" WHERE h1 = 'a'`, `SELECT * FROM "MultiIx" WHERE pk = 'i'`} {
		if err := run(st); err != nil {
			t.Errorf("%s: %v", st, err)
		}
	}
	b, err := c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`SELECT * FROM "MultiIx"."twoHash" WHERE h1 = 'a' AND h2 = 'b' AND r1 = 'c'`)},
		{Statement: aws.String(`SELECT * FROM "MultiIx"."plain" WHERE h1 = 'a' AND r1 = 'c'`)},
		{Statement: aws.String(`SELECT * FROM "MultiIx" WHERE pk = 'i'`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Responses
	if len(r) != 3 || r[0].Error == nil || aws.ToString(r[0].Error.Message) != refused || r[0].Error.Code != types.BatchStatementErrorCodeEnumValidationError ||
		r[1].Error == nil || aws.ToString(r[1].Error.Message) != "Select statements within BatchExecuteStatement must specify the primary key in the where clause." ||
		r[2].Error != nil || r[2].Item == nil {
		t.Errorf("batch: got %s", dump(r))
	}
}
