package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFuncLines is the team's limit on a function's body, in lines between
// its braces. A body that is one type switch may be longer: its cases are
// a table, not a procedure.
const maxFuncLines = 80

// longFuncs returns every function (declared or literal) in the Go files
// under root whose body is over maxFuncLines and is not one type switch,
// as "path name lines".
func longFuncs(root string) ([]string, error) {
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
			name == "testdata" || name == "vendor" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own, not a package of this one
			}
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			fn := "func literal"
			switch n := n.(type) {
			case *ast.FuncDecl:
				body, fn = n.Body, n.Name.Name
			case *ast.FuncLit:
				body = n.Body
			}
			if body == nil {
				return true
			}
			lines := fset.Position(body.Rbrace).Line - fset.Position(body.Lbrace).Line - 1
			if lines > maxFuncLines && !oneTypeSwitch(body) {
				out = append(out, fmt.Sprintf("%s %s %d", filepath.ToSlash(rel), fn, lines))
			}
			return true
		})
		return nil
	})
	return out, err
}

// oneTypeSwitch reports whether body is a single type switch.
func oneTypeSwitch(body *ast.BlockStmt) bool {
	if len(body.List) != 1 {
		return false
	}
	_, ok := body.List[0].(*ast.TypeSwitchStmt)
	return ok
}

// TestFunctionLength enforces maxFuncLines over the whole module, tests
// included, with no exceptions.
func TestFunctionLength(t *testing.T) {
	long, err := longFuncs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range long {
		f := strings.Fields(l)
		t.Errorf("%s %s is %s lines long: split it (at most %d lines, unless the body is one type switch)", f[0], f[1], f[2], maxFuncLines)
	}
}

// TestLongFuncs checks the measure on a sample: a long function, a long
// one-type-switch function, and a short one.
func TestLongFuncs(t *testing.T) {
	dir := t.TempDir()
	long := "package p\n\nfunc Long() {\n" + strings.Repeat("\t_ = 1\n", maxFuncLines+1) + "}\n"
	sw := "package p\n\nfunc Switch(v any) {\n\tswitch v.(type) {\n" + strings.Repeat("\tcase int:\n", maxFuncLines) + "\t}\n}\n"
	short := "package p\n\nfunc Short() {\n" + strings.Repeat("\t_ = 1\n", maxFuncLines) + "}\n"
	for name, src := range map[string]string{"long.go": long, "switch.go": sw, "short.go": short} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := longFuncs(dir)
	if want := []string{fmt.Sprintf("long.go Long %d", maxFuncLines+1)}; err != nil || !slices.Equal(got, want) {
		t.Errorf("longFuncs: got %v, %v, want %v", got, err, want)
	}
}
