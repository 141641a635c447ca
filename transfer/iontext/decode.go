package iontext

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/attr"
)

// maxDepth bounds nesting while parsing, before attr's own 32-level rule
// applies, so a hostile line cannot exhaust the stack.
const maxDepth = 64

// SyntaxError is an error at a byte offset of the parsed text.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("ion: offset %d: %s", e.Offset, e.Msg) }

// DecodeLine parses one line of an Ion export or import file: optional
// $ion_1_0 version markers, then a struct holding the record's top-level
// fields ({Item:{...}} or Metadata/Keys/NewImage/OldImage). It returns the
// top-level struct's members, each decoded as a DynamoDB value.
//
// Grammar (the subset read; whitespace and // or /* */ comments anywhere):
//
//	line     = { "$ion_1_0" } struct
//	value    = { symbol "::" } ( struct | list | blob | string | number | bool | null )
//	struct   = "{" [ field ":" value { "," field ":" value } [","] ] "}"
//	list     = "[" [ value { "," value } [","] ] "]"
//	field    = identifier | 'quoted symbol' | "string"
//	blob     = "{{" base64 "}}"
//	string   = "…" | '''…''' { '''…''' }
//	number   = int | decimal | float, with _ between digits, 0x… and 0b… ints
func DecodeLine(b []byte) (map[string]attr.Value, error) {
	p := &parser{b: b}
	for {
		p.ws()
		if !p.hasPrefix("$ion_1_0") {
			break
		}
		p.i += len("$ion_1_0")
	}
	if p.peek() != '{' {
		return nil, p.fail("want a struct")
	}
	m, err := p.structure(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, p.fail("unexpected text after the struct")
	}
	return m, nil
}

// parser reads Ion text from b at i.
type parser struct {
	b []byte
	i int
}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.i, Msg: msg} }

func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *parser) hasPrefix(s string) bool { return strings.HasPrefix(string(p.b[p.i:]), s) }

// ws skips whitespace and comments.
func (p *parser) ws() {
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			p.i++
		case p.hasPrefix("//"):
			for p.i < len(p.b) && p.b[p.i] != '\n' {
				p.i++
			}
		case p.hasPrefix("/*"):
			end := strings.Index(string(p.b[p.i+2:]), "*/")
			if end < 0 {
				p.i = len(p.b)
				return
			}
			p.i += 2 + end + 2
		default:
			return
		}
	}
}

// value parses annotations and one value, inside depth containers.
func (p *parser) value(depth int) (attr.Value, error) {
	if depth > maxDepth {
		return attr.Value{}, p.fail("nested too deeply")
	}
	ann, err := p.annotations()
	if err != nil {
		return attr.Value{}, err
	}
	p.ws()
	if ann != "" {
		if p.peek() != '[' {
			return attr.Value{}, p.fail("annotation " + ann + " on a value that is not a list")
		}
		return p.set(ann, depth)
	}
	switch c := p.peek(); {
	case p.hasPrefix("{{"):
		b, err := p.blob()
		return attr.Binary(b), err
	case c == '{':
		m, err := p.structure(depth + 1)
		return attr.Map(m), err
	case c == '[':
		l, err := p.list(depth + 1)
		return attr.List(l), err
	case c == '"' || p.hasPrefix("'''"):
		s, err := p.text()
		return attr.String(s), err
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return p.keyword()
}

// annotations reads "sym::" prefixes; only the set annotations mean
// anything, and at most one may appear.
func (p *parser) annotations() (string, error) {
	ann := ""
	for {
		p.ws()
		start := p.i
		sym, ok := p.symbol()
		if !ok {
			p.i = start
			return ann, nil
		}
		p.ws()
		if !p.hasPrefix("::") {
			p.i = start
			return ann, nil
		}
		p.i += 2
		if ann != "" || (sym != annSS && sym != annNS && sym != annBS) {
			p.i = start
			return "", p.fail("unsupported annotation " + sym)
		}
		ann = sym
	}
}

// keyword reads true, false, null and null.TYPE; any other symbol is a
// value DynamoDB has no type for.
func (p *parser) keyword() (attr.Value, error) {
	start := p.i
	sym, ok := p.symbol()
	switch {
	case !ok:
		return attr.Value{}, p.fail("want a value")
	case sym == "true" || sym == "false":
		return attr.Bool(sym == "true"), nil
	case sym == "null":
		if p.peek() == '.' {
			p.i++
			if _, ok := p.symbol(); !ok {
				return attr.Value{}, p.fail("want a type after null.")
			}
		}
		return attr.Null(), nil
	}
	p.i = start
	return attr.Value{}, p.fail("unsupported value " + sym)
}

// symbol reads an identifier or a 'quoted symbol'.
func (p *parser) symbol() (string, bool) {
	if p.peek() == '\'' && !p.hasPrefix("'''") {
		s, err := p.quoted('\'')
		return s, err == nil
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (p.i > start && c >= '0' && c <= '9') {
			p.i++
			continue
		}
		break
	}
	return string(p.b[start:p.i]), p.i > start
}

// structure reads a struct into a map; a repeated field keeps the last.
func (p *parser) structure(depth int) (map[string]attr.Value, error) {
	p.i++ // {
	m := map[string]attr.Value{}
	err := p.sequence('}', func() error {
		var name string
		var err error
		if p.peek() == '"' || p.hasPrefix("'''") {
			name, err = p.text()
		} else if n, ok := p.symbol(); ok {
			name = n
		} else {
			err = p.fail("want a field name")
		}
		if err != nil {
			return err
		}
		p.ws()
		if p.peek() != ':' || p.hasPrefix("::") {
			return p.fail("want ':' after field name")
		}
		p.i++
		v, err := p.value(depth)
		m[name] = v
		return err
	})
	return m, err
}

// list reads a list's values.
func (p *parser) list(depth int) ([]attr.Value, error) {
	p.i++ // [
	l := []attr.Value{}
	err := p.sequence(']', func() error {
		v, err := p.value(depth)
		l = append(l, v)
		return err
	})
	return l, err
}

// sequence reads comma-separated elements up to the closing byte.
func (p *parser) sequence(closing byte, elem func() error) error {
	for {
		p.ws()
		if p.peek() == closing {
			p.i++
			return nil
		}
		if err := elem(); err != nil {
			return err
		}
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
		case closing:
		default:
			return p.fail(fmt.Sprintf("want ',' or '%c'", closing))
		}
	}
}

// set reads an annotated list as SS, NS or BS.
func (p *parser) set(ann string, depth int) (attr.Value, error) {
	at := p.i
	l, err := p.list(depth + 1)
	if err != nil {
		return attr.Value{}, err
	}
	want := map[string]attr.Type{annSS: attr.TypeS, annNS: attr.TypeN, annBS: attr.TypeB}[ann]
	var ss []string
	var bs [][]byte
	for _, v := range l {
		if v.T != want {
			return attr.Value{}, &SyntaxError{Offset: at, Msg: ann + " holds a value of another type"}
		}
		ss, bs = append(ss, v.S), append(bs, v.B)
	}
	v := attr.BinarySet(bs...)
	switch want {
	case attr.TypeS:
		v = attr.StringSet(ss...)
	case attr.TypeN:
		if v, err = attr.NumberSet(ss...); err != nil {
			return attr.Value{}, &SyntaxError{Offset: at, Msg: err.Error()}
		}
	}
	if err := v.Validate(); err != nil {
		return attr.Value{}, &SyntaxError{Offset: at, Msg: err.Error()}
	}
	return v, nil
}

// blob reads {{ base64 }}.
func (p *parser) blob() ([]byte, error) {
	p.i += 2
	end := strings.Index(string(p.b[p.i:]), "}}")
	if end < 0 {
		return nil, p.fail("unterminated blob")
	}
	raw := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' {
			return -1
		}
		return r
	}, string(p.b[p.i:p.i+end]))
	if strings.HasPrefix(raw, `"`) || strings.HasPrefix(raw, `'''`) {
		return nil, p.fail("clobs are not supported")
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, p.fail("invalid base64 in blob")
	}
	p.i += end + 2
	return b, nil
}

// text reads a "string" or adjacent ”'long strings”', concatenated.
func (p *parser) text() (string, error) {
	if p.peek() == '"' {
		return p.quoted('"')
	}
	var sb strings.Builder
	for p.hasPrefix("'''") {
		p.i += 3
		s, err := p.until("'''")
		if err != nil {
			return "", err
		}
		sb.WriteString(s)
		save := p.i
		p.ws()
		if !p.hasPrefix("'''") {
			p.i = save
		}
	}
	return sb.String(), nil
}

// quoted reads a string quoted with q.
func (p *parser) quoted(q byte) (string, error) {
	p.i++
	return p.until(string(q))
}

// until reads characters and escapes up to the terminator, which it
// consumes.
func (p *parser) until(term string) (string, error) {
	var sb strings.Builder
	for {
		if p.i >= len(p.b) {
			return "", p.fail("unterminated string")
		}
		if p.hasPrefix(term) {
			p.i += len(term)
			return sb.String(), nil
		}
		c := p.b[p.i]
		switch {
		case c == '\\':
			if err := p.escape(&sb, term == "'''"); err != nil {
				return "", err
			}
		case c == '\n' && term != "'''":
			return "", p.fail("newline in a string")
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
			return "", p.fail("control character in a string")
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return "", p.fail("invalid UTF-8")
			}
			sb.Write(p.b[p.i : p.i+n])
			p.i += n
		}
	}
}

var simpleEscapes = map[byte]string{'a': "\a", 'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", 'v': "\v",
	'?': "?", '0': "\x00", '\'': "'", '"': `"`, '/': "/", '\\': `\`}

// escape reads one backslash escape into sb; a UTF-16 surrogate pair of
// \u escapes, as JSON writes one, makes one code point.
func (p *parser) escape(sb *strings.Builder, long bool) error {
	p.i++
	c := p.peek()
	if s, ok := simpleEscapes[c]; ok {
		sb.WriteString(s)
		p.i++
		return nil
	}
	if c == '\n' && long {
		p.i++
		return nil
	}
	r, err := p.hexEscape()
	if err != nil {
		return err
	}
	if r >= 0xd800 && r < 0xdc00 && p.hasPrefix(`\u`) {
		save := p.i
		p.i++
		if lo, err := p.hexEscape(); err == nil && lo >= 0xdc00 && lo < 0xe000 {
			r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
		} else {
			p.i = save
		}
	}
	if !utf8.ValidRune(r) {
		return p.fail("escape is not a valid code point")
	}
	sb.WriteRune(r)
	return nil
}

// hexEscape reads xHH, uHHHH or UHHHHHHHH (the backslash already read).
func (p *parser) hexEscape() (rune, error) {
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[p.peek()]
	if n == 0 || p.i+1+n > len(p.b) {
		return 0, p.fail("invalid escape")
	}
	var r rune
	for _, h := range p.b[p.i+1 : p.i+1+n] {
		d := strings.IndexByte("0123456789abcdef", h|0x20)
		if d < 0 {
			return 0, p.fail("invalid hex digit in escape")
		}
		r = r<<4 | rune(d)
	}
	p.i += 1 + n
	return r, nil
}

// number reads an Ion int, decimal or float as a DynamoDB number.
func (p *parser) number() (attr.Value, error) {
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '_' || c == '.' || c == '+' || c == '-' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z') {
			p.i++
			continue
		}
		break
	}
	s, err := numberText(string(p.b[start:p.i]))
	if err != nil {
		p.i = start
		return attr.Value{}, p.fail(err.Error())
	}
	v, err := attr.Number(s)
	if err != nil {
		p.i = start
		return attr.Value{}, p.fail(err.Error())
	}
	return v, nil
}

var errNumber = errors.New("unsupported number")

// numberText turns Ion numeric text into DynamoDB number syntax.
func numberText(s string) (string, error) {
	if strings.Contains(s, "__") || strings.HasPrefix(strings.TrimLeft(s, "-"), "_") || strings.HasSuffix(s, "_") {
		return "", errNumber
	}
	s = strings.ReplaceAll(s, "_", "")
	body := strings.TrimPrefix(s, "-")
	if len(body) > 2 && body[0] == '0' && (body[1]|0x20 == 'x' || body[1]|0x20 == 'b') {
		base := map[byte]int{'x': 16, 'b': 2}[body[1]|0x20]
		n, ok := new(big.Int).SetString(body[2:], base)
		if !ok {
			return "", errNumber
		}
		if body != s {
			n.Neg(n)
		}
		return n.String(), nil
	}
	if strings.ContainsAny(body, "+") && !strings.ContainsAny(body, "eEdD") {
		return "", errNumber
	}
	if len(body) > 1 && body[0] == '0' && body[1] >= '0' && body[1] <= '9' {
		return "", errNumber // Ion forbids leading zeros
	}
	return strings.NewReplacer("d", "E", "D", "E").Replace(s), nil
}
