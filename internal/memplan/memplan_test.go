package memplan

import (
	"math"
	"runtime/debug"
	"testing"
)

// serve collects garbage less often than Go's default and sets a soft
// memory limit that grows with the properties, unless GOGC or GOMEMLIMIT
// say otherwise, and says which in its start banner.
func TestPlanMemory(t *testing.T) {
	restore := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(restore); NoLimit() })
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	line := Plan(3, getenv)
	if got := debug.SetGCPercent(100); got != serveGCPercent {
		t.Errorf("GC percent without GOGC = %d, want %d", got, serveGCPercent)
	}
	if got, want := debug.SetMemoryLimit(-1), Limit(3); got != want {
		t.Errorf("memory limit = %d, want %d", got, want)
	}
	if want := "GOGC=400, soft limit 96 MiB for 3 properties; set GOGC or GOMEMLIMIT to change"; line != want {
		t.Errorf("banner line = %q, want %q", line, want)
	}
	// At 10,000 properties the live heap is about 53 MB and the process
	// holds about 45 MB besides Go's memory: the limit must leave the
	// collector room above the one and the process under 200 MB with
	// the other.
	if got := Limit(10000) >> 20; got < 110 || got > 145 {
		t.Errorf("limit for 10,000 properties = %d MiB, want 110 to 145", got)
	}
	NoLimit()
	env["GOGC"], env["GOMEMLIMIT"] = "100", "1GiB"
	line = Plan(3, getenv)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent with GOGC=100 = %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit with GOMEMLIMIT set = %d, want none of serve's", got)
	}
	if want := "GOGC=100 (from the environment), GOMEMLIMIT=1GiB (from the environment); set GOGC or GOMEMLIMIT to change"; line != want {
		t.Errorf("banner line = %q, want %q", line, want)
	}
}
