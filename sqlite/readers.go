package sqlite

import (
	"context"
	"sync"
)

// readers run the reads of the read pool on a few long-lived goroutines.
// The driver is SQLite compiled to Go, whose calls need a deep stack: run
// on the goroutine of each request, a read grew that goroutine's stack by
// copying it several times over, which cost as much as the read itself.
// A reader's stack grows once and serves every read after.
type readers struct {
	jobs chan func()
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

func newReaders(n int) *readers {
	r := &readers{jobs: make(chan func()), stop: make(chan struct{})}
	r.wg.Add(n)
	for range n {
		go func() {
			defer r.wg.Done()
			for {
				select {
				case f := <-r.jobs:
					f()
				case <-r.stop:
					return
				}
			}
		}()
	}
	return r
}

// do runs f on a reader and returns once it has run; after close, or on
// no readers at all, on the caller's goroutine. When ctx ends while every
// reader is busy, f does not run and do returns ctx's error, as waiting
// for a connection of the pool did.
func (r *readers) do(ctx context.Context, f func()) error {
	if r == nil {
		f()
		return nil
	}
	done := make(chan struct{})
	var failed any
	job := func() {
		defer close(done)
		defer func() { failed = recover() }()
		f()
	}
	select {
	case r.jobs <- job:
		<-done
	case <-r.stop:
		f()
	case <-ctx.Done():
		return ctx.Err()
	}
	if failed != nil {
		panic(failed) // on the caller's goroutine, as if it had run there
	}
	return nil
}

// close ends the readers once the reads they run have returned.
func (r *readers) close() {
	if r == nil {
		return
	}
	r.once.Do(func() { close(r.stop) })
	r.wg.Wait()
}
