package expressions

import (
	"fmt"
	"sort"
	"strings"
)

// Error is a ValidationException in DynamoDB's words, with the byte offset in the
// expression it concerns (-1 when not about a position). Error() returns Msg.
type Error struct {
	Msg string
	Pos int
}

// Error returns Msg, the text DynamoDB puts in the ValidationException's message.
func (e *Error) Error() string { return e.Msg }

// kind names an expression parameter; it prefixes that expression's errors
// ("Invalid UpdateExpression: ...").
type kind string

const (
	kindCondition    kind = "ConditionExpression"
	kindFilter       kind = "FilterExpression"
	kindKeyCondition kind = "KeyConditionExpression"
	kindProjection   kind = "ProjectionExpression"
	kindUpdate       kind = "UpdateExpression"
	// SearchVectors' condition on a vector index's search schema.
	kindSearchCondition kind = "SearchConditionExpression"
)

// errf builds an *Error prefixed with the expression kind, as DynamoDB prefixes
// every error that concerns one expression.
func (k kind) errf(pos int, format string, args ...any) *Error {
	return &Error{Msg: "Invalid " + string(k) + ": " + fmt.Sprintf(format, args...), Pos: pos}
}

// plainErr builds an *Error without a kind prefix (request-level checks).
func plainErr(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Pos: -1}
}

// syntaxErr is DynamoDB's parser error: the offending token, and the source text
// from the token before it to the token after it ("near").
func syntaxErr(k kind, src string, toks []token, i int) *Error {
	t := toks[i]
	text := t.text
	if t.typ == tEOF {
		text = "<EOF>"
	}
	start, end := t.pos, t.pos+len(t.text)
	if i > 0 {
		start = toks[i-1].pos
		if t.typ == tEOF { // "near" stops at the last real token, not trailing blanks
			end = start + len(toks[i-1].text)
		}
	}
	if i+1 < len(toks) && toks[i+1].typ != tEOF {
		end = toks[i+1].pos + len(toks[i+1].text)
	}
	pos := t.pos
	if pos > len(src) {
		pos = len(src)
	}
	return k.errf(pos, "Syntax error; token: \"%s\", near: \"%s\"", text, src[start:end])
}

// joinKeys renders a set of placeholder keys as DynamoDB does in its "unused"
// messages: "{:a, :b}". Sorted, so the message is deterministic.
func joinKeys(keys []string) string {
	sort.Strings(keys)
	return "{" + strings.Join(keys, ", ") + "}"
}
