package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is this module's import path.
const module = "github.com/ddblocal/ddblocal"

// architectureDoc is the page that draws the tiers: a fenced block
// tagged "tiers" in it lists them, top first, one a line:
//
//	NAME [mutual]: PACKAGE...
//
// A package imports only packages of lower tiers; those of a mutual tier
// may also import each other. Nothing imports ddbtest. "." is the ddblocal
// command itself. A new package needs a line there, and so this test keeps
// the document and the code in step.
const architectureDoc = "docs/ARCHITECTURE.md"

// tier is one line of the document's tiers block.
type tier struct {
	name     string
	packages []string
	mutual   bool // members may import each other
}

// parseTiers reads the tiers block of an architecture document.
func parseTiers(doc string) ([]tier, error) {
	_, block, ok := strings.Cut(doc, "\n```tiers\n")
	if !ok {
		return nil, fmt.Errorf("no ```tiers block")
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		return nil, fmt.Errorf("the ```tiers block is not closed")
	}
	var tiers []tier
	for line := range strings.SplitSeq(block, "\n") {
		head, pkgs, ok := strings.Cut(line, ":")
		fields := strings.Fields(head)
		if !ok || len(fields) == 0 || len(fields) > 2 || (len(fields) == 2 && fields[1] != "mutual") {
			return nil, fmt.Errorf("tiers line %q: want NAME [mutual]: PACKAGE...", line)
		}
		tiers = append(tiers, tier{name: fields[0], packages: strings.Fields(pkgs), mutual: len(fields) == 2})
	}
	return tiers, nil
}

// readTiers returns the tiers of architectureDoc.
func readTiers(t *testing.T) []tier {
	t.Helper()
	b, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	tiers, err := parseTiers(string(b))
	if err != nil {
		t.Fatalf("%s: %v", architectureDoc, err)
	}
	return tiers
}

// checkEdge returns why from may not import to, or "" if it may.
func checkEdge(tiers []tier, from, to string) string {
	fi, ti := tierOf(tiers, from), tierOf(tiers, to)
	switch {
	case fi < 0:
		return fmt.Sprintf("package %q is in no tier: give it a line in the tiers of docs/ARCHITECTURE.md", from)
	case ti < 0:
		return fmt.Sprintf("package %q is in no tier: give it a line in the tiers of docs/ARCHITECTURE.md", to)
	case to == "ddbtest":
		return "nothing imports ddbtest"
	case fi == ti && tiers[fi].mutual:
		return ""
	case ti <= fi:
		return fmt.Sprintf("%s (tier %s) may import only lower tiers than %s, and %s is in tier %s: imports point down (docs/ARCHITECTURE.md, \"Packages, by tier\")",
			from, tiers[fi].name, tiers[fi].name, to, tiers[ti].name)
	}
	return ""
}

// tierOf returns the index of pkg's tier, or -1.
func tierOf(tiers []tier, pkg string) int {
	for i, t := range tiers {
		if slices.Contains(t.packages, pkg) {
			return i
		}
	}
	return -1
}

// moduleImports returns each package directory of the module (relative,
// "." for the root) and the module packages its non-test files import.
func moduleImports(root string) (map[string][]string, error) {
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root && fileExists(filepath.Join(path, "go.mod")) {
			return filepath.SkipDir // a module of its own (ddbcontainer), not a package of this one
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if _, ok := graph[dir]; !ok {
			graph[dir] = nil
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if p == module {
				p = module + "/."
			}
			if rest, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(graph[dir], rest) {
				graph[dir] = append(graph[dir], rest)
			}
		}
		return nil
	})
	return graph, err
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestImportLayering checks every import between the module's packages
// against the tiers.
func TestImportLayering(t *testing.T) {
	tiers := readTiers(t)
	graph, err := moduleImports(".")
	if err != nil {
		t.Fatal(err)
	}
	// The walk must have seen the module, or the test checks nothing.
	for _, e := range [][2]string{{"server", "api"}, {"api", "table"}, {"table", "store"}} {
		if !slices.Contains(graph[e[0]], e[1]) {
			t.Fatalf("import graph lacks %s -> %s: the walk is broken (graph %v)", e[0], e[1], graph)
		}
	}
	for from, tos := range graph {
		if r := checkEdge(tiers, from, from); strings.Contains(r, "in no tier") {
			t.Errorf("%s", r)
		}
		for _, to := range tos {
			if r := checkEdge(tiers, from, to); r != "" {
				t.Errorf("bad import edge %s -> %s: %s", from, to, r)
			}
		}
	}
}

// TestCheckEdge checks the rule itself on edges the design allows and forbids.
func TestCheckEdge(t *testing.T) {
	tiers := readTiers(t)
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{".", "api", true}, {"ddbtest", "server", true}, {"server", "api", true},
		{"api", "partiql", true}, {"api", "table", true}, {"api", "attr", true},
		{"partiql", "ddb", true}, {"auth", "attr", true}, {"admin", "api", true}, {"api", "api/internal/codec", true},
		{"table", "ddb", true}, {"ddb", "attr", true}, {"table", "lsi", true}, {"table", "capacity", true},
		{"table", "gsi", true}, {"table", "streams", true}, {"table", "store", true},
		{"gsi", "index", true}, {"streams", "changelog", true}, {"lsi", "index", true},
		{"table", "api", false}, {"partiql", "api", false}, {"store", "attr", false},
		{"attr", "table", false}, {"gsi", "table", false}, {"partiql", "auth", false},
		{"partiql", "table", false}, {"auth", "table", false}, {"ddb", "table", false}, {"api", "admin", false}, {"capacity", "ddb", false},
		{"server", "ddbtest", false}, {"api", "ddbtest", false}, {"table", "nosuch", false},
		{"nosuch", "attr", false},
	} {
		r := checkEdge(tiers, c.from, c.to)
		if got := r == ""; got != c.ok {
			t.Errorf("checkEdge(%s, %s): got %q, want allowed=%v", c.from, c.to, r, c.ok)
		}
	}
}

// TestParseTiers checks the reading of the document's tiers block.
func TestParseTiers(t *testing.T) {
	doc := "# A\n\n```tiers\ntop mutual: . x\nlow: y z\n```\nmore\n"
	got, err := parseTiers(doc)
	want := []tier{{"top", []string{".", "x"}, true}, {"low", []string{"y", "z"}, false}}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parseTiers: got %v, %v, want %v", got, err, want)
	}
	for _, bad := range []string{"no block", "```tiers\nx: y\n```", "\n```tiers\nx y z: a\n```", "\n```tiers\nnocolon\n```", "\n```tiers\nx: a\n"} {
		if _, err := parseTiers(bad); err == nil {
			t.Errorf("parseTiers(%q): no error", bad)
		}
	}
}

// TestTableSurface keeps table's exported surface to the service, its
// options and the operations (methods of Service): DynamoDB's vocabulary
// lives in ddb, and helpers other packages need belong below table.
func TestTableSurface(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("table/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, exportedTopLevel(f)...)
	}
	slices.Sort(got)
	want := []string{"func New", "type Options", "type Service"}
	if !slices.Equal(got, want) {
		t.Errorf("table exports %v, want only %v", got, want)
	}
}

// exportedTopLevel names f's exported functions (not methods), types,
// variables and constants.
func exportedTopLevel(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out = append(out, "func "+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if sp.Name.IsExported() {
						out = append(out, "type "+sp.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.IsExported() {
							out = append(out, d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}
