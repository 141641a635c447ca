package expressions

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func TestProjectionApply(t *testing.T) {
	item := attr.Item{
		"a": num("1"),
		"b": attr.String("x"),
		"l": strs("x0", "x1", "x2", "x3"),
		"m": attr.Map(map[string]attr.Value{"k": attr.String("v"), "j": num("2"), "deep": attr.Map(map[string]attr.Value{"z": num("3"), "y": num("4")})}),
		"lm": attr.List([]attr.Value{
			attr.Map(map[string]attr.Value{"p": num("1"), "q": num("2")}),
			attr.Map(map[string]attr.Value{"p": num("3"), "q": num("4")}),
		}),
	}
	tests := []struct {
		src  string
		want attr.Item
	}{
		{"a", attr.Item{"a": num("1")}},
		{"a, b, gone", attr.Item{"a": num("1"), "b": attr.String("x")}},
		{"m.k", attr.Item{"m": attr.Map(map[string]attr.Value{"k": attr.String("v")})}},
		{"m.deep.z, m.j", attr.Item{"m": attr.Map(map[string]attr.Value{"j": num("2"), "deep": attr.Map(map[string]attr.Value{"z": num("3")})})}},
		{"m.nope", attr.Item{}},
		{"l[3], l[1]", attr.Item{"l": strs("x1", "x3")}},
		{"l[9]", attr.Item{}},
		{"lm[1].q, lm[0].p", attr.Item{"lm": attr.List([]attr.Value{
			attr.Map(map[string]attr.Value{"p": num("1")}),
			attr.Map(map[string]attr.Value{"q": num("4")}),
		})}},
		{"a.b, l.x, m[0]", attr.Item{}}, // wrong container types find nothing
	}
	for _, tt := range tests {
		c, err := compileKind(t, kindProjection, tt.src)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.src, err)
		}
		got := c.Projection.Apply(item)
		if !attr.Equal(attr.Map(got), attr.Map(tt.want)) {
			t.Errorf("Apply(%q) = %+v, want %+v", tt.src, got, tt.want)
		}
	}
	c, _ := compileKind(t, kindProjection, "a")
	if got := c.Projection.Apply(nil); got != nil {
		t.Errorf("Apply(nil) = %v, want nil", got)
	}
}

func TestProjectPaths(t *testing.T) {
	item := attr.Item{"a": num("1"), "m": attr.Map(map[string]attr.Value{"k": attr.String("v"), "j": num("2")})}
	got := ProjectPaths(item, []Path{{{Name: "m", Index: -1}, {Name: "k", Index: -1}}, {{Name: "m", Index: -1}}})
	want := attr.Item{"m": item["m"]}
	if !attr.Equal(attr.Map(got), attr.Map(want)) {
		t.Errorf("ProjectPaths = %+v, want %+v", got, want)
	}
}
