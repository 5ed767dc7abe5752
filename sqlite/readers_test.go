package sqlite

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestReadersRunEachReadOnce(t *testing.T) {
	r := newReaders(2)
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			r.do(context.Background(), func() { mu.Lock(); n++; mu.Unlock() })
		})
	}
	wg.Wait()
	if n != 50 {
		t.Fatalf("ran %d reads, want 50", n)
	}
	r.close()
	ran := false
	r.do(context.Background(), func() { ran = true })
	if !ran {
		t.Fatal("a read after close did not run")
	}
}

func TestReadersPanicOnTheCaller(t *testing.T) {
	r := newReaders(1)
	defer r.close()
	defer func() {
		if got := recover(); got != "boom" {
			t.Fatalf("recovered %v, want the read's own panic", got)
		}
	}()
	r.do(context.Background(), func() { panic("boom") })
	t.Fatal("do returned after its read panicked")
}

// A read whose deadline passes while every reader is busy gives up
// without running, as a wait for a pooled connection did.
func TestReadersGiveUpWhenTheContextEnds(t *testing.T) {
	r := newReaders(1)
	defer r.close()
	busy, release := make(chan struct{}), make(chan struct{})
	defer close(release) // before close, which waits for the busy read
	go r.do(context.Background(), func() { close(busy); <-release })
	<-busy
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	out := make(chan error, 1)
	go func() { out <- r.do(ctx, func() { ran = true }) }()
	select {
	case err := <-out:
		if err != context.Canceled || ran {
			t.Fatalf("do = %v, ran %v; want context.Canceled without running", err, ran)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("do waited for a busy reader after its context ended")
	}
}
