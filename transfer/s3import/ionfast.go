package s3import

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/attr"
)

// The Ion library's text reader (iontext.DecodeLine, the decoder of
// record) costs most of an Ion import's CPU. decodeIonFast reads the lines
// an export writes, and most others, by hand: "$ion_1_0 {Item:{...}}" whose
// values are short strings without escapes, ints and decimals, true,
// false, null, blobs, lists, structs and the three set annotations. On
// anything else (an escape, a float, a timestamp, a symbol, a comment, a
// typed null, ...) it gives up and the library reads the line;
// TestIonLineFastIsPlain and FuzzIonLineTwins show that whatever it reads
// is what the library reads.

// ionFastDepth bounds the nesting the fast path follows; deeper lines go
// to the library, which applies the limits.
const ionFastDepth = 32

// decodeIonFast decodes a line "$ion_1_0 {Item:{...}}" (the marker
// optional); ok is false when the line is not of the shape it reads.
func decodeIonFast(b []byte) (attr.Item, bool) {
	p := ionParser{b: bytes.TrimSpace(b)}
	if bytes.HasPrefix(p.b, []byte("$ion_1_0")) {
		p.i = len("$ion_1_0")
		if p.i == len(p.b) || !isIonSpace(p.b[p.i]) {
			return nil, false
		}
	}
	p.space()
	if !p.eat('{') || p.name() != "Item" || !p.eat(':') || p.peek() != '{' {
		return nil, false
	}
	v, ok := p.value(0)
	if !ok || v.T != attr.TypeM || len(v.M) == 0 || !p.eat('}') || p.i != len(p.b) {
		return nil, false
	}
	return v.M, true
}

// ionParser is the fast path's position in a line.
type ionParser struct {
	b []byte
	i int
}

func isIonSpace(c byte) bool { return c == ' ' || c == '\t' }

// space skips blanks.
func (p *ionParser) space() {
	for p.i < len(p.b) && isIonSpace(p.b[p.i]) {
		p.i++
	}
}

// peek returns the next byte after blanks, 0 at the end.
func (p *ionParser) peek() byte {
	p.space()
	if p.i == len(p.b) {
		return 0
	}
	return p.b[p.i]
}

// eat consumes c (after blanks) if it comes next.
func (p *ionParser) eat(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// name reads a field name: an identifier that is no keyword and does not
// start with $, or a quoted symbol without escapes; "" when neither.
func (p *ionParser) name() string {
	switch c := p.peek(); {
	case c == '\'':
		s, ok := p.quoted('\'')
		if !ok || s == "" {
			return ""
		}
		return s
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		start := p.i
		for p.i < len(p.b) && isIdentByte(p.b[p.i]) {
			p.i++
		}
		switch s := string(p.b[start:p.i]); s {
		case "null", "true", "false", "nan":
			return ""
		default:
			return s
		}
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// quoted reads a string quoted by q with no escape, no control character
// and valid UTF-8 (and, for ', not a long string).
func (p *ionParser) quoted(q byte) (string, bool) {
	start := p.i + 1
	end := bytes.IndexByte(p.b[start:], q)
	if end < 0 || q == '\'' && end == 0 {
		return "", false
	}
	s := p.b[start : start+end]
	for _, c := range s {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(s) {
		return "", false
	}
	p.i = start + end + 1
	return string(s), true
}

// value reads one value, depth containers deep; it is one switch over the
// value's first byte.
func (p *ionParser) value(depth int) (attr.Value, bool) {
	if depth > ionFastDepth {
		return attr.Value{}, false
	}
	switch c := p.peek(); {
	case c == '"':
		s, ok := p.quoted('"')
		return attr.String(s), ok
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == '{' && p.i+1 < len(p.b) && p.b[p.i+1] == '{':
		return p.blob()
	case c == '{':
		m, ok := p.structure(depth)
		return attr.Map(m), ok
	case c == '[':
		l, ok := p.list(depth)
		return attr.List(l), ok
	case c == '$':
		return p.set(depth)
	}
	switch p.word() {
	case "true":
		return attr.Bool(true), true
	case "false":
		return attr.Bool(false), true
	case "null":
		return attr.Null(), true
	}
	return attr.Value{}, false
}

// word reads letters up to the next delimiter.
func (p *ionParser) word() string {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= 'a' && p.b[p.i] <= 'z' {
		p.i++
	}
	if !p.delimited() {
		return ""
	}
	return string(p.b[start:p.i])
}

// delimited reports whether a value may end here: the line's end, a blank,
// a comma or a closing bracket.
func (p *ionParser) delimited() bool {
	if p.i == len(p.b) {
		return true
	}
	c := p.b[p.i]
	return isIonSpace(c) || c == ',' || c == '}' || c == ']'
}

// structure reads {name:value,...} (a repeated name keeps the last, as the
// library's reader does).
func (p *ionParser) structure(depth int) (map[string]attr.Value, bool) {
	p.i++ // {
	m := map[string]attr.Value{}
	if p.eat('}') {
		return m, true
	}
	for {
		n := p.name()
		if n == "" || !p.eat(':') {
			return nil, false
		}
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[n] = v
		if p.eat('}') {
			return m, true
		}
		if !p.eat(',') || p.peek() == '}' {
			return nil, false
		}
	}
}

// list reads [value,...].
func (p *ionParser) list(depth int) ([]attr.Value, bool) {
	p.i++ // [
	l := []attr.Value{}
	if p.eat(']') {
		return l, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		l = append(l, v)
		if p.eat(']') {
			return l, true
		}
		if !p.eat(',') || p.peek() == ']' {
			return nil, false
		}
	}
}

// blob reads {{base64}}, the base64 canonical and unbroken.
func (p *ionParser) blob() (attr.Value, bool) {
	start := p.i + 2
	end := bytes.Index(p.b[start:], []byte("}}"))
	if end <= 0 {
		return attr.Value{}, false
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(string(p.b[start : start+end]))
	if err != nil || len(raw) == 0 {
		return attr.Value{}, false
	}
	p.i = start + end + 2
	return attr.Binary(raw), true
}

// set reads a list annotated $dynamodb_SS, $dynamodb_NS or $dynamodb_BS,
// as iontext's readSet makes it.
func (p *ionParser) set(depth int) (attr.Value, bool) {
	rest := p.b[p.i:]
	var want attr.Type
	switch {
	case bytes.HasPrefix(rest, []byte("$dynamodb_SS::[")):
		want = attr.TypeS
	case bytes.HasPrefix(rest, []byte("$dynamodb_NS::[")):
		want = attr.TypeN
	case bytes.HasPrefix(rest, []byte("$dynamodb_BS::[")):
		want = attr.TypeB
	default:
		return attr.Value{}, false
	}
	p.i += len("$dynamodb_SS::")
	l, ok := p.list(depth)
	if !ok {
		return attr.Value{}, false
	}
	var ss []string
	var bs [][]byte
	for _, v := range l {
		if v.T != want {
			return attr.Value{}, false
		}
		ss, bs = append(ss, v.S), append(bs, v.B)
	}
	v := attr.BinarySet(bs...)
	var err error
	switch want {
	case attr.TypeS:
		v = attr.StringSet(ss...)
	case attr.TypeN:
		v, err = attr.NumberSet(ss...)
	}
	return v, err == nil && v.Validate() == nil
}

// number reads an int (-?digits, no leading zero, no underscore) or a
// decimal (-?digits[.digits][d[+-]digits]) as the library's reader gives
// them to iontext: the int's digits, the decimal's coefficient and
// exponent as "coefEexp"; a float, a radix or a timestamp gives up.
func (p *ionParser) number() (attr.Value, bool) {
	start := p.i
	neg := p.b[p.i] == '-'
	if neg {
		p.i++
	}
	whole := p.digits()
	if len(whole) == 0 || len(whole) > 1 && whole[0] == '0' {
		return attr.Value{}, false
	}
	var frac []byte
	decimal := false
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		decimal, frac = true, p.digits()
	}
	exp := 0
	if p.i < len(p.b) && (p.b[p.i] == 'd' || p.b[p.i] == 'D') {
		p.i++
		eneg := p.i < len(p.b) && p.b[p.i] == '-'
		if eneg || p.i < len(p.b) && p.b[p.i] == '+' {
			p.i++
		}
		e := p.digits()
		n, err := strconv.Atoi(string(e))
		if len(e) == 0 || len(e) > 9 || err != nil {
			return attr.Value{}, false
		}
		decimal, exp = true, n
		if eneg {
			exp = -n
		}
	}
	if !p.delimited() {
		return attr.Value{}, false
	}
	var text []byte
	if !decimal {
		text = p.b[start:p.i]
	} else {
		coef := bytes.TrimLeft(append(append([]byte{}, whole...), frac...), "0")
		if len(coef) == 0 {
			coef = []byte("0")
		} else if neg {
			coef = append([]byte{'-'}, coef...)
		}
		text = strconv.AppendInt(append(coef, 'E'), int64(exp-len(frac)), 10)
	}
	if string(text) == "-0" {
		text = text[1:]
	}
	v, err := attr.Number(string(text))
	return v, err == nil
}

// digits reads decimal digits.
func (p *ionParser) digits() []byte {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.b[start:p.i]
}
