package frontdesk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// storeOwners implement or test the store's contracts: their loops on a
// refused write are the store's own business.
var storeOwners = []string{"store", "store/sqlstore", "sqlite", "postgres", "storetest", "internal/pgtest"}

// handLoops are the functions that still repeat a loop of their own
// around a refusal for contention, each named "dir/file.go Func": retry
// loops not yet converted, and sweeps that page on and skip what another
// writer changed. The list only shrinks: convert one to store.Retry,
// store.Retrier or store.Update and take it off.
var handLoops = []string{
	"direct/notice.go Service.recordOutcomes",
	"orp/outcome.go Host.forget",
	"reservation/outbox.go Desk.deliver",
	"reservation/outbox.go Desk.number",
	"reservation/search.go IndexTerms",
	"usp/credential/credential.go Issuer.Sweep",
	"usp/pop/replay.go StoreReplay.Sweep",
	"usp/waitlist_keep.go Business.PurgeWaitlist",
}

// TestNoHandRetryLoops fails when feature code writes a loop of its own
// around a conditional write refused for contention: store.Retry (or a
// Retrier, or store.Update) reads again and decides again, once for
// everyone. A loop is one when its body names store.ErrConflict,
// store.ErrExists, store.WriteError or store.LostRace.
func TestNoHandRetryLoops(t *testing.T) {
	var found []string
	for dir := range loadPackages(t) {
		if slices.Contains(storeOwners, dir) || mayImportConfig(dir) {
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
			src, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, fn := range retryLoops(src) {
				found = append(found, filepath.ToSlash(name)+" "+fn)
			}
		}
	}
	sort.Strings(found)
	for _, loop := range found {
		if !slices.Contains(handLoops, loop) {
			t.Errorf("%s: a loop of its own retries a refused write; use store.Retry, store.Retrier or store.Update", loop)
		}
	}
	for _, loop := range handLoops {
		if !slices.Contains(found, loop) {
			t.Errorf("%s writes no retry loop any more; take it off handLoops", loop)
		}
	}
}

// retryLoops names the functions of f (Recv.Name for methods) with a
// loop that repeats (a for statement, or a range with no value) whose
// body names a refusal for contention.
func retryLoops(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		found := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			var body *ast.BlockStmt
			switch l := n.(type) {
			case *ast.ForStmt:
				body = l.Body
			case *ast.RangeStmt:
				// A range over values walks a collection (a sweep that
				// skips what another writer changed); a range over a
				// count or nothing repeats an attempt.
				if l.Value == nil {
					body = l.Body
				}
			}
			if body != nil && namesContention(body) {
				found = true
			}
			return !found
		})
		if found {
			out = append(out, funcName(fn))
		}
	}
	return out
}

// namesContention reports whether n names one of the store's refusals
// for contention, outside any function literal (a closure handed to
// store.Retry is no loop of its own).
func namesContention(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "store" {
				switch x.Sel.Name {
				case "ErrConflict", "ErrExists", "WriteError", "LostRace":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// TestRetryLoops checks what counts as a hand retry loop.
func TestRetryLoops(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"a loop on a conflict", `package p
func (s *S) f() { for { if errors.Is(s.swap(), store.ErrConflict) { continue }; return } }`, []string{"S.f"}},
		{"a range loop on a refused batch", `package p
func g() { for range 5 { if _, ok := errors.AsType[*store.WriteError](apply()); ok { continue } } }`, []string{"g"}},
		{"a loop that asks LostRace", `package p
func g() { for i := 0; i < 3; i++ { if store.LostRace(try()) { continue } } }`, []string{"g"}},
		{"store.Retry", `package p
func g() { _ = store.Retry(ctx, func() error { if errors.Is(err, store.ErrConflict) { return nil }; return err }) }`, nil},
		{"a loop over records", `package p
func g() { for _, r := range rs { if errors.Is(get(r), store.ErrNotFound) { continue } } }`, nil},
		{"a sweep that skips a changed record", `package p
func g() { for _, r := range rs { if errors.Is(del(r), store.ErrConflict) { continue } } }`, nil},
		{"a conflict outside any loop", `package p
func g() error { if errors.Is(err, store.ErrConflict) { return err }; return nil }`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", tt.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := retryLoops(f); !slices.Equal(got, tt.want) {
				t.Fatalf("retryLoops = %q, want %q", got, tt.want)
			}
		})
	}
}
