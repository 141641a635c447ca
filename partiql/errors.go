// Package partiql is DynamoDB's PartiQL dialect compiled onto the table
// operations: a statement is lexed, parsed into a tree (every node carries its
// byte offset), and planned into the very request shapes GetItem, Query, Scan,
// PutItem, UpdateItem, DeleteItem, TransactGetItems and TransactWriteItems
// take, with the WHERE clause rendered as a condition expression. Evaluation,
// validation and capacity accounting are therefore the table package's, and
// the same for a statement as for its expression-API equivalent.
//
// Imports: api → partiql → table (and expressions and attr below it).
package partiql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/ddb"
)

// Error is a statement DynamoDB refuses, in DynamoDB's words, with the byte
// offset in the statement it concerns (-1 when it is not about a position).
// Most of DynamoDB's messages carry no position; those that do (Located)
// end in " at LINE:COLUMN:LENGTH", which locate adds once the statement's
// text is at hand.
type Error struct {
	Msg     string
	Pos     int
	Len     int  // the length, in characters, of the token a Located message points at
	Located bool // the message takes DynamoDB's position suffix
}

// Error returns Msg, the ValidationException's message.
func (e *Error) Error() string { return e.Msg }

// malformedPrefix starts every message about a statement that does not parse.
const malformedPrefix = "Statement wasn't well formed, can't be processed: "

// The parser's details after malformedPrefix, as DynamoDB words them.
const (
	msgLeftover      = "Unexpected token after expression"
	msgTerm          = "Unexpected term"
	msgKeyword       = "Unexpected keyword"
	msgOperator      = "Unexpected operator"
	msgMissingRight  = "Missing right-hand side expression of infix operator"
	msgNotDML        = "Expected data manipulation"
	msgSimplePath    = "Expected identifier for simple path"
	msgAliasing      = "Aliasing is not supported"
	msgTypeName      = "Expected type name"
	msgParamCount    = "Number of parameters in request and statement don't match."
	msgIncompleteKey = "Where clause does not contain a mandatory equality on all key attributes"
	msgDuplicate     = "Duplicate primary key exists in table"
	// msgEmptyComponent refuses a FROM naming "" as its table or index,
	// before the table is looked up (nubo-db/dynamodb-conformance,
	// tests/tier3/error-messages/partiqlIndexQualifier, eu-west-2).
	msgEmptyComponent = "Path component cannot be an empty string"
)

// syntaxErr is a parse error: the well-formedness prefix and a detail.
func syntaxErr(pos int, detail string) *Error {
	return &Error{Msg: malformedPrefix + detail, Pos: pos}
}

// semErr is an error about a statement that parsed, without the prefix.
func semErr(pos int, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Pos: pos}
}

// locErr is semErr for the messages DynamoDB ends with the position of the
// token (n characters long; -1: the name written there) at byte offset pos: "... at 1:24:7" (the
// service's answers in paritysuite/dynamodb-conformance's PartiQL captures).
func locErr(pos, n int, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Pos: pos, Len: n, Located: true}
}

// locate renders a Located *Error of statement src with its position:
// line and column counted from 1, in characters. Other errors are
// returned unchanged.
func locate(err error, src string) error {
	e, ok := err.(*Error)
	if !ok || !e.Located || e.Pos < 0 || e.Pos > len(src) {
		return err
	}
	n := e.Len
	if n < 0 {
		n = tokenLen(src[e.Pos:])
	}
	line, col := 1, 1
	for _, r := range src[:e.Pos] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &Error{Msg: fmt.Sprintf("%s at %d:%d:%d", e.Msg, line, col, n), Pos: e.Pos}
}

// tokenLen is the length in characters of the name that starts s: a
// "quoted" one with its quotes, or a bare word.
func tokenLen(s string) int {
	if strings.HasPrefix(s, `"`) {
		if end := strings.Index(s[1:], `"`); end >= 0 {
			return utf8.RuneCountInString(s[:end+2])
		}
	}
	n := 0
	for _, r := range s {
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		n++
	}
	return n
}

// DuplicateItemException is the code of an INSERT whose key already exists.
const DuplicateItemException ddb.Code = "DuplicateItemException"

// validation converts err to the *ddb.Error the api layer sends: an *Error
// becomes a ValidationException; anything else is returned unchanged.
func validation(err error) error {
	if e, ok := err.(*Error); ok {
		return &ddb.Error{Code: ddb.ValidationException, Message: e.Msg}
	}
	return err
}
