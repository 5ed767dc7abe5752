package sqlite

import (
	"sync"
	"testing"
)

func TestReadersRunEachReadOnce(t *testing.T) {
	r := newReaders(2)
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			r.do(func() { mu.Lock(); n++; mu.Unlock() })
		})
	}
	wg.Wait()
	if n != 50 {
		t.Fatalf("ran %d reads, want 50", n)
	}
	r.close()
	ran := false
	r.do(func() { ran = true })
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
	r.do(func() { panic("boom") })
	t.Fatal("do returned after its read panicked")
}
