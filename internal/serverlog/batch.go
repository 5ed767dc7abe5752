package serverlog

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// flushAt is the size at which a batch is written without waiting.
const flushAt = 64 << 10

// Batch buffers what is written to it and writes it on to its
// destination within its interval, or once a batch reaches flushAt. It
// is safe for concurrent use; batches reach the destination in the
// order their lines were written.
type Batch struct {
	dst   io.Writer
	every time.Duration
	after func(time.Duration, func())

	writing sync.Mutex // held while a batch is written, so batches keep their order

	mu    sync.Mutex
	buf   []byte
	spare []byte // the last batch's buffer, reused for the next one
	armed bool   // a flush is scheduled
}

// NewBatch returns a Batch writing to dst within every. after schedules
// a call (time.AfterFunc, outside tests).
func NewBatch(dst io.Writer, every time.Duration, after func(time.Duration, func())) *Batch {
	return &Batch{dst: dst, every: every, after: after}
}

// Write keeps p for the next batch. It fails only when p completes a
// batch and writing that batch fails.
func (w *Batch) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf = append(w.buf, p...)
	full := len(w.buf) >= flushAt
	if !full && !w.armed {
		w.armed = true
		w.after(w.every, func() { _ = w.Flush() })
	}
	w.mu.Unlock()
	if full {
		return len(p), w.Flush()
	}
	return len(p), nil
}

// Flush writes every line written so far; a nil Batch holds none.
func (w *Batch) Flush() error {
	if w == nil {
		return nil
	}
	w.writing.Lock()
	defer w.writing.Unlock()
	w.mu.Lock()
	batch := w.buf
	w.buf, w.spare = w.spare[:0], nil
	w.armed = false
	w.mu.Unlock()
	if len(batch) == 0 {
		w.keep(batch)
		return nil
	}
	_, err := w.dst.Write(batch)
	w.keep(batch)
	return err
}

// keep offers a written batch's buffer for reuse, unless it grew large.
func (w *Batch) keep(batch []byte) {
	if cap(batch) > 2*flushAt {
		return
	}
	w.mu.Lock()
	if w.spare == nil {
		w.spare = batch[:0]
	}
	w.mu.Unlock()
}

// flushing is a handler writing through w that flushes w after every
// record at level or above.
type flushing struct {
	slog.Handler
	w     *Batch
	level slog.Level
}

func (f flushing) Handle(ctx context.Context, r slog.Record) error {
	err := f.Handler.Handle(ctx, r)
	if r.Level >= f.level {
		if ferr := f.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (f flushing) WithAttrs(as []slog.Attr) slog.Handler {
	return flushing{f.Handler.WithAttrs(as), f.w, f.level}
}

func (f flushing) WithGroup(name string) slog.Handler {
	return flushing{f.Handler.WithGroup(name), f.w, f.level}
}
