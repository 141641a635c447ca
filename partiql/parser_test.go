package partiql

import (
	"errors"
	"testing"
)

// roundTrips are statements and their canonical forms.
var roundTrips = []struct{ src, want string }{
	{`SELECT * FROM Music`, `SELECT * FROM "Music"`},
	{`select a, b.c[2]."d e" from "Music"."byYear" where a = 'x' AND b > 3`,
		`SELECT "a", "b"."c"[2]."d e" FROM "Music"."byYear" WHERE "a" = 'x' AND "b" > 3`},
	{`SELECT * FROM t WHERE (a = 1 OR b = 2) AND NOT c <> ?`,
		`SELECT * FROM "t" WHERE ("a" = 1 OR "b" = 2) AND NOT "c" <> ?`},
	{`SELECT * FROM t WHERE a = 1 OR (b = 2 OR c = 3)`, `SELECT * FROM "t" WHERE "a" = 1 OR ("b" = 2 OR "c" = 3)`},
	{`SELECT * FROM t WHERE pk IN ['a', 'b'] AND sk BETWEEN 1 AND 5 ORDER BY sk DESC`,
		`SELECT * FROM "t" WHERE "pk" IN ['a', 'b'] AND "sk" BETWEEN 1 AND 5 ORDER BY "sk" DESC`},
	{`SELECT * FROM t WHERE pk IN ('a') AND x NOT IN [1] AND y NOT BETWEEN -1 AND 2e3`,
		`SELECT * FROM "t" WHERE "pk" IN ['a'] AND "x" NOT IN [1] AND "y" NOT BETWEEN -1 AND 2e3`},
	{`SELECT * FROM t WHERE a IS MISSING AND b is not null AND begins_with(c, 'it''s')`,
		`SELECT * FROM "t" WHERE "a" IS MISSING AND "b" IS NOT NULL AND begins_with("c", 'it''s')`},
	{`SELECT * FROM t WHERE size(a) > 2 AND attribute_type(b, 'S') AND contains(c, ?);`,
		`SELECT * FROM "t" WHERE size("a") > 2 AND attribute_type("b", 'S') AND contains("c", ?)`},
	{`INSERT INTO t VALUE {'pk': 'a', 'n': 1.5, 's': <<'x', 'y'>>, 'l': [true, null, {}], 'p': ?}`,
		`INSERT INTO "t" VALUE {'pk': 'a', 'n': 1.5, 's': <<'x', 'y'>>, 'l': [TRUE, NULL, {}], 'p': ?}`},
	{`UPDATE t SET a = a + 1, b = list_append(b, [1]) REMOVE c[0] SET d = set_add(d, <<1>>) WHERE pk = 'k' RETURNING MODIFIED NEW *`,
		`UPDATE "t" SET "a" = "a" + 1 SET "b" = list_append("b", [1]) REMOVE "c"[0] SET "d" = set_add("d", <<1>>) WHERE "pk" = 'k' RETURNING MODIFIED NEW *`},
	{`DELETE FROM t WHERE pk = 'k' AND x = -- comment
	  /* block */ 1 RETURNING ALL OLD *`, `DELETE FROM "t" WHERE "pk" = 'k' AND "x" = 1 RETURNING ALL OLD *`},
	{`from t where pk = 'k' set a = 1 remove b RETURNING ALL NEW *`, `FROM "t" WHERE "pk" = 'k' SET "a" = 1 REMOVE "b" RETURNING ALL NEW *`},
	{`FROM t SET a = 1`, `FROM "t" SET "a" = 1`},
	{`EXISTS(SELECT * FROM t WHERE pk = 'k' AND a IS MISSING)`, `EXISTS(SELECT * FROM "t" WHERE "pk" = 'k' AND "a" IS MISSING)`},
	{`SELECT * FROM t WHERE a - (b - 1) = 0 AND (a = b) = c`, `SELECT * FROM "t" WHERE "a" - ("b" - 1) = 0 AND ("a" = "b") = "c"`},
}

func TestParseRoundTrip(t *testing.T) {
	for _, tc := range roundTrips {
		s, err := Parse(tc.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.src, err)
		}
		if got := s.String(); got != tc.want {
			t.Errorf("Parse(%q).String():\n got %s\nwant %s", tc.src, got, tc.want)
		}
		again, err := Parse(tc.want)
		if err != nil {
			t.Fatalf("Parse(canonical %q): %v", tc.want, err)
		}
		if got := again.String(); got != tc.want {
			t.Errorf("canonical form is not a fixed point:\n got %s\nwant %s", got, tc.want)
		}
	}
}

// invalidStatements are statements DynamoDB refuses while parsing, with its messages.
var invalidStatements = []struct {
	src, msg string
	pos      int
}{
	{`SELECT * FROM t WHERE pk = 1 foo`, malformedPrefix + msgLeftover, 29},
	{`DELETE FROM t WHERE pk = 1 ORDER BY pk`, malformedPrefix + msgLeftover, 27},
	{`SELECT * FROM t ORDER BY pk WHERE pk = 1`, malformedPrefix + msgLeftover, 28},
	{`SELECT * FROM t WHERE pk = 1)`, malformedPrefix + msgLeftover, 28},
	{`FROM t SET c = 1 WHERE pk = 'x'`, malformedPrefix + msgLeftover, 17},
	{`FROM t SET c = 1 WHERE pk = 'x' SET d = 2`, malformedPrefix + msgLeftover, 17},
	{`INSERT INTO t x VALUE {'pk': 1}`, malformedPrefix + msgLeftover, 14},
	{`SELECT * FROM t WHERE`, malformedPrefix + msgTerm, 21},
	{`SELECT * FROM t WHERE;`, malformedPrefix + msgTerm, 21},
	{`SELECT * FROM t WHERE NOT`, malformedPrefix + msgTerm, 25},
	{`SELECT * FROM t WHERE (`, malformedPrefix + msgTerm, 23},
	{`UPDATE t SET a = 1 WHERE`, malformedPrefix + msgTerm, 24},
	{`SELECT * FROM`, malformedPrefix + msgTerm, 13},
	{`SELECT * FROM t WHERE pk = 'p1' AND`, malformedPrefix + msgMissingRight, 35},
	{`SELECT * FROM t WHERE pk = 'p1' OR`, malformedPrefix + msgMissingRight, 34},
	{`SELECT * FROM t WHERE ORDER BY pk`, malformedPrefix + msgKeyword, 22},
	{`SELECT * FROM t WHERE pk = 'a' AND x IS FOO`, malformedPrefix + msgTypeName, 40},
	{`SELECT * FROM t WHERE IS NULL`, malformedPrefix + msgOperator, 22},
	{`SELECT * FROM t WHERE pk = LIKE`, malformedPrefix + msgOperator, 27},
	{`DELETE FROM`, malformedPrefix + msgSimplePath, 11},
	{`DELETE FROM;`, malformedPrefix + msgSimplePath, 11},
	{`DELETE FROM WHERE pk = 'a'`, malformedPrefix + msgSimplePath, 12},
	{`SELECT * FROM t WHERE pk = 1 # note`, malformedPrefix, 29},
	{`SELECT * FROM t WHERE pk = 1 /* note`, malformedPrefix, 29},
	{`SELECT * FROM t WHERE pk = 'open`, malformedPrefix, 27},
	{`GRANT ALL`, malformedPrefix + msgNotDML, 0},
	{``, malformedPrefix + msgNotDML, 0},
	{`SELECT * FROM t x WHERE pk = 'x'`, msgAliasing, 16},
	{`SELECT * FROM t AS x WHERE pk = 'x'`, msgAliasing, 16},
	{`UPDATE t x SET a = 3 WHERE pk = 'x'`, msgAliasing, 9},
	{`DELETE FROM t x WHERE pk = 'x'`, msgAliasing, 14},
	{`SELECT * FROM a.b.c`, "A path may contain at most 2 components in the FROM clause", 17},
	{`UPDATE t SET a = 1 WHERE pk = 'k' RETURNING ALL OLD`, "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause", 51},
	{`INSERT INTO t VALUES {'pk': 1}`, "Unsupported operation: Inserting multiple items in a single statement is not supported, use \"INSERT INTO tableName VALUE item\" instead", 14},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range invalidStatements {
		_, err := Parse(tc.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q): got error %v, want *Error %q", tc.src, err, tc.msg)
			continue
		}
		if e.Msg != tc.msg || e.Pos != tc.pos {
			t.Errorf("Parse(%q):\n got %q at %d\nwant %q at %d", tc.src, e.Msg, e.Pos, tc.msg, tc.pos)
		}
	}
}
