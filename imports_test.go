// Package frontdesk_test holds checks that span the whole module: the
// import rules between packages and the package doc comments.
package frontdesk_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "frontdesk"

// Package roles. Domain packages hold the rules and import no adapter;
// adapters turn the outside world into domain calls and never import each
// other; only the command wires them together.
var (
	domain   = []string{"config", "store", "pricing", "inventory", "location", "hub", "booking", "usp", "orp"}
	adapters = []string{"sqlite", "postgres", "mcptools", "web", "mail", "orphttp", "usphttp"}
	// Test-support packages may import what they test, and nothing imports
	// them outside tests.
	testSupport = []string{"storetest", "internal/golden", "internal/pgtest", "internal/smtptest", "internal/uspspec", "usp/usptest"}
)

type pkg struct {
	dir     string
	doc     bool
	imports map[string]bool // module-relative paths, from non-test files
	tests   map[string]bool // the same, from _test.go files
}

func loadPackages(t *testing.T) map[string]*pkg {
	t.Helper()
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		p := pkgs[dir]
		if p == nil {
			p = &pkg{dir: dir, imports: map[string]bool{}, tests: map[string]bool{}}
			pkgs[dir] = p
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		isTest := strings.HasSuffix(path, "_test.go")
		if !isTest && f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Package "+f.Name.Name+" ") || f.Doc != nil && strings.HasPrefix(f.Doc.Text(), "Command ") {
			p.doc = true
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(ip, module+"/")
			if !ok {
				continue
			}
			if isTest {
				p.tests[rel] = true
			} else {
				p.imports[rel] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func TestEveryPackageHasADocComment(t *testing.T) {
	for dir, p := range loadPackages(t) {
		if dir == "." {
			continue
		}
		if !p.doc {
			t.Errorf("%s: no package doc comment saying what lives there", dir)
		}
	}
}

func TestImportRules(t *testing.T) {
	pkgs := loadPackages(t)
	for _, want := range append(slices.Clone(adapters), "config", "store", "pricing", "inventory", "hub", "mcptools") {
		if _, ok := pkgs[want]; !ok && !slices.Contains([]string{"mail", "booking", "usp", "orp"}, want) {
			t.Errorf("package %s is missing; the rules below would pass vacuously", want)
		}
	}
	for dir, p := range pkgs {
		for imp := range p.imports {
			switch {
			case slices.Contains(domain, dir) && slices.Contains(adapters, imp):
				t.Errorf("domain package %s imports adapter %s", dir, imp)
			case slices.Contains(adapters, dir) && slices.Contains(adapters, imp):
				t.Errorf("adapter %s imports adapter %s; only cmd/frontdesk wires adapters", dir, imp)
			case slices.Contains(testSupport, imp):
				t.Errorf("%s imports test-support package %s outside tests", dir, imp)
			case strings.HasPrefix(imp, "cmd/"):
				t.Errorf("%s imports the command %s", dir, imp)
			case strings.HasPrefix(dir, "internal/") && !strings.HasPrefix(imp, "internal/"):
				t.Errorf("helper %s imports %s; internal helpers stand alone", dir, imp)
			}
		}
	}
}
