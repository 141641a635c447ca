package partiql

import "strings"

// tokenType classifies a lexeme.
type tokenType uint8

const (
	tEOF    tokenType = iota
	tIdent            // bare word: [A-Za-z_][A-Za-z0-9_$]*; keywords are bare words
	tQuoted           // "quoted identifier" ("" inside stands for one ")
	tString           // 'string literal' ('' inside stands for one ')
	tNumber           // 12, 1.5, .5, 1e-3
	tParam            // ?
	tPunct            // ( ) [ ] { } , . : ; * = <> != < <= > >= << >> + - / %
)

// token is one lexeme: text is the unescaped content for tQuoted and
// tString, the source text otherwise; pos is its byte offset.
type token struct {
	typ  tokenType
	text string
	pos  int
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// twoCharPuncts are the punctuation tokens two bytes long.
var twoCharPuncts = []string{"<>", "!=", "<=", ">=", "<<", ">>"}

// lex splits src into tokens ending with a tEOF token at len(src). Blanks,
// `-- line` and `/* block */` comments separate tokens. A character outside
// the grammar, an unterminated string, identifier or comment is an error
// with nothing after the well-formedness prefix, as DynamoDB reports it.
func lex(src string) ([]token, error) {
	toks := make([]token, 0, len(src)/4+2)
	for i := 0; i < len(src); {
		c, start := src[i], i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "--"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, syntaxErr(start, "")
			}
			i += end + 4
		case isIdentStart(c):
			for i < len(src) && isIdentChar(src[i]) {
				i++
			}
			toks = append(toks, token{tIdent, src[start:i], start})
		case c == '"' || c == '\'':
			text, n, ok := quoted(src[i:], c)
			if !ok {
				return nil, syntaxErr(start, "")
			}
			typ := tQuoted
			if c == '\'' {
				typ = tString
			}
			toks = append(toks, token{typ, text, start})
			i += n
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			i = scanNumber(src, i)
			toks = append(toks, token{tNumber, src[start:i], start})
		case c == '?':
			i++
			toks = append(toks, token{tParam, "?", start})
		default:
			n := punctLen(src[i:])
			if n == 0 {
				return nil, syntaxErr(start, "")
			}
			i += n
			toks = append(toks, token{tPunct, src[start:i], start})
		}
	}
	return append(toks, token{tEOF, "", len(src)}), nil
}

// quoted reads a q-quoted token at the start of s (a doubled q stands for
// one); it returns the content, the bytes consumed, and false if unterminated.
func quoted(s string, q byte) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), i + 1, true
	}
	return "", 0, false
}

// scanNumber returns the end of the number starting at i: digits, an
// optional fraction and an optional exponent (only when digits follow it,
// so that "1e" stays a number and a word).
func scanNumber(src string, i int) int {
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '.' {
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// punctLen is the length of the punctuation token at the start of s, 0 if none.
func punctLen(s string) int {
	for _, p := range twoCharPuncts {
		if strings.HasPrefix(s, p) {
			return 2
		}
	}
	if strings.IndexByte("()[]{},.:;*=<>+-/%", s[0]) >= 0 {
		return 1
	}
	return 0
}
