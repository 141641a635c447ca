package attr

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON lexer under jsonDecoder: whitespace, literals, strings, numbers,
// and skipping values of members DynamoDB ignores.

// maxSkipDepth bounds the nesting of ignored members' values.
const maxSkipDepth = 1000

// end requires that only whitespace follows.
func (d *jsonDecoder) end() error {
	d.ws()
	if d.i != len(d.b) {
		return d.syntax()
	}
	return nil
}

func (d *jsonDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end of input.
func (d *jsonDecoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *jsonDecoder) expect(c byte) error {
	if d.peek() != c {
		return d.syntax()
	}
	d.i++
	return nil
}

func (d *jsonDecoder) literal(lit string) error {
	if len(d.b)-d.i < len(lit) || string(d.b[d.i:d.i+len(lit)]) != lit {
		return d.syntax()
	}
	d.i += len(lit)
	return nil
}

func (d *jsonDecoder) syntax() error {
	if d.i >= len(d.b) {
		return &SerializationError{msgJSONEnd}
	}
	return &SerializationError{msgJSONSyntax + strconv.Itoa(d.i)}
}

// str reads a JSON string. Escapes are decoded; invalid UTF-8 and unpaired
// surrogates become U+FFFD, as encoding/json does.
func (d *jsonDecoder) str() (string, error) {
	if d.peek() != '"' {
		return "", d.syntax()
	}
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.b); j++ {
		c := d.b[j]
		switch {
		case c == '"':
			seg := d.b[start:j]
			if ascii || utf8.Valid(seg) {
				d.i = j + 1
				return string(seg), nil
			}
			return d.strSlow(start)
		case c == '\\':
			return d.strSlow(start)
		case c < 0x20:
			d.i = j
			return "", d.syntax()
		case c >= 0x80:
			ascii = false
		}
	}
	d.i = len(d.b)
	return "", d.syntax()
}

func (d *jsonDecoder) strSlow(start int) (string, error) {
	out := make([]byte, 0, 64)
	j := start
	for j < len(d.b) {
		c := d.b[j]
		switch {
		case c == '"':
			d.i = j + 1
			return string(out), nil
		case c < 0x20:
			d.i = j
			return "", d.syntax()
		case c < 0x80 && c != '\\':
			out = append(out, c)
			j++
		case c >= 0x80:
			r, size := utf8.DecodeRune(d.b[j:])
			out = utf8.AppendRune(out, r) // RuneError for invalid bytes
			j += size
		default: // backslash
			if j+1 >= len(d.b) {
				d.i = len(d.b)
				return "", d.syntax()
			}
			e := d.b[j+1]
			j += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.b, j)
				if !ok {
					d.i = j
					return "", d.syntax()
				}
				j += 4
				if utf16.IsSurrogate(r) {
					r2, ok := rune(0), false
					if j+6 <= len(d.b) && d.b[j] == '\\' && d.b[j+1] == 'u' {
						r2, ok = hex4(d.b, j+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						j += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				d.i = j - 1
				return "", d.syntax()
			}
		}
	}
	d.i = len(d.b)
	return "", d.syntax()
}

func hex4(b []byte, j int) (rune, bool) {
	if j+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[j : j+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skip passes over one JSON value of any kind (an ignored member's).
func (d *jsonDecoder) skip(depth int) error {
	if depth > maxSkipDepth {
		return &SerializationError{msgJSONDepth}
	}
	switch c := d.peek(); {
	case c == '"':
		_, err := d.str()
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == '{':
		return d.members(func(string) error { return d.skip(depth + 1) })
	case c == '[':
		return d.elements(']', func() error { return d.skip(depth + 1) })
	}
	return d.syntax()
}

// number passes over a JSON number.
func (d *jsonDecoder) number() error {
	start := d.i
	if d.peek() == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return d.syntax()
	}
	if d.peek() == '.' {
		d.i++
		if digits() == 0 {
			return d.syntax()
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.i++
		if c := d.peek(); c == '+' || c == '-' {
			d.i++
		}
		if digits() == 0 {
			return d.syntax()
		}
	}
	if d.i == start {
		return d.syntax()
	}
	return nil
}
