package main

import (
	"fmt"
	"runtime"
	"sync"

	"frontdesk/internal/buildinfo"
)

// version and revision are set at link time by the Makefile and .ci:
// -ldflags "-X main.version=v1.2.0 -X main.revision=<commit>".
var (
	version  = "dev"
	revision = ""
)

// buildVersion is the build's version and revision, read once: it may
// ask git.
var buildVersion = sync.OnceValues(func() (string, string) { return buildinfo.Read(version, revision) })

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
