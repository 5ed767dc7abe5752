// Package clock hands components the current time through a small
// interface, so tests can fix it. It imports only the standard library.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time. Components read it once per operation.
type Clock interface{ Now() time.Time }

// System is the real clock.
type System struct{}

// Now returns the current UTC time.
func (System) Now() time.Time { return time.Now().UTC() }

// Fixed is a settable clock for tests.
type Fixed struct {
	mu sync.Mutex
	t  time.Time
}

// NewFixed returns a clock stopped at t.
func NewFixed(t time.Time) *Fixed { return &Fixed{t: t} }

// Now returns the set time.
func (f *Fixed) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

// Advance moves the clock by d.
func (f *Fixed) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

// Set moves the clock to t.
func (f *Fixed) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = t
}
