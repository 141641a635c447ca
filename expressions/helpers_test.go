package expressions

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func ptr[T any](v T) *T { return &v }

func num(s string) attr.Value { return attr.Value{T: attr.TypeN, S: s} }

func ns(t *testing.T, members ...string) attr.Value {
	t.Helper()
	v, err := attr.NumberSet(members...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testValues is a pool of placeholders tests may use; compile() passes only
// the ones an expression mentions, so "unused" checks do not fire.
func testValues() map[string]attr.Value {
	return map[string]attr.Value{
		":s":    attr.String("abc"),
		":s2":   attr.String("xyz"),
		":ab":   attr.String("ab"),
		":n":    num("5"),
		":one":  num("1"),
		":n10":  num("10"),
		":b":    attr.Binary([]byte{1, 2}),
		":b23":  attr.Binary([]byte{2, 3}),
		":b13":  attr.Binary([]byte{1, 3}),
		":t":    attr.Bool(true),
		":null": attr.Null(),
		":l":    attr.List([]attr.Value{attr.String("x")}),
		":m":    attr.Map(map[string]attr.Value{"k": attr.String("v")}),
		":ss":   attr.StringSet("a", "b"),
		":bs":   attr.BinarySet([]byte{1}),
		":typ":  attr.String("S"),
		":badt": attr.String("STRING"),
	}
}

func testNames() map[string]string {
	return map[string]string{"#s": "status", "#a": "a", "#b": "b", "#dot": "x.y", "#k": "key"}
}

// only keeps the entries of m whose key occurs in src.
func only[V any](m map[string]V, srcs ...string) map[string]V {
	out := map[string]V{}
	for k, v := range m {
		for _, s := range srcs {
			if containsPlaceholder(s, k) {
				out[k] = v
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// containsPlaceholder reports whether key occurs in s as a whole token.
func containsPlaceholder(s, key string) bool {
	for _, t := range lex(s) {
		if t.text == key {
			return true
		}
	}
	return false
}

// compileKind compiles src as an expression of kind k with the placeholders it uses.
func compileKind(t *testing.T, k kind, src string) (*Compiled, error) {
	t.Helper()
	in := Input{Names: only(testNames(), src), Values: only(testValues(), src)}
	switch k {
	case kindCondition:
		in.ConditionExpression = &src
	case kindFilter:
		in.FilterExpression = &src
	case kindKeyCondition:
		in.KeyConditionExpression = &src
	case kindProjection:
		in.ProjectionExpression = &src
	case kindUpdate:
		in.UpdateExpression = &src
	}
	return Compile(in)
}

func mustCondition(t *testing.T, src string) *Condition {
	t.Helper()
	c, err := compileKind(t, kindCondition, src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return c.Condition
}

func mustUpdate(t *testing.T, src string) *Update {
	t.Helper()
	c, err := compileKind(t, kindUpdate, src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return c.Update
}
