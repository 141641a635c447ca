package expressions

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func updateItem(t *testing.T) attr.Item {
	return attr.Item{
		"n":  num("5"),
		"s":  attr.String("str"),
		"l":  attr.List([]attr.Value{attr.String("x0"), attr.String("x1"), attr.String("x2"), attr.String("x3")}),
		"m":  attr.Map(map[string]attr.Value{"k": attr.String("v"), "nest": attr.Map(map[string]attr.Value{"d": num("1")})}),
		"ss": attr.StringSet("a", "b"),
		"ns": ns(t, "1", "2"),
		"bs": attr.BinarySet([]byte{1}, []byte{2}),
	}
}

func strs(ss ...string) attr.Value {
	l := make([]attr.Value, len(ss))
	for i, s := range ss {
		l[i] = attr.String(s)
	}
	return attr.List(l)
}

func TestUpdateApply(t *testing.T) {
	tests := []struct {
		src  string
		want map[string]attr.Value // attributes expected in the result (nil value: absent)
	}{
		{"SET x = :s", map[string]attr.Value{"x": attr.String("abc")}},
		{"SET n = n + :one", map[string]attr.Value{"n": num("6")}},
		{"SET n = :one - n", map[string]attr.Value{"n": num("-4")}},
		{"SET n = (n - :one)", map[string]attr.Value{"n": num("4")}},
		{"SET x = (if_not_exists(x, :n) + :one), n = (if_not_exists(n, :one) + :one)", map[string]attr.Value{"x": num("6"), "n": num("6")}},
		{"SET x = n, n = :one", map[string]attr.Value{"x": num("5"), "n": num("1")}}, // right-hand sides read the old item
		{"SET m.k = :s, m.fresh = :n", map[string]attr.Value{"m": attr.Map(map[string]attr.Value{"k": attr.String("abc"), "fresh": num("5"), "nest": attr.Map(map[string]attr.Value{"d": num("1")})})}},
		{"SET m.nest.d = m.nest.d + :one", map[string]attr.Value{"m": attr.Map(map[string]attr.Value{"k": attr.String("v"), "nest": attr.Map(map[string]attr.Value{"d": num("2")})})}},
		{"SET l[1] = :s", map[string]attr.Value{"l": strs("x0", "abc", "x2", "x3")}},
		{"SET l[10] = :s", map[string]attr.Value{"l": strs("x0", "x1", "x2", "x3", "abc")}},
		{"SET x = if_not_exists(x, :n), n = if_not_exists(n, :one)", map[string]attr.Value{"x": num("5"), "n": num("5")}},
		{"SET l = list_append(l, :l)", map[string]attr.Value{"l": strs("x0", "x1", "x2", "x3", "x")}},
		{"SET l = list_append(:l, l)", map[string]attr.Value{"l": strs("x", "x0", "x1", "x2", "x3")}},
		{"SET x = list_append(if_not_exists(x, :l), :l)", map[string]attr.Value{"x": strs("x", "x")}},
		{"REMOVE s, m.k, gone", map[string]attr.Value{"s": {}, "m": attr.Map(map[string]attr.Value{"nest": attr.Map(map[string]attr.Value{"d": num("1")})})}},
		{"REMOVE l[0], l[2]", map[string]attr.Value{"l": strs("x1", "x3")}},
		{"REMOVE l[2], l[0], l[9]", map[string]attr.Value{"l": strs("x1", "x3")}},
		{"SET l[1] = :s REMOVE l[0]", map[string]attr.Value{"l": strs("abc", "x2", "x3")}},
		{"ADD n :one", map[string]attr.Value{"n": num("6")}},
		{"ADD x :one", map[string]attr.Value{"x": num("1")}},
		{"ADD ss :ss, x :ss", map[string]attr.Value{"ss": attr.StringSet("a", "b"), "x": attr.StringSet("a", "b")}},
		{"ADD ns :nset", map[string]attr.Value{"ns": ns(t, "1", "2", "7")}},
		{"DELETE ss :ss", map[string]attr.Value{"ss": {}}},
		{"DELETE ns :nset, x :ss", map[string]attr.Value{"ns": ns(t, "2")}},
		{"DELETE bs :bs", map[string]attr.Value{"bs": attr.BinarySet([]byte{2})}},
	}
	for _, tt := range tests {
		old := updateItem(t)
		before := attr.Map(copyItem(old))
		u := mustUpdateWith(t, tt.src)
		got, err := u.Apply(old)
		if err != nil {
			t.Errorf("Apply(%q): %v", tt.src, err)
			continue
		}
		if !attr.Equal(attr.Map(old), before) {
			t.Errorf("Apply(%q) modified its input", tt.src)
		}
		for name, want := range tt.want {
			v, ok := got[name]
			if want.T == 0 {
				if ok {
					t.Errorf("Apply(%q)[%s] = %+v, want absent", tt.src, name, v)
				}
				continue
			}
			if !ok || !attr.Equal(v, want) {
				t.Errorf("Apply(%q)[%s] = %+v, want %+v", tt.src, name, v, want)
			}
		}
		for name, v := range old {
			if _, listed := tt.want[name]; !listed && !attr.Equal(got[name], v) {
				t.Errorf("Apply(%q) changed %s to %+v", tt.src, name, got[name])
			}
		}
	}
}

// mustUpdateWith compiles an update with the shared pool plus ":nset".
func mustUpdateWith(t *testing.T, src string) *Update {
	t.Helper()
	vals := only(testValues(), src)
	if containsPlaceholder(src, ":nset") {
		if vals == nil {
			vals = map[string]attr.Value{}
		}
		vals[":nset"] = ns(t, "1", "7")
	}
	c, err := Compile(Input{UpdateExpression: &src, Values: vals})
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return c.Update
}

// copyItem deep-copies the containers of an item so later mutation would show.
func copyItem(it attr.Item) map[string]attr.Value {
	out := make(map[string]attr.Value, len(it))
	for k, v := range it {
		out[k] = deepCopy(v)
	}
	return out
}

func deepCopy(v attr.Value) attr.Value {
	switch v.T {
	case attr.TypeM:
		v.M = copyItem(v.M)
	case attr.TypeL:
		l := make([]attr.Value, len(v.L))
		for i, e := range v.L {
			l[i] = deepCopy(e)
		}
		v.L = l
	case attr.TypeSS, attr.TypeNS:
		v.SS = append([]string(nil), v.SS...)
	case attr.TypeBS:
		v.BS = append([][]byte(nil), v.BS...)
	}
	return v
}

func TestUpdateApplyErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"SET x = gone", msgNoSuchAttribute},
		{"SET x = gone + :one", msgNoSuchAttribute},
		{"SET x = s + :one", msgWrongType},
		{"SET x = list_append(s, :l)", msgWrongType},
		{"SET gone.a = :n", msgInvalidPath},
		{"SET s.a = :n", msgInvalidPath},
		{"SET s[0] = :n", msgInvalidPath},
		{"SET l[9].a = :n", msgInvalidPath},
		{"SET m.nope.x = :n", msgInvalidPath},
		{"REMOVE s.a", msgInvalidPath},
		{"REMOVE gone.a", msgInvalidPath},
		{"ADD s :one", msgWrongType},
		{"ADD ss :nset", msgWrongType},
		{"DELETE ns :ss", msgWrongType},
		{"DELETE s :ss", msgWrongType},
	}
	for _, tt := range tests {
		_, err := mustUpdateWith(t, tt.src).Apply(updateItem(t))
		e, ok := err.(*Error)
		if !ok || e.Msg != tt.msg || e.Pos != -1 {
			t.Errorf("Apply(%q) error = %v, want %q", tt.src, err, tt.msg)
		}
	}
	src := "ADD n :big"
	c, err := Compile(Input{UpdateExpression: &src, Values: map[string]attr.Value{":big": num("9.9999999999999999999999999999999999999E+125")}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Update.Apply(attr.Item{"n": num("9.9999999999999999999999999999999999999E+125")})
	if err == nil || err.Error() != "Number overflow. Attempting to store a number with magnitude larger than supported range" {
		t.Errorf("overflowing ADD: got %v", err)
	}
}

func TestUpdateApplyNilItem(t *testing.T) {
	got, err := mustUpdateWith(t, "SET a = :n ADD c :one REMOVE d DELETE e :ss").Apply(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := attr.Map(map[string]attr.Value{"a": num("5"), "c": num("1")})
	if !attr.Equal(attr.Map(got), want) {
		t.Errorf("Apply(nil) = %+v, want %+v", got, want)
	}
}

func TestUpdatePathsAndNames(t *testing.T) {
	u := mustUpdateWith(t, "SET a.b = :n, c[1] = :n REMOVE d ADD a2 :one")
	if got, want := u.TopLevelNames(), []string{"a", "c", "d", "a2"}; !equalStrings(got, want) {
		t.Errorf("TopLevelNames() = %v, want %v", got, want)
	}
	var got []string
	for _, p := range u.Paths() {
		got = append(got, p.String())
	}
	if want := []string{"[a, b]", "[c, [1]]", "[d]", "[a2]"}; !equalStrings(got, want) {
		t.Errorf("Paths() = %v, want %v", got, want)
	}
}

// TestCreatesItem: on a missing item, an update of only removals creates
// nothing; any other action, or none at all, creates the item.
func TestCreatesItem(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want bool
	}{
		{"REMOVE", Input{UpdateExpression: ptr("REMOVE a, b")}, false},
		{"DELETE", Input{UpdateExpression: ptr("DELETE s :v"), Values: map[string]attr.Value{":v": ns(t, "1")}}, false},
		{"REMOVE and DELETE", Input{UpdateExpression: ptr("REMOVE a DELETE s :v"), Values: map[string]attr.Value{":v": ns(t, "1")}}, false},
		{"SET", Input{UpdateExpression: ptr("SET a = :v"), Values: map[string]attr.Value{":v": num("1")}}, true},
		{"REMOVE and ADD", Input{UpdateExpression: ptr("REMOVE a ADD n :v"), Values: map[string]attr.Value{":v": num("1")}}, true},
		{"legacy DELETE", Input{AttributeUpdates: map[string]AttributeValueUpdate{"a": {Action: "DELETE"}, "s": {Action: "DELETE", Value: vp(ns(t, "1"))}}}, false},
		{"legacy PUT and DELETE", Input{AttributeUpdates: map[string]AttributeValueUpdate{"a": {Action: "DELETE"}, "b": {Value: vp(num("1"))}}}, true},
		{"legacy empty", Input{AttributeUpdates: map[string]AttributeValueUpdate{}}, true},
	}
	for _, tt := range tests {
		c, err := Compile(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := c.Update.CreatesItem(); got != tt.want {
			t.Errorf("%s: CreatesItem() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
