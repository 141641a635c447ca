package validate

import (
	"regexp"
	"strings"
	"testing"
)

// TestIsNameMatchesPattern holds isName, namePattern's fast path, to the
// regexp it replaces: every single byte, every pair of the interesting
// ones, and names with multi-byte, invalid and unusual characters.
func TestIsNameMatchesPattern(t *testing.T) {
	re := regexp.MustCompile("^(?:" + namePattern + ")$")
	cases := []string{"", "abc", "A-b_c.d", "table name", "tab\x00le", "ta/ble", "é", "tablé", "\xff", "ab\xc3",
		"日本", "a\u200bb", strings.Repeat("a", 300), "..", "-", "_", "0", "arn:aws:dynamodb:us-east-1:1:table/x",
		"a\nb", "a\tb", "ａbc"}
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "ab"+string([]byte{byte(c)}))
	}
	edges := []byte{'a', 'z', 'A', 'Z', '0', '9', '_', '.', '-', '`', '{', '@', '[', '/', ':', '^', ' ', 0x80, 0xc3, 0xa9}
	for _, a := range edges {
		for _, b := range edges {
			cases = append(cases, string([]byte{a, b}))
		}
	}
	for _, s := range cases {
		if got, want := isName(s), re.MatchString(s); got != want {
			t.Errorf("isName(%q) = %v, the regexp says %v", s, got, want)
		}
		r := rule{kind: rulePattern, text: namePattern, re: re}
		if got, want := r.matches(s), re.MatchString(s); got != want {
			t.Errorf("matches(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}
