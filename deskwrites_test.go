package frontdesk_test

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The reservation desk (reservation.Desk) is the only code that builds
// reservation rows, holds and releases. Outside its package, the store
// contracts, the engines that carry the writes out and test support, no
// non-test code may build one of those writes, in any spelling: the check
// reads types, not names, so store.Op(4), an operation worked out at run
// time, an aliased import, a value built field by field, or a hold or
// release reached through a variable of any name, a narrower interface
// or a type parameter are all caught. A store decorator's own Hold and Release methods
// may forward to the store they wrap.
var deskWriters = []string{"reservation", "store", "store/sqlstore", "sqlite", "postgres"}

// deskOps are the store operations only the desk may write.
var deskOps = []string{"OpHold", "OpRelease", "OpCreateReservation", "OpSwapReservation", "OpIndexReservation"}

// deskRule holds the objects of package store and package reservation
// that the rule is about.
type deskRule struct {
	op          types.Type       // store.Op
	ops         map[int64]bool   // the values of deskOps
	rows        []types.Type     // store.Hold, store.Reservation
	index       *types.Interface // store.Index
	moves       []*types.Signature
	reservation *types.Package
}

func newDeskRule(t *testing.T, store, reservation *types.Package) deskRule {
	t.Helper()
	r := deskRule{ops: map[int64]bool{}, reservation: reservation}
	r.op = store.Scope().Lookup("Op").Type()
	for _, name := range deskOps {
		v, ok := constant.Int64Val(store.Scope().Lookup(name).(*types.Const).Val())
		if !ok {
			t.Fatalf("store.%s is not an integer", name)
		}
		r.ops[v] = true
	}
	r.rows = []types.Type{store.Scope().Lookup("Hold").Type(), store.Scope().Lookup("Reservation").Type()}
	r.index = store.Scope().Lookup("Index").Type().Underlying().(*types.Interface)
	for i := range r.index.NumMethods() {
		if m := r.index.Method(i); m.Name() == "Hold" || m.Name() == "Release" {
			r.moves = append(r.moves, m.Type().(*types.Signature))
		}
	}
	if len(r.moves) != 2 {
		t.Fatalf("store.Index has %d of Hold and Release", len(r.moves))
	}
	return r
}

// isRow reports whether t is store.Hold or store.Reservation, or a
// pointer to one.
func (r deskRule) isRow(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	return slices.ContainsFunc(r.rows, func(row types.Type) bool { return types.Identical(t, row) })
}

// movesUnits reports whether m is a Hold or Release method shaped as the
// availability index's: on the index itself, or on any type or interface
// that offers the same method (a narrower interface, a type parameter),
// since any of them may hold the store behind it.
func (r deskRule) movesUnits(m *types.Func) bool {
	sig := m.Type().(*types.Signature)
	return (m.Name() == "Hold" || m.Name() == "Release") &&
		slices.ContainsFunc(r.moves, func(want *types.Signature) bool { return types.Identical(sig, want) })
}

// isOp reports whether e is an expression of type store.Op.
func (r deskRule) isOp(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && types.Identical(tv.Type, r.op)
}

// problems lists what in one package's syntax builds a desk write.
func (r deskRule) problems(fset *token.FileSet, files []*ast.File, info *types.Info) []string {
	var out []string
	seen := map[token.Pos]bool{}
	report := func(n ast.Node, what string) {
		if seen[n.Pos()] {
			return
		}
		seen[n.Pos()] = true
		out = append(out, fmt.Sprintf("%s: %s; only the reservation desk builds reservation, hold and release writes", fset.Position(n.Pos()), what))
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			forwarder := false
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil && (fd.Name.Name == "Hold" || fd.Name.Name == "Release") {
				forwarder = true // a store decorator implementing the index
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch st := n.(type) {
				case *ast.AssignStmt:
					if st.Tok != token.ASSIGN && st.Tok != token.DEFINE && slices.ContainsFunc(st.Lhs, func(e ast.Expr) bool { return r.isOp(info, e) }) {
						report(n, "an operation computed at run time")
					}
				case *ast.IncDecStmt:
					if r.isOp(info, st.X) {
						report(n, "an operation computed at run time")
					}
				}
				expr, ok := n.(ast.Expr)
				if !ok {
					return true
				}
				tv, ok := info.Types[expr]
				switch {
				case ok && tv.Value != nil && types.Identical(tv.Type, r.op):
					if v, exact := constant.Int64Val(tv.Value); exact && r.ops[v] {
						report(n, "a hold, release or reservation operation")
						return false
					}
				case ok && tv.IsType():
					return true
				}
				switch n := n.(type) {
				case *ast.BinaryExpr, *ast.UnaryExpr:
					// A constant is judged by its value above; an Op
					// worked out at run time may be any of them.
					if ok && tv.Value == nil && types.Identical(tv.Type, r.op) {
						report(n, "an operation computed at run time")
					}
				case *ast.CallExpr:
					if fn, ok := info.Types[n.Fun]; ok && fn.IsType() && types.Identical(fn.Type, r.op) {
						if arg, ok := info.Types[n.Args[0]]; !ok || arg.Value == nil {
							report(n, "an operation computed at run time")
						}
					}
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
						if arg, ok := info.Types[n.Args[0]]; ok && arg.IsType() && r.isRow(arg.Type) {
							report(n, "builds a "+arg.Type.String())
						}
					}
				case *ast.CompositeLit:
					if ok && r.isRow(tv.Type) {
						report(n, "builds a "+tv.Type.String())
					}
				case *ast.SelectorExpr:
					if sel, ok := info.Selections[n]; ok {
						switch sel.Kind() {
						case types.FieldVal:
							if r.isRow(sel.Recv()) && assigned(f, n) {
								report(n, "sets a field of a "+sel.Recv().String())
							}
						case types.MethodVal, types.MethodExpr:
							if fn, ok := sel.Obj().(*types.Func); ok && !forwarder && r.movesUnits(fn) {
								report(n, "holds or releases through the index")
							}
						}
					}
					if fn, ok := info.Uses[n.Sel].(*types.Func); ok && fn.Pkg() == r.reservation &&
						fn.Type().(*types.Signature).Recv() == nil && (fn.Name() == "Create" || fn.Name() == "Save") {
						report(n, "reservation."+fn.Name())
					}
				}
				return true
			})
		}
	}
	return out
}

// assigned reports whether sel is written to in f: the left side of an
// assignment, an increment, or the operand of &.
func assigned(f *ast.File, sel *ast.SelectorExpr) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			found = found || slices.ContainsFunc(n.Lhs, func(e ast.Expr) bool { return within(e, sel) })
		case *ast.IncDecStmt:
			found = found || within(n.X, sel)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && within(n.X, sel)
		}
		return !found
	})
	return found
}

// within reports whether sel is e, or the base of an index or field
// expression e (h.Slots[0] = … writes h.Slots).
func within(e ast.Expr, sel *ast.SelectorExpr) bool {
	for {
		if e == ast.Expr(sel) {
			return true
		}
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return false
		}
	}
}

// loadTyped loads every package of the module with its syntax and types
// (no test files).
func loadTyped(t *testing.T) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatalf("load packages: %v", err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("load %s: %v", p.PkgPath, e)
		}
	}
	return pkgs
}

// TestOnlyTheDeskWritesReservations applies deskRule to every package
// outside the desk's package, the store and its engines, and test
// support.
func TestOnlyTheDeskWritesReservations(t *testing.T) {
	pkgs := loadTyped(t)
	byPath := map[string]*packages.Package{}
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
	}
	rule := newDeskRule(t, byPath[module+"/store"].Types, byPath[module+"/reservation"].Types)
	exempt := map[string]bool{}
	for _, d := range append(slices.Clone(deskWriters), testSupport...) {
		exempt[module+"/"+d] = true
	}
	checked := 0
	for _, p := range pkgs {
		if exempt[p.PkgPath] {
			continue
		}
		checked++
		for _, problem := range rule.problems(p.Fset, p.Syntax, p.TypesInfo) {
			t.Error(problem)
		}
	}
	if checked < 40 {
		t.Fatalf("checked %d packages; the module has more", checked)
	}
}

// TestDeskWriteProblems checks that the rule refuses each way of building
// a desk write, however it is spelt, and lets through naming the types,
// record writes, reads and a decorator's forwarding.
func TestDeskWriteProblems(t *testing.T) {
	pkgs := loadTyped(t)
	// Every import resolves to the package the loader already typed, so
	// context.Context in a snippet is the one store's methods take.
	byPath := map[string]*types.Package{}
	var add func(p *types.Package)
	add = func(p *types.Package) {
		if _, ok := byPath[p.Path()]; ok {
			return
		}
		byPath[p.Path()] = p
		for _, imp := range p.Imports() {
			add(imp)
		}
	}
	for _, p := range pkgs {
		add(p.Types)
	}
	rule := newDeskRule(t, byPath[module+"/store"], byPath[module+"/reservation"])
	const head = `package p
import (
	"context"
	"time"
	"frontdesk/reservation"
	"frontdesk/store"
	st "frontdesk/store"
)
var _, _, _ = reservation.Get, st.OpCreate, time.Second
var _ context.Context
type deco struct{ store.Store }
`
	tests := []struct {
		name, src string
		bad       bool
	}{
		{"a hold write", `var w = store.Write{Op: store.OpHold}`, true},
		{"a release write", `var w = store.Write{Op: store.OpRelease}`, true},
		{"a reservation create", `var op = store.OpCreateReservation`, true},
		{"a reservation swap", `var op = st.OpSwapReservation`, true},
		{"a hold spelt as a number", `var w = store.Write{Op: store.Op(4)}`, true},
		{"a hold spelt as an untyped number", `var w = store.Write{Op: 4}`, true},
		{"an operation computed at run time", `func f(n int) store.Write { return store.Write{Op: store.Op(n)} }`, true},
		{"a hold built", `var h = store.Hold{ID: "x"}`, true},
		{"a row built", `var r = &st.Reservation{Reference: "x"}`, true},
		{"a hold built with new", `var h = new(store.Hold)`, true},
		{"a hold built field by field", `func f() store.Hold { var h store.Hold; h.ID = "x"; h.Units = 1; return h }`, true},
		{"a row's value set", `func f(r *store.Reservation) { r.Value[0] = 'x' }`, true},
		{"a row's state set through a pointer", `func f(r *store.Reservation) { p := &r.State; *p = "x" }`, true},
		{"holds in a slice literal", `var hs = []store.Hold{{ID: "x"}}`, true},
		{"reservation.Save", `var f = reservation.Save`, true},
		{"a hold through the index", `func f(ctx context.Context, s store.Store, h store.Hold) { _ = s.Hold(ctx, h) }`, true},
		{"a hold through an index of another name", `func f(c context.Context, idx store.Index, h store.Hold) { _ = idx.Hold(c, h) }`, true},
		{"a release through the index", `func f(x context.Context, s store.Store) { _ = s.Release(x, "id", time.Time{}) }`, true},
		{"a hold as a method value", `func f(s store.Store) { g := s.Hold; _ = g }`, true},
		{"a hold as a method expression", `var g = store.Index.Hold`, true},
		{"a hold spelt as a number, built field by field", `func f(ctx context.Context, s store.Store) error {
	var h store.Hold
	h.ID, h.Location, h.Unit, h.Slots, h.Units, h.Capacity = "x", "l", "u", []string{"2026-12-01"}, 1, 2
	_, err := s.Apply(ctx, []store.Write{{Op: store.Op(4), Hold: &h}})
	return err
}`, true},
		{"a hold through a field of another name", `type door struct{ st store.Store }
func (b door) f(c context.Context, h store.Hold) error { return b.st.Hold(c, h) }`, true},
		{"a release through a field of an interface of its own", `type door struct {
	units interface {
		Release(context.Context, string, time.Time) error
	}
}
func (b door) f(c context.Context) error { return b.units.Release(c, "id", time.Time{}) }`, true},
		{"a hold through a type parameter", `func f[T interface{ Hold(context.Context, store.Hold) error }](c context.Context, s T, h store.Hold) error { return s.Hold(c, h) }`, true},
		{"an operation stepped from a record write", `func f() store.Write { op := store.OpCreate; op += 3; return store.Write{Op: op} }`, true},
		{"an operation counted up", `func f() store.Write { op := store.OpDelete; op++; return store.Write{Op: op} }`, true},
		{"an operation added at run time", `func f(n store.Op) store.Write { return store.Write{Op: store.OpCreate + n} }`, true},
		{"a constant sum naming a hold", `var w = store.Write{Op: store.OpCreate + 3}`, true},
		{"a constant sum naming a swap", `var w = store.Write{Op: store.OpCreate + 1}`, false},
		{"a release method of another shape", `type lock struct{}
func (lock) Release(name string) error { return nil }
func f(l lock) error { return l.Release("x") }`, false},
		{"a record write", `var w = store.Write{Op: store.OpCreate}`, false},
		{"a counter write", `var w = store.Write{Op: store.OpTake}`, false},
		{"naming the hold type", `func f(h store.Hold) string { return h.ID }`, false},
		{"reading a row's fields", `func f(r store.Reservation) (string, int) { return r.Reference, len(r.Value) }`, false},
		{"reading a reservation", `var f = reservation.Get`, false},
		{"counting through the index", `func f(ctx context.Context, s store.Store) { _, _ = s.Counts(ctx, "l", "a", "b") }`, false},
		{"a decorator forwarding", `func (d deco) Hold(ctx context.Context, h store.Hold) error { return d.Store.Hold(ctx, h) }`, false},
	}
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p, ok := byPath[path]; ok {
			return p, nil
		}
		return nil, fmt.Errorf("package %s is not imported by the module", path)
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", head+tt.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
			if _, err := (&types.Config{Importer: imp}).Check("p", fset, []*ast.File{f}, info); err != nil {
				t.Fatalf("type-check: %v", err)
			}
			problems := rule.problems(fset, []*ast.File{f}, info)
			if got := len(problems) > 0; got != tt.bad {
				t.Errorf("refused = %v, want %v (%s)", got, tt.bad, strings.Join(problems, "; "))
			}
		})
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
