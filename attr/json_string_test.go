package attr

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendJSONStrSimple is the plain byte-by-byte escaper that appendJSONStr
// must match: the reference for the eight-at-a-time fast path.
func appendJSONStrSimple(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\b':
				dst = append(dst, `\b`...)
			case c == '\f':
				dst = append(dst, `\f`...)
			case c == '\n':
				dst = append(dst, `\n`...)
			case c == '\r':
				dst = append(dst, `\r`...)
			case c == '\t':
				dst = append(dst, `\t`...)
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// encodingJSONString is s as encoding/json writes it without HTML escaping.
func encodingJSONString(t testing.TB, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestAppendJSONStringClasses puts one sample of every escape class at
// every position of strings of 16, 24 and 40 plain bytes, so that each
// lands in every byte of the sixteen- and eight-byte words and of the
// byte-wise tail, and checks the exact output.
func TestAppendJSONStringClasses(t *testing.T) {
	for _, tc := range []struct {
		class, in, want string
	}{
		{"NUL", "\x00", `\u0000`},
		{"control", "\x1f", `\u001f`},
		{"backspace", "\b", `\b`},
		{"form feed", "\f", `\f`},
		{"newline", "\n", `\n`},
		{"return", "\r", `\r`},
		{"tab", "\t", `\t`},
		{"quote", `"`, `\"`},
		{"backslash", `\`, `\\`},
		{"space", " ", " "},
		{"DEL", "\x7f", "\x7f"},
		{"HTML", "<&>", "<&>"},
		{"two-byte rune", "é", "é"},
		{"three-byte rune", "€", "€"},
		{"four-byte rune", "😀", "😀"},
		{"line separator", "\u2028", `\u2028`},
		{"paragraph separator", "\u2029", `\u2029`},
		{"invalid byte", "\xff", `\ufffd`},
		{"lone continuation", "\x80", `\ufffd`},
		{"truncated rune", "\xe2\x80", `\ufffd\ufffd`},
		{"surrogate", "\xed\xa0\x80", `\ufffd\ufffd\ufffd`},
	} {
		t.Run(tc.class, func(t *testing.T) {
			for _, n := range []int{16, 24, 40} {
				base := strings.Repeat("abcdefgh", n/8)
				for pos := 0; pos <= n; pos++ {
					s := base[:pos] + tc.in + base[pos:]
					want := `"` + base[:pos] + tc.want + base[pos:] + `"`
					if got := AppendJSONString(nil, s); string(got) != want {
						t.Fatalf("string %q: got %s, want %s", s, got, want)
					}
					if got := appendJSONStr([]byte("x"), []byte(s)); string(got) != "x"+want {
						t.Fatalf("bytes %q: got %s, want x%s", s, got, want)
					}
					if got := appendJSONStrSimple(nil, s); string(got) != want {
						t.Fatalf("reference %q: got %s, want %s", s, got, want)
					}
					if got := encodingJSONString(t, s); string(got) != want {
						t.Fatalf("encoding/json %q: got %s, want %s", s, got, want)
					}
				}
			}
		})
	}
}

// TestUnplainMask checks the word test against plainByte for every byte
// value at every position of a plain word, with and without a second
// byte that needs an escape above it (whose borrow must not matter).
func TestUnplainMask(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			for _, above := range []int{-1, 0x00, '"', 0xff} {
				var w [8]byte
				copy(w[:], "abcdefgh")
				w[pos] = byte(c)
				if above >= 0 && pos < 7 {
					w[7] = byte(above)
				}
				x := uint64(0)
				for i := 7; i >= 0; i-- {
					x = x<<8 | uint64(w[i])
				}
				want := 0
				for want < 8 && plainByte(w[want]) {
					want++
				}
				got := 8
				if m := unplainMask(x); m != 0 {
					got = bits.TrailingZeros64(m) / 8
				}
				if got != want {
					t.Fatalf("word %q: got first unplain byte %d, want %d", w, got, want)
				}
				if got, want := unplain2(x, 0x6161616161616161), want < 8; got != want {
					t.Fatalf("unplain2(%q, plain): got %v, want %v", w, got, want)
				}
				if got, want := unplain2(0x6161616161616161, x), want < 8; got != want {
					t.Fatalf("unplain2(plain, %q): got %v, want %v", w, got, want)
				}
			}
		}
	}
}

// FuzzAppendJSONString: the fast escaper writes what the byte loop and
// encoding/json write, for strings and byte slices alike.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "abcdefghijklmnop\"q", "é\u2028\xff\x00", strings.Repeat("x", 40) + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := appendJSONStrSimple(nil, s)
		if got := AppendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("string %q: got %s, want %s", s, got, want)
		}
		if got := appendJSONStr(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Fatalf("bytes %q: got %s, want %s", s, got, want)
		}
		if enc := encodingJSONString(t, s); !bytes.Equal(enc, want) {
			t.Fatalf("encoding/json %q: got %s, reference %s", s, enc, want)
		}
		if got, want := jsonPlain(s), string(want) == `"`+s+`"`; got != want {
			t.Fatalf("jsonPlain(%q): got %v, want %v", s, got, want)
		}
	})
}
