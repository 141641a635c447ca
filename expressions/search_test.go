package expressions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func TestSearchConditionEqualities(t *testing.T) {
	vals := map[string]attr.Value{":t": attr.String("acme"), ":k": attr.String("doc")}
	names := map[string]string{"#k": "kind"}
	const bad = "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression"
	cases := []struct {
		src  string
		want []Equality
		err  string
	}{
		{"tenant = :t", []Equality{{Path{{Name: "tenant", Index: -1}}, attr.String("acme")}}, ""},
		{":t = tenant AND #k = :k", []Equality{{Path{{Name: "tenant", Index: -1}}, attr.String("acme")}, {Path{{Name: "kind", Index: -1}}, attr.String("doc")}}, ""},
		{"(tenant = :t) AND (#k = :k)", []Equality{{Path{{Name: "tenant", Index: -1}}, attr.String("acme")}, {Path{{Name: "kind", Index: -1}}, attr.String("doc")}}, ""},
		{"tenant < :t AND #k = :k", nil, bad},
		{"tenant <> :t AND #k = :k", nil, bad},
		{"tenant IN (:t, :k)", nil, bad},
		{"tenant = :t OR #k = :k", nil, bad},
		{"NOT tenant = :t AND #k = :k", nil, bad},
		{"begins_with(tenant, :t) AND #k = :k", nil, bad},
		{"tenant = #k AND :t = :k", nil, bad},
		{"tenant = :t AND", nil, "Invalid SearchConditionExpression: Syntax error; token: \"<EOF>\", near: \"AND\""},
	}
	for _, c := range cases {
		src := c.src
		in := Input{SearchConditionExpression: &src, Values: map[string]attr.Value{}}
		for k, v := range vals {
			if strings.Contains(src, k) {
				in.Values[k] = v
			}
		}
		if strings.Contains(src, "#k") {
			in.Names = names
		}
		comp, err := Compile(in)
		var got []Equality
		if err == nil {
			got, err = comp.SearchCondition.Equalities()
		}
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: err %v, want %q", c.src, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, %v; want %+v", c.src, got, err, c.want)
		}
	}
}
