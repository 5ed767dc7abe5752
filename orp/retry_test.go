package orp_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"frontdesk/store"
)

// racingStore loses the race for the next lose Applies, as a store does
// when other writers keep committing the same records first.
type racingStore struct {
	store.Records
	lose atomic.Int64
}

func (s *racingStore) Apply(ctx context.Context, w []store.Write) ([]store.Record, error) {
	if s.lose.Add(-1) >= 0 {
		return nil, &store.WriteError{Index: len(w) - 1, Err: store.ErrConflict}
	}
	return s.Records.Apply(ctx, w)
}

// TestContentionIsRetriedThenRetryable: a message that loses races is
// decided again with backoff and applies; contention that outlasts every
// attempt is answered rate_limited with Retry-After, never internal, and
// applies nothing.
func TestContentionIsRetriedThenRetryable(t *testing.T) {
	e := newEnv(t)
	rs := &racingStore{Records: e.db}
	h := e.newHost(rs)
	p, err := h.Join(context.Background(), []byte("{}"), testAddr)
	if err != nil {
		t.Fatal(err)
	}
	me := &party{id: p.Party, token: p.Token}
	hello := map[string]any{"versions": []string{"0.3"}}

	rs.lose.Store(6)
	if r := h.Send(context.Background(), me.token, testAddr, e.msg(me, "hello", nil, hello)); r.Status != 200 {
		t.Fatalf("hello after six lost races = %d %s, want 200", r.Status, r.Body)
	}

	rs.lose.Store(1000)
	r := h.Send(context.Background(), me.token, testAddr, e.msg(me, "hello", nil, hello))
	var m map[string]any
	json.Unmarshal(r.Body, &m)
	if r.Status != 429 || errCode(m) != "rate_limited" || body(m)["retryable"] != true || r.RetryAfter < 1 {
		t.Fatalf("hello under endless contention = %d %s, want 429 rate_limited, retryable, with Retry-After", r.Status, r.Body)
	}
	rs.lose.Store(0)
	if recs, _ := e.db.List(context.Background(), "orp.msg", "", "", 10); len(recs) != 1 {
		t.Fatalf("%d idempotency keys stored, want only the first hello's", len(recs))
	}
}
