package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// version and revision are set at link time by the Makefile and .ci:
// -ldflags "-X main.version=v1.2.0 -X main.revision=<commit>".
var (
	version  = "dev"
	revision = ""
)

// buildVersion is readBuildVersion, read once: it may ask git.
var buildVersion = sync.OnceValues(readBuildVersion)

// readBuildVersion returns the version and VCS revision of this binary: the
// values set at link time, else what the go command recorded (go build in
// a git checkout stamps vcs.revision and a pseudo-version), else, for go
// run, which stamps nothing, the revision of the checkout the source was
// compiled from, read from git.
func readBuildVersion() (v, rev string) {
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

// moduleVersion is the version of this binary, as MCP servers announce it.
func moduleVersion() string {
	v, _ := buildVersion()
	return v
}

// versionLine names the version, the VCS revision and the Go release of
// the build.
func versionLine() string {
	v, rev := buildVersion()
	return fmt.Sprintf("frontdesk %s, revision %s, %s", v, rev, runtime.Version())
}
