package main

import (
	"fmt"
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

// tiers are the packages by layer, top first, as shared/DESIGN.md draws
// them: api → {partiql, auth, console} → table → {gsi, index, ...} →
// {changelog, attr, store}. A package imports only packages of lower tiers,
// except that the domain tier's packages may use each other (gsi uses
// index) and the commands may use each other, but never ddbtest. Nothing
// but a command imports api. "." is the ddblocal command itself.
//
// A new package goes into the tier DESIGN.md gives it; one that DESIGN.md
// does not place yet needs a line here (and a note for DESIGN.md).
var tiers = []struct {
	name     string
	packages []string
	mutual   bool // members may import each other
}{
	// server wires store, table and api for the command and ddbtest;
	// integration holds tests only.
	{"commands", []string{".", "bench", "ddbtest", "server", "integration"}, true},
	// admin serves /_ddblocal/ routes; api's codecs and validator are its
	// internal packages.
	{"admin", []string{"admin"}, false},
	{"api", []string{"api"}, false},
	{"wire", []string{"api/internal/codec", "api/internal/validate"}, true},
	{"front", []string{"partiql", "auth", "console"}, false},
	{"service", []string{"table"}, false},
	// ddb is DynamoDB's API model (shapes, error codes); access the
	// scopes, ARNs, callers and policy contract.
	{"model", []string{"ddb"}, false},
	{"rules", []string{"access"}, false},
	// transfer and fixtures are the export/import formats and sample data
	// of the subcommands.
	{"domain", []string{"gsi", "index", "lsi", "expressions", "consistency", "faults", "streams", "throttle", "insights", "transfer", "fixtures"}, true},
	// store/etcdtest embeds etcd servers for tests only.
	{"base", []string{"changelog", "attr", "store", "store/etcdtest", "clock", "partition"}, false},
}

// checkEdge returns why from may not import to, or "" if it may.
func checkEdge(from, to string) string {
	fi, ti := tierOf(from), tierOf(to)
	switch {
	case fi < 0:
		return fmt.Sprintf("package %q is in no tier: add it to tiers in layering_test.go where shared/DESIGN.md places it", from)
	case ti < 0:
		return fmt.Sprintf("package %q is in no tier: add it to tiers in layering_test.go where shared/DESIGN.md places it", to)
	case to == "ddbtest":
		return "nothing imports ddbtest"
	case fi == ti && tiers[fi].mutual:
		return ""
	case ti <= fi:
		return fmt.Sprintf("%s (tier %s) may import only lower tiers than %s, and %s is in tier %s: imports point down (shared/DESIGN.md, \"Packages and the direction of imports\")",
			from, tiers[fi].name, tiers[fi].name, to, tiers[ti].name)
	}
	return ""
}

// tierOf returns the index of pkg's tier, or -1.
func tierOf(pkg string) int {
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

// TestImportLayering checks every import between the module's packages
// against the tiers.
func TestImportLayering(t *testing.T) {
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
		if r := checkEdge(from, from); strings.Contains(r, "in no tier") {
			t.Errorf("%s", r)
		}
		for _, to := range tos {
			if r := checkEdge(from, to); r != "" {
				t.Errorf("bad import edge %s -> %s: %s", from, to, r)
			}
		}
	}
}

// TestCheckEdge checks the rule itself on edges the design allows and forbids.
func TestCheckEdge(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{".", "api", true}, {"ddbtest", "server", true}, {"server", "api", true},
		{"api", "partiql", true}, {"api", "table", true}, {"api", "attr", true},
		{"partiql", "table", true}, {"auth", "attr", true},
		{"table", "gsi", true}, {"table", "streams", true}, {"table", "store", true},
		{"gsi", "index", true}, {"streams", "changelog", true}, {"lsi", "index", true},
		{"table", "api", false}, {"partiql", "api", false}, {"store", "attr", false},
		{"attr", "table", false}, {"gsi", "table", false}, {"partiql", "auth", false},
		{"server", "ddbtest", false}, {"api", "ddbtest", false}, {"table", "nosuch", false},
		{"nosuch", "attr", false},
	} {
		r := checkEdge(c.from, c.to)
		if got := r == ""; got != c.ok {
			t.Errorf("checkEdge(%s, %s): got %q, want allowed=%v", c.from, c.to, r, c.ok)
		}
	}
}
