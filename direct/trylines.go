package direct

import (
	"sync"
	"time"
)

// tryLines queues the lookups of each reference in this process so that
// they claim their tries one at a time, and lets a lookup skip the store
// when its answer is already known: a try claimed by everyone at once
// would put every lookup in the store's write queue, where on SQLite's
// one writer a burst waits past its deadline and answers with the outage
// sentence, though nothing is down. Two shortcuts keep the queue short
// whatever the burst, and neither evaluates a guess the store did not
// count:
//
//   - Lookups with the same last four join the one still waiting for its
//     turn and share its answer: one guess, counted once.
//   - When a claim is refused as full, every lookup that joined before
//     that claim began is refused too, until the window frees a try: the
//     counter was full during each of their requests, and only a counted
//     try can clear it.
type tryLines struct {
	mu    sync.Mutex
	lines map[string]*tryLine
}

// tryLine is the queue of one counter; it lives while a lookup is in it.
type tryLine struct {
	turn    chan struct{} // holds a token while a claim runs
	users   int
	joined  uint64            // lookups that have joined the line, ever
	pending map[string]*guess // by last four, the guesses still waiting for a turn
	// fullBefore and fullUntil are what the last refused claim showed:
	// lookups numbered below fullBefore joined before it began, and the
	// window stays full until fullUntil.
	fullBefore uint64
	fullUntil  time.Time
}

// guess is one evaluation of a last four, shared by the lookups that
// joined it before it took its turn.
type guess struct {
	line   *tryLine
	last4  string
	number uint64 // when the last of its lookups joined the line
	done   chan struct{}
	r      booked
	err    error
}

// join returns the guess a lookup of counter name with last4 shares, and
// whether it is the caller's to evaluate. The caller calls leave when it
// has its answer.
func (t *tryLines) join(name, last4 string) (g *guess, evaluate bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lines == nil {
		t.lines = map[string]*tryLine{}
	}
	l := t.lines[name]
	if l == nil {
		l = &tryLine{turn: make(chan struct{}, 1), pending: map[string]*guess{}}
		t.lines[name] = l
	}
	l.users++
	n := l.joined
	l.joined++
	if g := l.pending[last4]; g != nil {
		g.number = n // a refusal answers a guess only if all its lookups joined before it
		return g, false
	}
	g = &guess{line: l, last4: last4, number: n, done: make(chan struct{})}
	l.pending[last4] = g
	return g, true
}

// leave takes a lookup out of the line of counter name.
func (t *tryLines) leave(name string, g *guess) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if g.line.users--; g.line.users == 0 {
		delete(t.lines, name)
	}
}

// started marks g as holding its turn, so later lookups start a guess of
// their own, and reports whether a refused claim already answers it at
// now. It returns how many lookups have joined, for refused.
func (t *tryLines) started(g *guess, now time.Time) (full bool, joined uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if g.line.pending[g.last4] == g {
		delete(g.line.pending, g.last4)
	}
	return g.number < g.line.fullBefore && now.Before(g.line.fullUntil), g.line.joined
}

// refused records a claim refused as full that began when joined lookups
// had joined, the window staying full until until.
func (t *tryLines) refused(g *guess, joined uint64, until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g.line.fullBefore, g.line.fullUntil = joined, until
}
