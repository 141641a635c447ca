package partiql

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// testSchema is a table keyed pk/sk with a local index on lsk and a global
// index on g/gs.
var testSchema = &schema{table: "t", key: keys{part: []string{"pk"}, sort: "sk"}, indexes: map[string]indexKeys{
	"byLocal": {keys: keys{part: []string{"pk"}, sort: "lsk"}},
	"byG":     {keys: keys{part: []string{"g"}, sort: "gs"}, global: true},
	"byMulti": {keys: keys{part: []string{"g", "h"}}, global: true, multi: true},
}}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// TestPlanSelect checks that SELECT runs as DynamoDB runs it: GetItem for
// one whole table key and nothing else, a Query per partition fixed by
// equality or IN, a Scan otherwise, and the expressions each one gets.
func TestPlanSelect(t *testing.T) {
	for _, tc := range []struct {
		stmt            string
		kind            string // get, query, scan
		queries         int
		keyCond, filter string
		proj            string
	}{
		{`SELECT * FROM t WHERE pk = 'a' AND sk = 'b'`, "get", 0, "", "", "<nil>"},
		{`SELECT a.b, c FROM t WHERE 'b' = sk AND pk = 'a'`, "get", 0, "", "", "#n0.#n1, #n2"},
		{`SELECT * FROM t WHERE pk = 'a'`, "query", 1, "#n0 = :v0", "<nil>", "<nil>"},
		{`SELECT * FROM t WHERE pk IN ['a'] AND sk IN ('b')`, "get", 0, "", "", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' AND sk = 'b' AND x = 1`, "query", 1, "#n0 = :v0 AND #n1 = :v1", "#n2 = :v2", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' AND 'b' < sk`, "query", 1, "#n0 = :v0 AND #n1 > :v1", "<nil>", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' AND sk BETWEEN 'b' AND 'c' AND (x = 1 OR y <> 2)`, "query", 1,
			"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2", "(#n2 = :v3 OR #n3 <> :v4)", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' AND begins_with(sk, 'x') AND NOT contains(s, 'y')`, "query", 1,
			"#n0 = :v0 AND begins_with(#n1, :v1)", "NOT contains(#n2, :v2)", "<nil>"},
		{`SELECT * FROM t WHERE pk IN ['a', 'b', 'a']`, "query", 2, "#n0 = :v0", "<nil>", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' AND sk > 'b' AND sk < 'z'`, "scan", 0, "", "#n0 = :v0 AND #n1 > :v1 AND #n1 < :v2", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' OR pk = 'b' AND x = 1`, "query", 2, "#n0 = :v0", "<nil>", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' AND sk = '1' OR pk = 'a' AND sk = '2'`, "query", 2, "#n0 = :v0 AND #n1 = :v1", "<nil>", "<nil>"},
		{`SELECT * FROM t WHERE pk = 'a' OR x = 'b'`, "scan", 0, "", "#n0 = :v0 OR #n1 = :v1", "<nil>"},
		{`SELECT * FROM t WHERE sk = 'b'`, "scan", 0, "", "#n0 = :v0", "<nil>"},
		{`SELECT * FROM t`, "scan", 0, "", "<nil>", "<nil>"},
		{`SELECT * FROM t WHERE a IS NULL AND b IS NOT MISSING AND c IS STRING`, "scan", 0, "",
			"(attribute_not_exists(#n0) OR attribute_type(#n0, :v0)) AND attribute_exists(#n1) AND attribute_type(#n2, :v1)", "<nil>"},
		{`SELECT * FROM t."byG" WHERE g = 'x' AND gs = 'y'`, "query", 1, "#n0 = :v0 AND #n1 = :v1", "<nil>", "<nil>"},
		{`SELECT * FROM t."byLocal" WHERE pk = 'x' AND lsk >= 3`, "query", 1, "#n0 = :v0 AND #n1 >= :v1", "<nil>", "<nil>"},
		{`SELECT * FROM t."byG" WHERE pk = 'x'`, "scan", 0, "", "#n0 = :v0", "<nil>"},
	} {
		st, _, err := parse(tc.stmt)
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		plan, err := planSelect(st.(*Select), testSchema, &binder{}, nil, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		var kind, kc, filter, proj string
		switch {
		case plan.get != nil:
			kind, proj = "get", str(plan.get.ProjectionExpression)
		case plan.scan != nil:
			kind, filter, proj = "scan", str(plan.scan.FilterExpression), str(plan.scan.ProjectionExpression)
		default:
			q := plan.queries[0]
			kind, kc, filter, proj = "query", str(q.KeyConditionExpression), str(q.FilterExpression), str(q.ProjectionExpression)
		}
		if kind != tc.kind || len(plan.queries) != tc.queries || kc != tc.keyCond || filter != tc.filter || proj != tc.proj {
			t.Errorf("%s:\n got %s ×%d key %q filter %q projection %q\nwant %s ×%d key %q filter %q projection %q",
				tc.stmt, kind, len(plan.queries), kc, filter, proj, tc.kind, tc.queries, tc.keyCond, tc.filter, tc.proj)
		}
	}
}

// TestPlanWrite checks the item operation each write compiles to.
func TestPlanWrite(t *testing.T) {
	for _, tc := range []struct {
		stmt, update, cond, rv string
		key                    attr.Item
	}{
		{`INSERT INTO t VALUE {'pk': 'a', 'sk': 'b'}`, "<nil>", "attribute_not_exists(#n0)", "", nil},
		{`UPDATE t SET x = 1, y = y - 1 REMOVE z SET s = set_add(s, <<'q'>>) WHERE pk = 'a' AND sk = 'b' AND x <> 1 RETURNING MODIFIED NEW *`,
			"SET #n1 = :v0, #n2 = #n2 - :v1 REMOVE #n3 ADD #n4 :v2", "attribute_exists(#n0) AND #n1 <> :v3", "UPDATED_NEW",
			attr.Item{"pk": attr.String("a"), "sk": attr.String("b")}},
		{`FROM t WHERE pk = 'a' AND sk = 'b' SET x = 1`, "SET #n1 = :v0", "attribute_exists(#n0)", "",
			attr.Item{"pk": attr.String("a"), "sk": attr.String("b")}},
		{`DELETE FROM t WHERE sk IN ['b'] AND pk = 'a' RETURNING ALL OLD *`, "<nil>", "", "ALL_OLD",
			attr.Item{"pk": attr.String("a"), "sk": attr.String("b")}},
		{`DELETE FROM t WHERE sk = 'b' AND pk = 'a' AND (x = 1 OR y = 2)`, "<nil>", "attribute_not_exists(#n0) OR (#n1 = :v0 OR #n2 = :v1)", "",
			attr.Item{"pk": attr.String("a"), "sk": attr.String("b")}},
		{`EXISTS(SELECT * FROM t WHERE sk = 'b' AND pk = 'a' AND x IS MISSING)`, "<nil>", "attribute_exists(#n0) AND attribute_not_exists(#n1)", "",
			attr.Item{"pk": attr.String("a"), "sk": attr.String("b")}},
	} {
		st, _, err := parse(tc.stmt)
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		w, err := planWrite(&prepared{stmt: st, bind: &binder{}, schema: testSchema}, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		if got := str(w.update); got != tc.update {
			t.Errorf("%s: update got %q, want %q", tc.stmt, got, tc.update)
		}
		if got := str(w.cond); got != tc.cond || w.rv != tc.rv {
			t.Errorf("%s: condition %q return %q, want %q %q", tc.stmt, got, w.rv, tc.cond, tc.rv)
		}
		if tc.key != nil && !reflect.DeepEqual(w.key, tc.key) {
			t.Errorf("%s: key got %v, want %v", tc.stmt, w.key, tc.key)
		}
	}
}

// TestPlanErrors lists statements that parse but that DynamoDB refuses, with its messages.
func TestPlanErrors(t *testing.T) {
	for _, tc := range []struct {
		stmt, msg string
		params    []attr.Value
	}{
		{`UPDATE t SET a = 1 WHERE pk = 'a'`, msgIncompleteKey, nil},
		{`UPDATE t SET a = 1`, msgIncompleteKey, nil},
		{`FROM t SET c = 1`, msgIncompleteKey, nil},
		{`FROM t REMOVE a`, msgIncompleteKey, nil},
		{`FROM t WHERE a = 1 SET c = 1`, msgIncompleteKey, nil},
		{`DELETE FROM t WHERE pk = 'a' AND sk = 'b' AND sk = 'c'`, "Multiple conditions on same key sk. Only single item Update/Insert/Delete are supported", nil},
		{`DELETE FROM t WHERE pk = 'a' AND sk = 'b' RETURNING ALL NEW *`, "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements.", nil},
		{`INSERT INTO t VALUE ['pk']`, "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.", nil},
		{`INSERT INTO t VALUE ?`, "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.", []attr.Value{attr.String("x")}},
		{`INSERT INTO t VALUE {'pk': 'a', 'pk': 'b'}`, "Duplicate keys in tuple. Key: pk under root", nil},
		{`INSERT INTO t VALUE {'pk': 'a', 's': <<'x', 1>>}`, "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags", nil},
		{`INSERT INTO t VALUE {'pk': 'a', 'n': 123456789012345678901234567890123456789}`, "Attempting to store more than 38 significant digits in a Number under root", nil},
		{`INSERT INTO t VALUE {'pk': 'a', 'l': [1, 1e126]}`, "Number overflow. Attempting to store a number with magnitude larger than supported range under root[1]", nil},
		{`INSERT INTO t VALUE {'pk': 1e2147483648}`, malformedPrefix, nil},
		{`UPDATE t SET s = set_add(s, 'x') WHERE pk = 'a' AND sk = 'b'`, "The second argument to SET_ADD must be a value with type SET", nil},
		{`UPDATE t SET s = set_delete(s) WHERE pk = 'a' AND sk = 'b'`, "SET_DELETE must have exactly two arguments", nil},
		{`UPDATE t SET s = upper(s) WHERE pk = 'a' AND sk = 'b'`, "Unrecognized function: upper", nil},
		{`UPDATE t SET l = list_append() WHERE pk = 'a' AND sk = 'b'`, "Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 0", nil},
		{`DELETE FROM t WHERE pk = 'a' AND sk = 'b' AND begins_with()`, "Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 0", nil},
		{`EXISTS(SELECT * FROM t."byG" WHERE g = 'a' AND x = 1)`, "Operations on indices are not supported in transactions", nil},
	} {
		st, _, err := parse(tc.stmt)
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		_, err = planWrite(&prepared{stmt: st, bind: &binder{params: tc.params}, schema: testSchema}, "")
		checkMsg(t, tc.stmt, err, tc.msg)
	}
	for _, tc := range []struct{ stmt, msg string }{
		{`SELECT * FROM t WHERE a = MISSING`, "MISSING must be compared using IS operator"},
		{`SELECT * FROM t WHERE a + 1 = 2`, "Unsupported operator in Condition Expression. Operator: +"},
		{`SELECT * FROM t WHERE a`, "WHERE clause must contain an expression that resolves to a boolean"},
		{`SELECT * FROM t WHERE a IN []`, "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"},
		{`SELECT * FROM t WHERE a IS SEXP`, "Unsupported data type for IS operator: SEXP. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"},
		{`SELECT * FROM t WHERE 'a' IS MISSING`, "The left hand side argument to IS must be a Variable Reference, Literal, or Path"},
		{`SELECT * FROM t WHERE pk IN ['a', 'b'] ORDER BY sk`, "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause."},
		{`SELECT * FROM t."nope"`, "The table does not have the specified index"},
		{`SELECT * FROM t."byMulti" WHERE g = 'a' AND h = 'b'`, msgMultiIndex},
		{`SELECT * FROM t."byMulti" WHERE pk = 5 ORDER BY g`, msgMultiIndex},
		{`SELECT * FROM t."byMulti"`, msgMultiIndex},
		{`SELECT * FROM t WHERE pk = 'a' AND x = '1' OR pk = 'a' AND sk = '2'`, "Overlapping conditions with range keys are not supported in where clause"},
		{`SELECT * FROM t WHERE pk = 'a' AND x <> '1' OR pk = 'a' AND sk = '2'`, "Overlapping conditions with range keys are not supported in where clause"},
	} {
		st, _, err := parse(tc.stmt)
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		_, err = planSelect(st.(*Select), testSchema, &binder{}, nil, "")
		checkMsg(t, tc.stmt, err, tc.msg)
	}
	consistent := true
	st, _ := Parse(`SELECT * FROM t."byG" WHERE g = 'x'`)
	_, err := planSelect(st.(*Select), testSchema, &binder{}, &consistent, "")
	checkMsg(t, "consistent GSI read", err, "Strongly consistent read is not supported on Global Secondary Indexes")
}

func checkMsg(t *testing.T, what string, err error, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Msg != msg {
		t.Errorf("%s:\n got %v\nwant %q", what, err, msg)
	}
}
