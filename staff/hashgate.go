package staff

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// DefaultHashMemory is the memory all password checks of one process may
// use at once, in KiB: 128 MiB, six checks at DefaultHashing.
const DefaultHashMemory = 128 * 1024

// hashWait is how long a sign-in waits for hashing memory before it is
// refused; a burst of honest sign-ins fits, a flood is turned away
// without hashing.
const hashWait = 2 * time.Second

// hashGate bounds the memory argon2id takes across concurrent password
// checks. Each check reserves the memory its hash names before hashing
// and gives it back once the collector has reclaimed it, so the sum over
// running checks never passes the budget, whatever arrives at once.
// Checks waiting beyond the number that could ever fit are refused at
// once, so waiters cannot pile up either.
type hashGate struct {
	mu      sync.Mutex
	budget  uint32 // KiB
	free    uint32 // KiB
	waiting int
	maxWait int
	freed   chan struct{} // closed, and replaced, whenever memory is given back
}

func newHashGate(budget uint32, typical Hashing) *hashGate {
	slots := max(1, int(budget/max(1, typical.Memory)))
	return &hashGate{budget: budget, free: budget, maxWait: 4 * slots, freed: make(chan struct{})}
}

// acquire reserves kib, waiting until ctx ends. It reports false, having
// reserved nothing, when kib can never fit, too many already wait, or
// ctx ends first. A check for a known device may take the whole budget;
// any other leaves kib free for one, so a flood from unknown clients
// cannot keep a known device waiting for memory.
func (g *hashGate) acquire(ctx context.Context, kib uint32, known bool) bool {
	keep := kib
	if known || kib*2 > g.budget {
		keep = 0
	}
	g.mu.Lock()
	if kib > g.budget || (g.free < kib+keep && g.waiting >= g.maxWait && !known) {
		g.mu.Unlock()
		return false
	}
	g.waiting++
	defer func() {
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
	}()
	for {
		if g.free >= kib+keep {
			g.free -= kib
			g.mu.Unlock()
			return true
		}
		freed := g.freed
		g.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return false
		}
		g.mu.Lock()
	}
}

// release gives kib back after a collection, since argon2's blocks stay
// in the heap as garbage until one runs: without it, a heap grown to
// the budget would grow again by the collector's percentage (serve runs
// at 400) before any of it was reused.
func (g *hashGate) release(kib uint32) {
	runtime.GC()
	g.mu.Lock()
	g.free += kib
	close(g.freed)
	g.freed = make(chan struct{})
	g.mu.Unlock()
}
