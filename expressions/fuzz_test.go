package expressions

import (
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

var fuzzSeeds = []string{
	"a = :n", "NOT (a < :n OR b.c[2] >= :s) AND attribute_exists(#s)",
	"size(l) BETWEEN :one AND :n10", "a IN (:n, :s)", "begins_with(#a, :ab)",
	"SET a = a + :one, b = list_append(if_not_exists(b, :l), :l) REMOVE c[1] ADD d :ss DELETE e :ss",
	"a, b.c, #s[3]", "a-b", "((a = :n)", "SET a", "#", ":", "a[", "a[99999999999]",
	"SET #a = (if_not_exists(#a, :n) + :one), b = ((b) - (:one))", "SET l = list_append((l), (:l))",
}

// checkErr asserts the invariant every Compile error keeps.
func checkErr(t *testing.T, src string, err error) {
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %T %v is not *Error", src, err, err)
	}
	if e.Pos < -1 || e.Pos > len(src) {
		t.Fatalf("%q: Pos %d outside [-1, %d]", src, e.Pos, len(src))
	}
}

// FuzzCompile checks that no input panics the parser and that every error is
// an *Error positioned within the input or at -1, for each expression kind.
func FuzzCompile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, k := range []kind{kindCondition, kindKeyCondition, kindUpdate, kindProjection} {
			c, err := compileKind(t, k, src)
			checkErr(t, src, err)
			if err != nil {
				continue
			}
			// A successful parse must round-trip through String(): the
			// text compiles again, to the same canonical text.
			if k == kindKeyCondition {
				_, _ = c.KeyCondition.KeyCondition([]string{"a"}, []string{"b"})
			}
			again := compiledString(k, c)
			c2, err := compileKind(t, k, again)
			if err != nil {
				t.Fatalf("%s %q: String() %q does not compile: %v", k, src, again, err)
			}
			if third := compiledString(k, c2); third != again {
				t.Fatalf("%s %q: String() is not canonical: %q compiles to %q", k, src, again, third)
			}
		}
	})
}

// compiledString is the String() of the part of c that kind k compiles.
func compiledString(k kind, c *Compiled) string {
	switch k {
	case kindCondition:
		return c.Condition.String()
	case kindKeyCondition:
		return c.KeyCondition.String()
	case kindUpdate:
		return c.Update.String()
	}
	return c.Projection.String()
}

// FuzzApply checks that Update.Apply, Condition.Eval and Projection.Apply
// never modify the item they are given, and never panic.
func FuzzApply(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("SET l[1] = :s, m.k.z = :n REMOVE l[0], l[7], m.k")
	f.Add("SET n = n - :one ADD ns :n DELETE ss :ss")
	f.Fuzz(func(t *testing.T, src string) {
		old := attr.Item{
			"a":  num("5"),
			"n":  num("1"),
			"l":  strs("x0", "x1", "x2"),
			"m":  attr.Map(map[string]attr.Value{"k": attr.Map(map[string]attr.Value{"z": num("1")}), "j": strs("q")}),
			"ss": attr.StringSet("a", "b", "abc"),
			"ns": ns(t, "1", "2"),
		}
		before := attr.Map(copyItem(old))
		for _, k := range []kind{kindCondition, kindUpdate, kindProjection} {
			c, err := compileKind(t, k, src)
			checkErr(t, src, err)
			if err != nil {
				continue
			}
			switch {
			case c.Condition != nil:
				c.Condition.Eval(old)
				c.Condition.Eval(nil)
			case c.Update != nil:
				if _, err := c.Update.Apply(old); err != nil {
					checkErr(t, src, err)
				}
				_, _ = c.Update.Apply(nil)
				ProjectPaths(old, c.Update.Paths())
			case c.Projection != nil:
				c.Projection.Apply(old)
			}
			if !attr.Equal(attr.Map(old), before) {
				t.Fatalf("%s %q modified its input", k, src)
			}
		}
	})
}
