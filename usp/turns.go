package usp

import (
	"context"
	"sync"
)

// turns runs the changes of one booking in this process one at a time.
// A change reads the booking and writes it back conditionally, retried a
// few times on a conflict; changes of one booking in parallel would lose
// those races to each other until some ran out of tries and answered a
// server error, though nothing failed. In turn, a change meets only the
// writers of other instances.
type turns struct {
	mu sync.Mutex
	m  map[string]*turn
}

type turn struct {
	token chan struct{} // holds one while a change runs
	users int
}

// take waits for key's turn, or for ctx to end; done hands the turn on.
func (t *turns) take(ctx context.Context, key string) (done func(), err error) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]*turn{}
	}
	tn := t.m[key]
	if tn == nil {
		tn = &turn{token: make(chan struct{}, 1)}
		t.m[key] = tn
	}
	tn.users++
	t.mu.Unlock()
	leave := func() {
		t.mu.Lock()
		if tn.users--; tn.users == 0 {
			delete(t.m, key)
		}
		t.mu.Unlock()
	}
	select {
	case tn.token <- struct{}{}:
		return func() { <-tn.token; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
