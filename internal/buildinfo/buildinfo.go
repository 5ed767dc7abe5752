// Package buildinfo tells which build of frontdesk is running: the
// version and VCS revision set at link time, else what the go command
// recorded, else, for go run, the revision of the checkout the source was
// compiled from. It imports the standard library only.
package buildinfo

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Read returns the version and VCS revision of this binary, given the
// values set at link time ("dev" and "" when none were).
func Read(version, revision string) (v, rev string) {
	v, rev = version, revision
	bi, ok := debug.ReadBuildInfo()
	if ok && v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if rev != "" {
		return v, rev
	}
	if ok {
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" && modified {
			rev += "+modified"
		}
	}
	if rev == "" {
		rev = sourceRevision()
	}
	if rev == "" {
		rev = "unknown"
	}
	return v, rev
}

// sourceRevision asks git for the commit of the directory this file was
// compiled in, when that checkout is still on this machine (go run, go
// test); it is empty otherwise.
func sourceRevision() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "" // built with -trimpath: no source directory to ask
	}
	dir := filepath.Dir(file)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		rev += "+modified"
	}
	return rev
}
