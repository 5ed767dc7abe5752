// Package frontdesk_test holds checks that span the whole module: the
// import rules between packages and the package doc comments.
package frontdesk_test

import (
	"fmt"
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
// other; only the command wires them together. Every package of the module
// has exactly one role here: a package missing from these lists fails the
// test, so a new package is placed deliberately.
var (
	// store/sqlstore is the engine-neutral half of the SQL engines: it
	// builds on store's contracts alone, so it sits with the domain and
	// both adapters may import it.
	domain = []string{"config", "store", "store/sqlstore", "message", "pricing", "inventory", "reservation", "quota", "location", "hub", "booking", "booking/chatdoor", "booking/chatdoor/catalogue", "staff", "staff/office", "usp", "usp/pop", "usp/credential", "usp/keyset", "usp/webhook", "orp", "orp/schema"}
	// Leaves are domain packages that import nothing of this module: the
	// contracts every other package builds on.
	leaves   = []string{"store", "message"}
	adapters = []string{"sqlite", "postgres", "web", "mail", "booking/bookingmcp", "orp/orphttp", "orp/orpmcp", "usp/usphttp", "usp/uspmcp"}
	// Fronts are adapter plumbing that adapters build on (the shared MCP
	// front: host and batch guards, sessions, stdio, tool registration).
	// A front knows no protocol: it imports only helpers.
	fronts = []string{"mcpfront"}
	// Helpers under internal/ have one purpose each and stand alone.
	helpers = []string{"internal/civil", "internal/clock", "internal/metrics", "internal/money", "internal/signature", "internal/page", "internal/hostguard", "internal/connlimit", "internal/httpsig", "internal/jwk", "internal/jsonlimit", "internal/clientip", "internal/baseline", "internal/sqlmigrate"}
	// Test-support packages may import what they test, and nothing imports
	// them outside tests.
	testSupport = []string{"storetest", "internal/golden", "internal/pgtest", "internal/citest", "internal/smtptest", "internal/browsertest", "internal/uspspec", "usp/usptest", "internal/signature/signaturetest", "booking/bookingtest"}
	// Commands wire everything; bench holds load scripts; the module root
	// holds only this test.
	wiring = []string{"cmd/frontdesk", "bench", "bench/orpbench", "bench/mcpecho", "bench/crash", "."}
)

// roles returns every classified package with its role.
func roles() map[string]string {
	out := map[string]string{}
	for role, dirs := range map[string][]string{
		"domain": domain, "adapter": adapters, "front": fronts, "helper": helpers, "test support": testSupport, "wiring": wiring,
	} {
		for _, d := range dirs {
			out[d] = role
		}
	}
	return out
}

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

// TestEveryPackageHasARole fails on a package that the role lists do not
// place, and on a listed package that does not exist, so the import rules
// never pass vacuously.
func TestEveryPackageHasARole(t *testing.T) {
	pkgs := loadPackages(t)
	known := roles()
	for dir := range pkgs {
		if _, ok := known[dir]; !ok {
			t.Errorf("package %s has no role; add it to domain, adapters, fronts, helpers, testSupport or wiring in imports_test.go", dir)
		}
	}
	for dir := range known {
		if _, ok := pkgs[dir]; !ok {
			t.Errorf("package %s is listed but missing; the rules would pass vacuously", dir)
		}
	}
}

func TestImportRules(t *testing.T) {
	for dir, p := range loadPackages(t) {
		for imp := range p.imports {
			for _, problem := range importProblems(dir, imp) {
				t.Error(problem)
			}
		}
	}
}

// importProblems lists what is wrong with package dir importing imp,
// both module-relative.
func importProblems(dir, imp string) []string {
	role := roles()
	var out []string
	switch {
	case slices.Contains(leaves, dir):
		out = append(out, fmt.Sprintf("%s imports %s; it is a contract that imports nothing of this module", dir, imp))
	case role[dir] == "domain" && role[imp] != "domain" && role[imp] != "helper":
		out = append(out, fmt.Sprintf("domain package %s imports %s (%s); domain packages import only domain packages and helpers", dir, imp, role[imp]))
	case role[dir] == "front" && role[imp] != "helper":
		out = append(out, fmt.Sprintf("front %s imports %s (%s); a front serves every protocol and imports only helpers", dir, imp, role[imp]))
	case role[dir] == "adapter" && role[imp] == "adapter":
		out = append(out, fmt.Sprintf("adapter %s imports adapter %s; only cmd/frontdesk wires adapters", dir, imp))
	case role[dir] == "helper" && role[imp] != "helper":
		out = append(out, fmt.Sprintf("helper %s imports %s; internal helpers stand alone", dir, imp))
	}
	if role[imp] == "test support" && role[dir] != "test support" {
		out = append(out, fmt.Sprintf("%s imports test-support package %s outside tests", dir, imp))
	}
	if role[imp] == "wiring" {
		out = append(out, fmt.Sprintf("%s imports %s, which nothing imports", dir, imp))
	}
	return out
}

// TestImportProblems checks that each rule refuses what it should and
// lets through what it should.
func TestImportProblems(t *testing.T) {
	tests := []struct {
		dir, imp string
		bad      bool
	}{
		{"hub", "location", false},
		{"orp", "orp/schema", false},
		{"booking", "message", false},
		{"booking", "internal/clock", false},
		{"booking/bookingmcp", "hub", false},
		{"usp/uspmcp", "mcpfront", false},
		{"mcpfront", "internal/hostguard", false},
		{"mcpfront", "usp/uspmcp", true},
		{"mcpfront", "usp", true},
		{"mcpfront", "hub", true},
		{"cmd/frontdesk", "sqlite", false},
		{"storetest", "store", false},
		{"booking", "sqlite", true},
		{"orp/schema", "mail", true},
		{"message", "internal/clock", true},
		{"store", "config", true},
		{"mail", "web", true},
		{"internal/money", "config", true},
		{"hub", "storetest", true},
		{"web", "cmd/frontdesk", true},
		{"pricing", "storetest", true},
	}
	for _, tt := range tests {
		if got := len(importProblems(tt.dir, tt.imp)) > 0; got != tt.bad {
			t.Errorf("%s importing %s refused = %v, want %v", tt.dir, tt.imp, got, tt.bad)
		}
	}
}
