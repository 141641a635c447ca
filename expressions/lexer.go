package expressions

import "unicode/utf8"

// tokenType classifies a lexeme.
type tokenType uint8

const (
	tEOF     tokenType = iota
	tIdent             // attribute name, keyword or function name: [A-Za-z_][A-Za-z0-9_]*
	tName              // expression attribute name placeholder: #[A-Za-z0-9_]+
	tValue             // expression attribute value placeholder: :[A-Za-z0-9_]+
	tNumber            // list index: [0-9]+
	tPunct             // ( ) [ ] , . = <> < <= > >= + -
	tIllegal           // anything else; always a syntax error
)

// token is one lexeme with its byte offset in the expression.
type token struct {
	typ  tokenType
	text string
	pos  int
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// lex splits src into tokens, ending with a tEOF token positioned at len(src).
// It never fails: characters outside the grammar become tIllegal tokens so the
// parser can report them with DynamoDB's "Syntax error; token: ..." message.
func lex(src string) []token {
	toks := make([]token, 0, len(src)/3+2)
	i := 0
	for i < len(src) {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case isIdentStart(c):
			for i < len(src) && isIdentChar(src[i]) {
				i++
			}
			toks = append(toks, token{tIdent, src[start:i], start})
		case c >= '0' && c <= '9':
			for i < len(src) && src[i] >= '0' && src[i] <= '9' {
				i++
			}
			toks = append(toks, token{tNumber, src[start:i], start})
		case c == '#' || c == ':':
			i++
			for i < len(src) && isIdentChar(src[i]) {
				i++
			}
			typ := tName
			if c == ':' {
				typ = tValue
			}
			if i == start+1 {
				typ = tIllegal // a lone '#' or ':'
			}
			toks = append(toks, token{typ, src[start:i], start})
		case c == '<' || c == '>':
			i++
			if i < len(src) && (src[i] == '=' || (c == '<' && src[i] == '>')) {
				i++
			}
			toks = append(toks, token{tPunct, src[start:i], start})
		case c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == '.' || c == '=' || c == '+' || c == '-':
			i++
			toks = append(toks, token{tPunct, src[start:i], start})
		default:
			_, n := utf8.DecodeRuneInString(src[i:])
			i += n
			toks = append(toks, token{tIllegal, src[start:i], start})
		}
	}
	return append(toks, token{tEOF, "", len(src)})
}
