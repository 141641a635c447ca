package expressions

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func benchItem() attr.Item {
	return attr.Item{
		"pk": attr.String("user#1"), "sk": attr.String("profile"),
		"n": attr.Int(41), "tags": attr.StringSet("a", "b", "c"),
		"m": attr.Map(map[string]attr.Value{"x": attr.Int(1), "l": attr.List([]attr.Value{attr.String("q")})}),
	}
}

func strp(s string) *string { return &s }

// BenchmarkCompile parses and resolves a condition and an update, as every
// UpdateItem does.
func BenchmarkCompile(b *testing.B) {
	in := Input{
		ConditionExpression: strp("attribute_exists(pk) AND n < :max AND contains(tags, :t)"),
		UpdateExpression:    strp("SET n = n + :one, m.x = :v REMOVE m.l[0] ADD tags :s"),
		Values: map[string]attr.Value{":max": attr.Int(100), ":t": attr.String("a"), ":one": attr.Int(1),
			":v": attr.Int(2), ":s": attr.StringSet("d")},
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Compile(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEval evaluates a three-term condition against an item.
func BenchmarkEval(b *testing.B) {
	c, err := Compile(Input{ConditionExpression: strp("attribute_exists(pk) AND n < :max AND contains(tags, :t)"),
		Values: map[string]attr.Value{":max": attr.Int(100), ":t": attr.String("a")}})
	if err != nil {
		b.Fatal(err)
	}
	item := benchItem()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !c.Condition.Eval(item) {
			b.Fatal("condition false")
		}
	}
}

// BenchmarkApply applies an update with SET arithmetic, a nested SET, REMOVE
// of a list element and ADD to a set.
func BenchmarkApply(b *testing.B) {
	c, err := Compile(Input{UpdateExpression: strp("SET n = n + :one, m.x = :v REMOVE m.l[0] ADD tags :s"),
		Values: map[string]attr.Value{":one": attr.Int(1), ":v": attr.Int(2), ":s": attr.StringSet("d")}})
	if err != nil {
		b.Fatal(err)
	}
	item := benchItem()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Update.Apply(item); err != nil {
			b.Fatal(err)
		}
	}
}
