package schema

import "testing"

// TestPatternsAreCompiledOnce: a pattern met again is the one already
// compiled, and a bad one is still refused.
func TestPatternsAreCompiledOnce(t *testing.T) {
	engine := sharedPatterns()
	a, err := engine(`^[A-Za-z0-9_-]{1,64}$`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine(`^[A-Za-z0-9_-]{1,64}$`)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("the same pattern was compiled twice")
	}
	if !a.MatchString("abc_1") || a.MatchString("a b") {
		t.Errorf("%s matches wrongly", a)
	}
	if _, err := engine(`^[a-`); err == nil {
		t.Error("a bad pattern was accepted")
	}
}
