package expressions

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// invalidCase is an expression of kind k that must fail with msg.
type invalidCase struct {
	k        kind
	src, msg string
}

// invalidSyntaxCases are empty, oversized and unparsable expressions.
func invalidSyntaxCases() []invalidCase {
	const (
		C = kindCondition
		F = kindFilter
		K = kindKeyCondition
		P = kindProjection
		U = kindUpdate
	)
	long := "a = :n" + strings.Repeat(" ", 4091)
	return []invalidCase{
		// Empty and oversized.
		{C, "", "Invalid ConditionExpression: The expression can not be empty;"},
		{U, "", "Invalid UpdateExpression: The expression can not be empty;"},
		{P, "", "Invalid ProjectionExpression: The expression can not be empty;"},
		{C, long, "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"},
		{U, "SET " + long, "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;"},
		// Syntax errors: token, and the text from the token before to the token after.
		{C, "a-b", `Invalid ConditionExpression: Syntax error; token: "-", near: "a-b"`},
		{F, "a-b", `Invalid FilterExpression: Syntax error; token: "-", near: "a-b"`},
		{K, "a-b", `Invalid KeyConditionExpression: Syntax error; token: "-", near: "a-b"`},
		{P, "a-b", `Invalid ProjectionExpression: Syntax error; token: "-", near: "a-b"`},
		{U, "INVALID SYNTAX HERE", `Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"`},
		{U, "ADD hits : incr", `Invalid UpdateExpression: Syntax error; token: ":", near: "hits : incr"`},
		{U, "SET a = :n, #, b = :n", `Invalid UpdateExpression: Syntax error; token: "#", near: ", #,"`},
		{U, "SET a", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "a"`},
		{U, "SET a = :n SET b = :n", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{U, "remove a REMOVE b", `Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;`},
		{U, "SET a = :n + :n + :n", `Invalid UpdateExpression: Syntax error; token: "+", near: ":n + :n"`},
		// Parentheses group at most one '+' or '-' per SET value.
		{U, "SET a = (:n + :n) + :n", `Invalid UpdateExpression: Syntax error; token: "+", near: ") + :n"`},
		{U, "SET a = :n + (:n - :n)", `Invalid UpdateExpression: Syntax error; token: "-", near: ":n - :n"`},
		{U, "SET a = (:n + :n", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ":n"`},
		{U, "SET a = if_not_exists(a, :n + :n)", `Invalid UpdateExpression: Syntax error; token: "+", near: ":n + :n"`},
		{U, "SET (a) = :n", `Invalid UpdateExpression: Syntax error; token: "(", near: "SET (a"`},
		{C, "size((a)) > :n", `Invalid ConditionExpression: Syntax error; token: "(", near: "((a"`},
		{U, "ADD a b", `Invalid UpdateExpression: Syntax error; token: "b", near: "a b"`},
		{U, "SET a = :n,", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","`},
		{C, "a = ", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "="`},
		{C, "a = = :n", `Invalid ConditionExpression: Syntax error; token: "=", near: "= = :n"`},
		{C, "a", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "a"`},
		{C, "(a = :n", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":n"`},
		{C, "a = :n)", `Invalid ConditionExpression: Syntax error; token: ")", near: ":n)"`},
		{C, "a BETWEEN :n OR :n", `Invalid ConditionExpression: Syntax error; token: "OR", near: ":n OR :n"`},
		{C, "a IN :n", `Invalid ConditionExpression: Syntax error; token: ":n", near: "IN :n"`},
		{C, "a IN ()", `Invalid ConditionExpression: Syntax error; token: ")", near: "()"`},
		{C, "a[x] = :n", `Invalid ConditionExpression: Syntax error; token: "x", near: "[x]"`},
		{C, "a[-1] = :n", `Invalid ConditionExpression: Syntax error; token: "-", near: "[-1"`},
		{C, "a. = :n", `Invalid ConditionExpression: Syntax error; token: "=", near: ". = :n"`},
		{C, "a = :n AND", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		{C, "AND = :n", `Invalid ConditionExpression: Syntax error; token: "AND", near: "AND ="`},
		{C, "a = :n b = :n", `Invalid ConditionExpression: Syntax error; token: "b", near: ":n b ="`},
		{C, "a == :n", `Invalid ConditionExpression: Syntax error; token: "=", near: "== :n"`},
		{C, "a ! :n", `Invalid ConditionExpression: Syntax error; token: "!", near: "a ! :n"`},
		{C, "é = :n", `Invalid ConditionExpression: Syntax error; token: "é", near: "é ="`},
		{C, "a[99999999999] = :n", `Invalid ConditionExpression: Syntax error; token: "99999999999", near: "[99999999999]"`},
		{P, "a,", `Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","`},
		{P, "a b", `Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"`},
	}
}

// invalidNameCases are reserved words, undefined placeholders and
// misused functions.
func invalidNameCases() []invalidCase {
	const (
		C = kindCondition
		F = kindFilter
		K = kindKeyCondition
		P = kindProjection
		U = kindUpdate
	)
	return []invalidCase{
		// Reserved words and placeholders.
		{C, "status = :n", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{P, "a, Name", "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: Name"},
		{U, "SET a.value = :n", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: value"},
		{C, "#zz = :n", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"},
		{C, "a = :zz", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{U, "SET a = :zz", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{P, "a.#zz", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"},
		{C, "a" + strings.Repeat(".a", 32) + " = :n", "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33"},
		// Functions.
		{C, "begins_with(a, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{F, "begins_with(a, :t)", "Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: BOOL"},
		{C, "begins_with(a)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"},
		{C, "attribute_exists(a, b)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{C, "attribute_exists(:n)", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
		{C, "attribute_type(a, :badt)", "Invalid ConditionExpression: Invalid attribute type name found; type: STRING, valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }"},
		{C, "attribute_type(a, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{C, "foo(a)", "Invalid ConditionExpression: Invalid function name; function: foo"},
		{C, "size(a)", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{C, "attribute_exists(a) = :t", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{C, "size(:n) > :n", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{C, "size(a, b) > :n", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"},
		{C, "list_append(a, :l) = :l", "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"},
		{C, "a < :t", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"},
		{C, "a BETWEEN :n10 AND :n", "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:5}"},
		{C, "a IN (" + strings.TrimSuffix(strings.Repeat(":n,", 101), ",") + ")", "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101"},
		{U, "SET a = :s + :n", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{U, "SET a = b - :l", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: L"},
		{U, "SET a = list_append(a, :s)", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
		{U, "SET a = if_not_exists(:n, :n)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{U, "SET a = if_not_exists(a)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{U, "SET a = attribute_exists(b)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: attribute_exists"},
		{U, "SET a = size(b)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
		{U, "SET a = nope(b)", "Invalid UpdateExpression: Invalid function name; function: nope"},
	}
}

// invalidOperandCases are operands of the wrong type or number, redundant
// parentheses and overlapping paths.
func invalidOperandCases() []invalidCase {
	const (
		C = kindCondition
		F = kindFilter
		K = kindKeyCondition
		P = kindProjection
		U = kindUpdate
	)
	return []invalidCase{
		{U, "ADD a :s", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
		{U, "DELETE a :n", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
		{C, "((a = :n))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{F, "a = :n AND ((b = :n OR c = :n))", "Invalid FilterExpression: The expression has redundant parentheses;"},
		{K, "( (a = :n) )", "Invalid KeyConditionExpression: The expression has redundant parentheses;"},
		{C, "((a = :n)", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ")"`},
		{C, "contains(a, #a)", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [a]"},
		{C, "a.b = a.b", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a, b]"},
		// Overlapping and conflicting paths.
		{U, "SET a = :n, a.b = :n", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{U, "SET a = :n REMOVE a", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{U, "SET a.b = :n REMOVE a[0]", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]"},
		{U, "SET #a = :n ADD a :one", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{P, "a.b, a", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
		{P, "a[1].c, a.d", "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [1], c], path two: [a, d]"},
	}
}

// TestInvalidExpressions asserts DynamoDB's exact message for each invalid
// expression, and that every error's position lies within the input or is -1.
func TestInvalidExpressions(t *testing.T) {
	tests := slices.Concat(invalidSyntaxCases(), invalidNameCases(), invalidOperandCases())
	if len(tests) < 60 {
		t.Fatalf("only %d cases", len(tests))
	}
	for _, tt := range tests {
		_, err := compileKind(t, tt.k, tt.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s %q: got error %v, want *Error %q", tt.k, tt.src, err, tt.msg)
			continue
		}
		if e.Msg != tt.msg {
			t.Errorf("%s %q:\n got %s\nwant %s", tt.k, tt.src, e.Msg, tt.msg)
		}
		if e.Pos < -1 || e.Pos > len(tt.src) {
			t.Errorf("%s %q: Pos %d outside the input", tt.k, tt.src, e.Pos)
		}
	}
}

// TestOperatorLimit checks DynamoDB's 300-operator limit: 300 operators and
// functions pass, the 301st is refused with "operator count: 301" however many
// follow, and parentheses, SET's '=' and clause words are not counted.
func TestOperatorLimit(t *testing.T) {
	// n comparisons joined by n-1 ORs, nested in parentheses as in
	// "a<b or (a<b or (...))": 2n-1 operators.
	nestedOr := func(n int) string {
		return "a<:n" + strings.Repeat(" OR (a<:n", n-1) + strings.Repeat(")", n-1)
	}
	nots := func(n int) string { return strings.Repeat("NOT ", n) + "a = :n" }
	// n SET actions of one '+' each: SET's '=' and the commas do not count.
	plus := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "a" + strconv.Itoa(i) + "=:n+:n"
		}
		return "SET " + strings.Join(parts, ",")
	}
	// n functions: size(a) compared needs 2 operators each, joined by ANDs.
	sizes := func(n int) string {
		return strings.TrimSuffix(strings.Repeat("size(a) > :n AND ", n), " AND ")
	}
	const tooMany = "The expression contains too many operators; operator count: 301"
	tests := []struct {
		k   kind
		src string
		ok  bool
	}{
		{kindCondition, nestedOr(150), true},  // 299
		{kindCondition, nestedOr(151), false}, // 301
		{kindFilter, nestedOr(300), false},    // 599, still reported as 301
		{kindCondition, nots(299), true},      // 299 NOTs + 1 comparison
		{kindCondition, nots(300), false},     // 301
		{kindUpdate, plus(300), true},         // 300 '+'
		{kindUpdate, plus(301), false},        // 301 '+'
		{kindFilter, sizes(100), true},        // 100 size + 100 '>' + 99 AND = 299
		{kindKeyCondition, nestedOr(151), false},
	}
	for _, tt := range tests {
		if len(tt.src) > maxExpressionSize {
			t.Fatalf("%s case is %d bytes, over the size limit it must not test", tt.k, len(tt.src))
		}
		_, err := compileKind(t, tt.k, tt.src)
		var e *Error
		isLimit := errors.As(err, &e) && strings.Contains(e.Msg, "too many operators")
		switch {
		case tt.ok && isLimit:
			t.Errorf("%s %.40q...: got %v, want no operator-limit error", tt.k, tt.src, err)
		case !tt.ok && (!isLimit || e.Msg != "Invalid "+string(tt.k)+": "+tooMany):
			t.Errorf("%s %.40q...: got %v, want %q", tt.k, tt.src, err, tooMany)
		}
	}
}
