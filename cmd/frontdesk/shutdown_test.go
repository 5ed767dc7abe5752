package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/store"
)

// slowStore holds availability reads until released, so a call is in
// flight when shutdown begins.
type slowStore struct {
	store.Store
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *slowStore) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return s.Store.Counts(ctx, location, from, to)
}

// TestShutdownFinishesCallsInFlight starts a find_rooms call, begins a
// graceful shutdown while it waits on the store, and checks that the call
// still gets its answer before Run returns.
func TestShutdownFinishesCallsInFlight(t *testing.T) {
	slow := &slowStore{entered: make(chan struct{}), release: make(chan struct{})}
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow),
		Out: io.Discard, ready: make(chan struct{}),
		WrapStore: func(st store.Store) store.Store { slow.Store = st; return slow }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	<-m.ready

	cs := connect(t, m.URL+"/mcp", "2026-07-28")
	answered := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), toolParams("find_rooms", map[string]any{"checkin": "2026-12-10", "checkout": "2026-12-12"}))
		if err == nil && res.IsError {
			err = errText(text(res))
		}
		answered <- err
	}()
	<-slow.entered
	cancel() // SIGTERM arrives while the call waits on the store
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("Run returned %v before the call in flight finished", err)
	default:
	}
	close(slow.release)
	if err := <-answered; err != nil {
		t.Fatalf("call in flight: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
}

// hungStore never answers an availability read, and its Close waits for
// those reads, as a database that stopped answering does.
type hungStore struct {
	slowStore
}

func (s *hungStore) Close() error {
	<-s.release
	return s.Store.Close()
}

// TestShutdownIsBoundedWithAHungStore: a call stuck on the store and a
// store that cannot close hold shutdown no longer than its two grace
// periods.
func TestShutdownIsBoundedWithAHungStore(t *testing.T) {
	hung := &hungStore{slowStore{entered: make(chan struct{}), release: make(chan struct{})}}
	t.Cleanup(func() { close(hung.release) })
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.NewFixed(testNow),
		Out: io.Discard, ready: make(chan struct{}), deadlineScale: 20, // a 10 s grace becomes 500 ms
		WrapStore: func(st store.Store) store.Store { hung.Store = st; return hung }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	<-m.ready
	cs := connect(t, m.URL+"/mcp", "2026-07-28")
	go cs.CallTool(context.Background(), toolParams("find_rooms", map[string]any{"checkin": "2026-12-10", "checkout": "2026-12-12"}))
	<-hung.entered
	cancel()
	select {
	case <-done:
	case <-time.After(10 * m.grace()):
		t.Fatal("Run still waits on a hung store")
	}
}
