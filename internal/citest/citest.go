// Package citest decides what a test does when something it needs from
// outside the repository (a PostgreSQL server, Chromium, a tool the
// documentation's examples call) is missing: on a developer's machine it
// skips with a message, and under CI (CI=true) it fails, so CI can never
// pass by skipping. It imports the standard library only and is used by
// tests alone.
package citest

import (
	"os"
	"testing"
)

// Under reports whether the tests run under CI, which sets CI=true.
func Under() bool { return os.Getenv("CI") == "true" }

// Missing ends the test because what it needs is missing: t.Fatalf under
// CI, t.Skipf elsewhere. The message should say how to provide it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if Under() {
		t.Fatalf("missing under CI: "+format, args...)
	}
	t.Skipf(format, args...)
}
