package expressions

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func evalItem(t *testing.T) attr.Item {
	return attr.Item{
		"a":      num("5"),
		"s":      attr.String("abcdef"),
		"b":      attr.Binary([]byte{1, 2, 3}),
		"t":      attr.Bool(true),
		"z":      attr.Null(),
		"ss":     attr.StringSet("a", "b"),
		"nset":   ns(t, "1", "5"),
		"bset":   attr.BinarySet([]byte{1}, []byte{2}),
		"l":      attr.List([]attr.Value{attr.String("x"), num("5"), attr.Map(map[string]attr.Value{"k": attr.String("v")})}),
		"m":      attr.Map(map[string]attr.Value{"k": attr.String("v"), "n": attr.Map(map[string]attr.Value{"deep": num("10")})}),
		"status": attr.String("ok"),
		"x.y":    attr.String("dotted"),
	}
}

func TestEval(t *testing.T) {
	item := evalItem(t)
	tests := []struct {
		src  string
		want bool
	}{
		{"a = :n", true},
		{"a = :s", false},
		{"a <> :n", false},
		{"a <> :s", true}, // different types are unequal
		{"gone <> :n", true},
		{"gone = :n", false},
		{"a < :n10", true},
		{"a <= :n", true},
		{"a > :n", false},
		{"a >= :n", true},
		{"s < :n", false}, // different types never order
		{"s > :ab", true},
		{"a BETWEEN :one AND :n10", true},
		{"a BETWEEN :one AND :s", false},
		{"gone BETWEEN :one AND :n10", false},
		{"a IN (:s, :one, :n)", true},
		{"a IN (:s, :one)", false},
		{"attribute_exists(a)", true},
		{"attribute_exists(m.n.deep)", true},
		{"attribute_exists(m.n.nope)", false},
		{"attribute_exists(l[2].k)", true},
		{"attribute_exists(l[3])", false},
		{"attribute_exists(a[0])", false},
		{"attribute_not_exists(gone)", true},
		{"attribute_not_exists(a)", false},
		{"attribute_type(s, :typ)", true},
		{"attribute_type(a, :typ)", false},
		{"begins_with(s, :ab)", true},
		{"begins_with(s, :s2)", false},
		{"begins_with(b, :b)", true},
		{"begins_with(a, :ab)", false},
		{"contains(s, :ab)", true},
		{"contains(ss, :ab)", false},
		{"contains(l, :n)", true},
		{"contains(l, :m)", true},
		{"contains(nset, :n)", true},
		{"contains(nset, :n10)", false},
		{"contains(bset, :b)", false},
		{"contains(b, :b23)", true}, // a byte subsequence of a binary
		{"contains(b, :b)", true},
		{"contains(b, :b13)", false},
		{"contains(b, :ab)", false},
		{"begins_with(b, :b23)", false},
		{"contains(a, :n)", false},
		{"size(s) = :n", false},
		{"size(s) > :n", true},
		{"size(b) < :n", true},
		{"size(l) BETWEEN :one AND :n", true},
		{"size(m) = :one", false},
		{"size(a) = :one", false}, // numbers have no size
		{"size(gone) <> :one", true},
		{"m.n.deep = :n10", true},
		{"#s = :s", false},
		{"#dot = :s", false},
		{"NOT a = :n", false},
		{"a = :n AND s = :s", false},
		{"a = :n OR s = :s", true},
		{"NOT (a = :one OR s = :s)", true},
		{"t = :t AND z = :null", true},
		{"l[1] = :n", true},
	}
	for _, tt := range tests {
		c := mustCondition(t, tt.src)
		if got := c.Eval(item); got != tt.want {
			t.Errorf("Eval(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestEvalNilItem(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"attribute_not_exists(a)", true},
		{"attribute_exists(a)", false},
		{"a = :n", false},
		{"a <> :n", true},
	}
	for _, tt := range tests {
		if got := mustCondition(t, tt.src).Eval(nil); got != tt.want {
			t.Errorf("Eval(%q, nil) = %v, want %v", tt.src, got, tt.want)
		}
	}
}
