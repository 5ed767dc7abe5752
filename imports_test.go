// Package frontdesk_test holds checks that span the whole module: the
// import rules between packages and the package doc comments.
package frontdesk_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
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
	domain = []string{"business", "config", "store", "store/sqlstore", "message", "pricing", "inventory", "reservation", "quota", "location", "hub", "direct", "direct/chatdoor", "direct/chatdoor/catalogue", "staff", "staff/office", "usp", "usp/pop", "usp/credential", "usp/keyset", "usp/webhook", "orp", "orp/schema", "referral", "channel", "payment", "forget", "privacy", "refusal"}
	// Leaves are domain packages that import nothing of this module: the
	// contracts every other package builds on.
	leaves   = []string{"store", "message"}
	adapters = []string{"sqlite", "postgres", "relay", "web", "mail", "internal/failpoint", "direct/directmcp", "orp/orphttp", "orp/orpmcp", "usp/usphttp", "usp/uspmcp", "payment/stripe"}
	// Fronts are adapter plumbing that adapters build on (the shared MCP
	// front: host and batch guards, sessions, stdio, tool registration).
	// A front knows no protocol: it imports only helpers.
	fronts = []string{"mcpfront"}
	// Helpers under internal/ have one purpose each and stand alone:
	// they import other helpers and the leaf contracts only.
	helpers = []string{"internal/outbound", "internal/civil", "internal/clock", "internal/metrics", "internal/money", "internal/signature", "internal/page", "internal/hostguard", "internal/connlimit", "internal/httpsig", "internal/jwk", "internal/jsonlimit", "internal/jsonappend", "internal/clientip", "internal/baseline", "internal/sqlmigrate", "internal/requestid", "internal/filelock", "internal/session", "internal/fault", "internal/tlsfront", "internal/httpfront", "internal/memplan", "internal/serverlog", "internal/deadline", "internal/schedule", "internal/buildinfo", "internal/random", "internal/secretring"}
	// Test-support packages may import what they test, and nothing imports
	// them outside tests.
	testSupport = []string{"storetest", "internal/golden", "internal/pgtest", "internal/citest", "internal/smtptest", "internal/browsertest", "internal/uspspec", "usp/usptest", "internal/signature/signaturetest", "direct/directtest", "inventory/inventorytest", "payment/stripe/stripemock"}
	// Commands wire everything; bench holds load scripts; the module root
	// holds only this test.
	wiring = []string{"cmd/frontdesk", "internal/testsummary", "bench", "bench/history", "bench/mcpreplay", "bench/orpbench", "bench/mcpecho", "bench/bookload", "bench/bookbase", "bench/crash", "bench/soak", "."}
)

// Doors are the ways in, each facing its own callers: direct booking,
// USP and ORP, each with its bindings, the guest site and the staff
// screen. A door is named here by the packages that make it, each with
// its sub-packages (a door's own sub-packages are the same door); a
// package may host more than one door (web serves the guest site's and
// the staff screen's pages, and ORP's approval, claim and partner
// pages). No door imports another: what two doors share belongs in the
// core beneath them (reservation, referral, business…) or a helper.
// Test-support packages are no door.
var doors = map[string][]string{
	"direct booking": {"direct"},
	"USP":            {"usp"},
	"ORP":            {"orp", "web"},
	"guest site":     {"web"},
	"staff screen":   {"web", "staff"},
}

// doorsOf names the doors package dir belongs to, none for a package
// that is no door.
func doorsOf(dir string) []string {
	if slices.Contains(testSupport, dir) {
		return nil
	}
	var out []string
	for name, roots := range doors {
		for _, root := range roots {
			if dir == root || strings.HasPrefix(dir, root+"/") {
				out = append(out, name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// doorProblem says what is wrong with package dir importing imp when
// that is an arrow from one door into another.
func doorProblem(dir, imp string) (string, bool) {
	from, to := doorsOf(dir), doorsOf(imp)
	if len(from) == 0 || len(to) == 0 {
		return "", false
	}
	for _, d := range from {
		if slices.Contains(to, d) {
			return "", false
		}
	}
	return fmt.Sprintf("%s (%s) imports %s (%s); no door imports another door: move what both need into the core or a helper", dir, strings.Join(from, ", "), imp, strings.Join(to, ", ")), true
}

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

// TestConfigStopsAtMain: the owner's file is decoded once, in config,
// and the command hands each service its business values and options.
// No other package imports config outside its tests, except test
// support, which builds options from a file for tests, and bench.
func TestConfigStopsAtMain(t *testing.T) {
	for dir, p := range loadPackages(t) {
		if p.imports["config"] && !mayImportConfig(dir) {
			t.Errorf("%s imports config; take business values or an options struct that cmd/frontdesk builds from the file", dir)
		}
	}
}

// mayImportConfig reports whether package dir may import config: config
// itself, commands, test support and bench.
func mayImportConfig(dir string) bool {
	if dir == "config" || dir == "cmd" || strings.HasPrefix(dir, "cmd/") || dir == "bench" || strings.HasPrefix(dir, "bench/") {
		return true
	}
	return slices.Contains(testSupport, dir)
}

// TestMayImportConfig checks who may import config and who may not.
func TestMayImportConfig(t *testing.T) {
	for dir, want := range map[string]bool{
		"config": true, "cmd/frontdesk": true, "bench/soak": true, "usp/usptest": true, "direct/directtest": true,
		"direct": false, "web": false, "usp": false, "mail": false, "business": false, "internal/page": false,
	} {
		if got := mayImportConfig(dir); got != want {
			t.Errorf("mayImportConfig(%q) = %v, want %v", dir, got, want)
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
	case role[dir] == "helper" && role[imp] != "helper" && !slices.Contains(leaves, imp):
		out = append(out, fmt.Sprintf("helper %s imports %s; internal helpers stand alone", dir, imp))
	}
	if problem, ok := doorProblem(dir, imp); ok {
		out = append(out, problem)
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
		{"direct", "message", false},
		{"direct", "internal/clock", false},
		{"direct/directmcp", "hub", false},
		{"usp/uspmcp", "mcpfront", false},
		{"mcpfront", "internal/hostguard", false},
		{"mcpfront", "usp/uspmcp", true},
		{"mcpfront", "usp", true},
		{"mcpfront", "hub", true},
		{"cmd/frontdesk", "sqlite", false},
		{"storetest", "store", false},
		{"direct", "sqlite", true},
		{"orp/schema", "mail", true},
		{"message", "internal/clock", true},
		{"store", "config", true},
		{"mail", "web", true},
		{"internal/money", "config", true},
		{"internal/session", "store", false},
		{"internal/session", "reservation", true},
		{"hub", "storetest", true},
		{"web", "cmd/frontdesk", true},
		{"pricing", "storetest", true},
		{"usp", "direct", true},
		{"usp/uspmcp", "direct/directmcp", true},
		{"web", "direct", true},
		{"staff/office", "direct", true},
		{"staff", "usp", true},
		{"orp/orphttp", "usp", true},
		{"direct", "staff/office", true},
		{"direct/directmcp", "direct/chatdoor", false},
		{"usp/uspmcp", "usp", false},
		{"web", "staff/office", false},
		{"usp", "reservation", false},
		{"direct", "referral", false},
		{"usp/usptest", "direct", false},
	}
	for _, tt := range tests {
		if got := len(importProblems(tt.dir, tt.imp)) > 0; got != tt.bad {
			t.Errorf("%s importing %s refused = %v, want %v", tt.dir, tt.imp, got, tt.bad)
		}
	}
}

// TestRoutesAreMountedInOneFile: cmd/frontdesk/routes.go gives every
// handler its pattern, so one file lists every entry point. No other
// non-test file builds a ServeMux or registers a pattern, except the
// functions of muxAllowed.
func TestRoutesAreMountedInOneFile(t *testing.T) {
	exempt := map[string]bool{}
	for _, d := range testSupport {
		exempt[d] = true
	}
	for dir := range loadPackages(t) {
		if exempt[dir] {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") || filepath.ToSlash(name) == "cmd/frontdesk/routes.go" {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, problem := range muxProblems(filepath.ToSlash(name), string(src)) {
				t.Error(problem)
			}
		}
	}
}

// muxAllowed are the functions outside routes.go that truly need a mux
// of their own, each with the reason.
var muxAllowed = map[string]string{
	// ORP answers even a not-found or wrong-method request under its
	// paths with Cache-Control: no-store (§4.2). Its catch-all routes
	// hand such requests to a mux of the binding's own patterns, which
	// alone knows whether to answer 404 or 405 with an Allow header;
	// routes.go mounts every route, the catch-alls included.
	"orp/orphttp/orphttp.go Server.Routes": "no-store on not-found and wrong-method answers",
}

// muxProblems lists what in one file's source builds a ServeMux or
// registers a pattern: net/http's mux and its package-level Handle
// functions, and any Handle or HandleFunc call with a pattern (a slog
// handler's Handle(ctx, record) is not one).
func muxProblems(name, src string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return []string{err.Error()}
	}
	nethttp := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "net/http" {
			nethttp = "http"
			if imp.Name != nil {
				nethttp = imp.Name.Name
			}
		}
	}
	muxNames := map[string]bool{"NewServeMux": true, "ServeMux": true, "DefaultServeMux": true, "Handle": true, "HandleFunc": true}
	var out []string
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok {
			if _, ok := muxAllowed[name+" "+funcName(fd)]; ok {
				continue
			}
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && nethttp != "" && id.Name == nethttp && muxNames[n.Sel.Name] {
					out = append(out, fmt.Sprintf("%s: %s.%s; mount every route in cmd/frontdesk/routes.go", fset.Position(n.Pos()), id.Name, n.Sel.Name))
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Handle" && sel.Sel.Name != "HandleFunc" || len(n.Args) != 2 {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == nethttp {
					return true // reported as a selector
				}
				if ctx, ok := n.Args[0].(*ast.Ident); ok && ctx.Name == "ctx" {
					return true
				}
				out = append(out, fmt.Sprintf("%s: %s registers a pattern; mount every route in cmd/frontdesk/routes.go", fset.Position(n.Pos()), sel.Sel.Name))
			}
			return true
		})
	}
	return out
}

// funcName names a function declaration as muxAllowed does: Type.Method
// for a method, the name alone for a function.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// TestMuxProblems checks that the rule refuses each way of building a
// mux or registering a pattern, and lets through handlers, a slog
// handler's Handle and the allowed functions.
func TestMuxProblems(t *testing.T) {
	tests := []struct {
		name, file, src string
		bad             bool
	}{
		{"a new mux", "p/a.go", `package p; import "net/http"; func f() { _ = http.NewServeMux() }`, true},
		{"a mux by its type", "p/a.go", `package p; import "net/http"; var m = new(http.ServeMux)`, true},
		{"a mux literal", "p/a.go", `package p; import nh "net/http"; var m = &nh.ServeMux{}`, true},
		{"the default mux", "p/a.go", `package p; import "net/http"; func f(h http.Handler) { http.Handle("/", h) }`, true},
		{"a pattern on a mux passed in", "p/a.go", `package p; func f(mux M, h H) { mux.HandleFunc("GET /x", h) }`, true},
		{"a pattern from a route", "p/a.go", `package p; func f(mux M, r R) { mux.Handle(r.Pattern, r.Handler) }`, true},
		{"a route list", "p/a.go", `package p; import "net/http"; var r = []R{{"GET /x", http.HandlerFunc(nil)}}`, false},
		{"a slog handler", "p/a.go", `package p; func (h H) Handle(ctx C, r R) error { return h.next.Handle(ctx, r) }`, false},
		{"the allowed ORP mux", "orp/orphttp/orphttp.go", `package orphttp; import "net/http"; func (s *Server) Routes() { _ = http.NewServeMux() }`, false},
		{"another ORP function", "orp/orphttp/orphttp.go", `package orphttp; import "net/http"; func (s *Server) Handler() { _ = http.NewServeMux() }`, true},
	}
	for _, tt := range tests {
		if got := len(muxProblems(tt.file, tt.src)) > 0; got != tt.bad {
			t.Errorf("%s: refused = %v, want %v (%q)", tt.name, got, tt.bad, muxProblems(tt.file, tt.src))
		}
	}
}

// cookieAllowed are the non-test files outside internal/session that set
// a cookie themselves, each with the reason. A credential's cookie (a
// session's, the staff device's) never belongs here: internal/session
// sets those, so all of them carry the same flags.
var cookieAllowed = map[string]string{
	"web/referral_cookie.go": "the referral click id: no credential, only which partner sent the guest",
}

// TestOnlyTheSessionHelperSetsCookies fails when a non-test file outside
// internal/session sets a cookie (http.SetCookie, an http.Cookie value,
// or a Set-Cookie header), so a second session implementation with its
// own cookie flags cannot grow back unnoticed.
func TestOnlyTheSessionHelperSetsCookies(t *testing.T) {
	for dir := range loadPackages(t) {
		if dir == "internal/session" || slices.Contains(testSupport, dir) {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			name = filepath.ToSlash(name)
			if strings.HasSuffix(name, "_test.go") || cookieAllowed[name] != "" {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, problem := range cookieProblems(name, string(src)) {
				t.Error(problem)
			}
		}
	}
}

// cookieProblems lists where one file's source sets a cookie.
func cookieProblems(name, src string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == "http" && (n.Sel.Name == "SetCookie" || n.Sel.Name == "Cookie") {
				out = append(out, fmt.Sprintf("%s: http.%s; set cookies through internal/session", fset.Position(n.Pos()), n.Sel.Name))
			}
		case *ast.BasicLit:
			if v, err := strconv.Unquote(n.Value); err == nil && strings.EqualFold(v, "Set-Cookie") {
				out = append(out, fmt.Sprintf("%s: a Set-Cookie header; set cookies through internal/session", fset.Position(n.Pos())))
			}
		}
		return true
	})
	return out
}

// TestCookieProblems checks that the rule refuses each way of setting a
// cookie and lets reading one through.
func TestCookieProblems(t *testing.T) {
	tests := []struct {
		name, src string
		bad       bool
	}{
		{"SetCookie", `package p; import "net/http"; func f(w http.ResponseWriter) { http.SetCookie(w, nil) }`, true},
		{"a cookie value", `package p; import "net/http"; var c = http.Cookie{Name: "s"}`, true},
		{"a raw header", `package p; import "net/http"; func f(w http.ResponseWriter) { w.Header().Add("Set-Cookie", "s=1") }`, true},
		{"reading a cookie", `package p; import "net/http"; func f(r *http.Request) { _, _ = r.Cookie("s") }`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(cookieProblems("p/a.go", tt.src)) > 0; got != tt.bad {
				t.Fatalf("problems = %v, want %v", got, tt.bad)
			}
		})
	}
}

// ownErrorTypes are the packages that still declare an error type of
// their own besides internal/fault's, each with the reason.
var ownErrorTypes = map[string]string{
	"internal/httpsig": "a helper's verification failures, worded by the USP door",
}

// TestOneErrorType fails when a package outside internal/fault declares
// a coded error struct of its own: domains declare their codes as
// constants of fault.Code and alias fault.Error, so a door maps one type.
func TestOneErrorType(t *testing.T) {
	for dir := range loadPackages(t) {
		if dir == "internal/fault" || ownErrorTypes[dir] != "" {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, spec := range gd.Specs {
					ts := spec.(*ast.TypeSpec)
					if _, isStruct := ts.Type.(*ast.StructType); isStruct && ts.Assign == 0 && ts.Name.Name == "Error" {
						t.Errorf("%s: type Error struct; alias fault.Error (internal/fault) and declare codes as fault.Code constants", fset.Position(ts.Pos()))
					}
				}
			}
		}
	}
}
