// Package memplan sets serve's garbage collection and soft memory limit
// for the number of properties it serves, unless the environment does.
package memplan

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
)

// serveGCPercent is the heap growth that starts a garbage collection in
// serve. The MCP SDK's JSON decoder takes a fresh 32 KiB buffer for every
// value it reads, about 160 KB per tool call, while serve's live heap is a
// few megabytes: at Go's default of 100 the collector ran some 60 times a
// second under load and took about a tenth of the CPU. At 400 it runs a
// quarter as often, for a heap of at most five times the live one (a peak
// RSS of 80 to 100 MB under booking load for the demo, against 55 to 60);
// the garbage of startup is returned at once, so an idle server stays at
// its old size.
const serveGCPercent = 400

// A business of many properties keeps a larger live heap (its catalogue,
// prices and caches: about 5 KiB a property, 53 MB at 10,000), and five
// times that is more than a small machine should give it. So serve also
// sets a soft memory limit that grows with the properties: the collector
// runs more often as the heap nears it, and a small business, far below
// it, keeps the cheap GOGC=400. The limit bounds Go's own memory; the
// process holds about 45 MB more at 10,000 properties (the binary's pages
// and SQLite's), so 4 KiB a property keeps it under 200 MB under load.
const (
	// memoryBase is above the demo's peak under booking load. Sixteen
	// busy MCP connections reach it: the collector then runs about a
	// quarter more often, some 3% of their CPU, the price of the bound.
	memoryBase        = 96 << 20
	memoryPerProperty = 4 << 10 // above one more property's share of the live heap
)

// Limit is serve's soft memory limit for a business of n properties.
// The load scripts give every server they compare with serve the same
// (bench/runtime.sh).
func Limit(n int) int64 { return memoryBase + int64(n)*memoryPerProperty }

// Plan sets serve's garbage collection for a business of n
// properties, leaving GOGC and GOMEMLIMIT to the environment when they
// are set there, and returns the line the start banner prints about it.
func Plan(n int, getenv func(string) string) string {
	gc := "GOGC=" + strconv.Itoa(serveGCPercent)
	if v := getenv("GOGC"); v != "" {
		gc = "GOGC=" + v + " (from the environment)"
	} else {
		debug.SetGCPercent(serveGCPercent)
	}
	limit := fmt.Sprintf("soft limit %d MiB for %d properties", Limit(n)>>20, n)
	if v := getenv("GOMEMLIMIT"); v != "" {
		limit = "GOMEMLIMIT=" + v + " (from the environment)"
	} else {
		debug.SetMemoryLimit(Limit(n))
	}
	return fmt.Sprintf("%s, %s; set GOGC or GOMEMLIMIT to change", gc, limit)
}

// NoLimit undoes Plan's limit, for tests that run several
// servers in one process.
func NoLimit() { debug.SetMemoryLimit(math.MaxInt64) }
