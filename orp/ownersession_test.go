package orp_test

import (
	"context"
	"errors"
	"testing"

	"frontdesk/internal/session"
	"frontdesk/store"
)

// TestSweepDeletesEndedOwnerSessions: owner sessions that open nothing
// (here one stored in the shape kept before internal/session) do not
// stay in the store; the sweep deletes them.
func TestSweepDeletesEndedOwnerSessions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	legacy := `{"owner":"own_1","csrf":"csrf_1","assurance":"passkey","expires":"2099-01-01T00:00:00Z"}`
	key := session.Key("oss_legacy")
	if _, err := e.db.Create(ctx, store.Record{Kind: "orp.osess", Key: key, Value: []byte(legacy), UpdatedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.host.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Get(ctx, "orp.osess", key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ended owner session after the sweep: %v", err)
	}
	if _, err := e.host.OwnerSession(ctx, "oss_legacy"); err == nil {
		t.Fatal("a session stored before internal/session opened a page")
	}
}
