package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitHead is the commit of this checkout. Without git the test skips,
// and under CI=true it fails; a source tree git does not read as a
// checkout (an exported tarball, a clone git refuses as another user's)
// skips.
func gitHead(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git is not installed: %v", err)
		}
		t.Skipf("git is not installed: %v", err)
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git does not read this source tree as a checkout: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestVersionNamesTheRevision: a binary built without link-time values
// or VCS stamps (go test, go run, go build with -buildvcs=false) still
// names the commit of its checkout.
func TestVersionNamesTheRevision(t *testing.T) {
	t.Parallel()
	head := gitHead(t)
	if got := versionLine(); !strings.Contains(got, "revision "+head) {
		t.Fatalf("versionLine() = %q, want revision %s", got, head)
	}
}

// TestVersionFromLinkFlags builds the binary with the Makefile's link
// flags and runs its version command. It leaves out the Makefile's
// -trimpath, which changes no -X value but gives every package a build
// of its own: with it, this one test recompiled the whole module (minutes
// on a cold cache, the longest test of the package); without it the
// packages come from the build of the tests themselves.
func TestVersionFromLinkFlags(t *testing.T) {
	t.Parallel()
	gitHead(t)
	bin := filepath.Join(t.TempDir(), "frontdesk")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.9.9 -X main.revision=0123abcd", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if got, want := string(out), "frontdesk v9.9.9, revision 0123abcd, "; err != nil || !strings.HasPrefix(got, want) {
		t.Fatalf("version = %q, %v; want it to start %q", got, err, want)
	}
}
