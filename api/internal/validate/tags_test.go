package validate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/table"
)

// operationTypes returns the input and output types of every operation
// method of *table.Service: func(ctx, region string, *In) (*Out, error).
func operationTypes() []reflect.Type {
	var types []reflect.Type
	st := reflect.TypeFor[*table.Service]()
	for i := range st.NumMethod() {
		mt := st.Method(i).Type // receiver first
		if mt.NumIn() == 4 && mt.In(2).Kind() == reflect.String && mt.In(3).Kind() == reflect.Pointer && mt.NumOut() == 2 {
			types = append(types, mt.In(3).Elem(), mt.Out(0))
		}
	}
	return types
}

// taggedFields walks the struct types reachable from types and returns each
// struct field that has a ddb tag, as "pkgname.Type.Field", with the error
// parsing its struct's tags gave.
func taggedFields(types []reflect.Type) map[string]error {
	out := map[string]error{}
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			visit(t.Elem())
			return
		case reflect.Struct:
		default:
			return
		}
		if seen[t] {
			return
		}
		seen[t] = true
		err := parseStruct(t).err
		for i := range t.NumField() {
			sf := t.Field(i)
			if sf.Tag.Get("ddb") != "" {
				out[pkgName(t)+"."+t.Name()+"."+sf.Name] = err
			}
			visit(sf.Type)
		}
	}
	for _, t := range types {
		visit(t)
	}
	return out
}

func pkgName(t reflect.Type) string { p := t.PkgPath(); return p[strings.LastIndex(p, "/")+1:] }

// sourceTags returns every struct field with a ddb tag in the non-test Go
// files under root, as "pkgname.Type.Field".
func sourceTags(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				if fl.Tag == nil {
					continue
				}
				tag, _ := strconv.Unquote(fl.Tag.Value)
				if reflect.StructTag(tag).Get("ddb") == "" {
					continue
				}
				for _, name := range fl.Names {
					found = append(found, f.Name.Name+"."+ts.Name.Name+"."+name.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestDDBTagsParse checks that every ddb tag on the shapes of every
// operation parses and fits its field's type (a bad one would otherwise
// surface only when a request first uses it), and that no ddb tag in ddb's
// source (DynamoDB's shapes) sits where no operation reaches it, unchecked. (Packages
// with operations of their own, outside table.Service, are not walked.)
func TestDDBTagsParse(t *testing.T) {
	checked := taggedFields(operationTypes())
	if len(checked) < 20 {
		t.Fatalf("found only %d tagged fields through the operations: the walk is broken", len(checked))
	}
	for field, err := range checked {
		if err != nil {
			t.Errorf("%s: %v", field, err)
		}
	}
	for _, field := range sourceTags(t, "../../../ddb") {
		if _, ok := checked[field]; !ok {
			t.Errorf("%s has a ddb tag that no operation's input reaches: it is never checked", field)
		}
	}
}

// TestDDBTagErrors checks that bad tags are reported, so that the test
// above can fail.
func TestDDBTagErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  reflect.Type
	}{
		{"unknown rule", reflect.TypeFor[struct {
			A string `ddb:"requird"`
		}]()},
		{"len on a number", reflect.TypeFor[struct {
			A int `ddb:"len=1..2"`
		}]()},
		{"bad pattern", reflect.TypeFor[struct {
			A string `ddb:"pattern=[a-"`
		}]()},
		{"bad bound", reflect.TypeFor[struct {
			A *int64 `ddb:"min=one"`
		}]()},
		{"requiredunless without a field", reflect.TypeFor[struct {
			A []string `ddb:"requiredunless"`
		}]()},
		{"requiredunless of no field", reflect.TypeFor[struct {
			A []string `ddb:"requiredunless=Missing"`
		}]()},
	} {
		if err := parseStruct(c.typ).err; err == nil {
			t.Errorf("%s: parseStruct accepted it", c.name)
		}
	}
}
