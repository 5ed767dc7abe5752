package serverlog

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// scheduled records what the Writer scheduled, for the test to run.
type scheduled struct {
	mu    sync.Mutex
	waits []time.Duration
	calls []func()
}

func (s *scheduled) after(d time.Duration, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	s.calls = append(s.calls, f)
}

// run runs every call scheduled so far.
func (s *scheduled) run() {
	s.mu.Lock()
	calls := s.calls
	s.calls = nil
	s.mu.Unlock()
	for _, f := range calls {
		f()
	}
}

// writes counts the writes that reach it.
type writes struct {
	bytes.Buffer
	n int
}

func (w *writes) Write(p []byte) (int, error) { w.n++; return w.Buffer.Write(p) }

func TestLinesWaitForTheScheduledFlush(t *testing.T) {
	var dst writes
	var s scheduled
	w := NewBatch(&dst, 50*time.Millisecond, s.after)
	for i := range 3 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	if dst.n != 0 {
		t.Fatalf("%d writes before the flush, want none: %q", dst.n, dst.String())
	}
	if len(s.waits) != 1 || s.waits[0] != 50*time.Millisecond {
		t.Fatalf("scheduled %v, want one flush after 50ms", s.waits)
	}
	s.run()
	if dst.n != 1 || dst.String() != "line 0\nline 1\nline 2\n" {
		t.Fatalf("after the flush: %d writes of %q, want one of the three lines", dst.n, dst.String())
	}
	// The next line schedules the next flush.
	fmt.Fprintln(w, "line 3")
	if len(s.waits) != 2 {
		t.Fatalf("scheduled %d flushes after a line following a flush, want 2", len(s.waits))
	}
	s.run()
	if dst.String() != "line 0\nline 1\nline 2\nline 3\n" {
		t.Fatalf("got %q", dst.String())
	}
}

func TestAFullBatchIsWrittenAtOnce(t *testing.T) {
	var dst writes
	var s scheduled
	w := NewBatch(&dst, time.Hour, s.after)
	line := strings.Repeat("x", 1023) + "\n"
	for range flushAt / len(line) {
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if dst.n != 1 || dst.Len() != flushAt {
		t.Fatalf("%d writes of %d bytes once %d were written, want one of them all", dst.n, dst.Len(), flushAt)
	}
}

func TestWarningsAreWrittenAtOnceAfterTheLinesBeforeThem(t *testing.T) {
	var dst writes
	var s scheduled
	w := NewBatch(&dst, time.Hour, s.after)
	log := slog.New(flushing{slog.NewTextHandler(w, nil), w, slog.LevelWarn}).With("component", "test")
	log.Info("first")
	log.Info("second")
	if dst.n != 0 {
		t.Fatalf("info lines written at once: %q", dst.String())
	}
	log.Warn("third")
	got := dst.String()
	if dst.n != 1 || strings.Count(got, "\n") != 3 {
		t.Fatalf("after a warning: %d writes of %q, want one of three lines", dst.n, got)
	}
	if i, j, k := strings.Index(got, "first"), strings.Index(got, "second"), strings.Index(got, "third"); !(i < j && j < k) {
		t.Fatalf("lines out of order: %q", got)
	}
	log.WithGroup("g").Error("fourth")
	if dst.n != 2 || !strings.HasSuffix(dst.String(), "msg=fourth component=test\n") {
		t.Fatalf("an error through a group: %d writes of %q", dst.n, dst.String())
	}
}

// failing fails every write.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrorsAreReported(t *testing.T) {
	var s scheduled
	w := NewBatch(failing{}, time.Hour, s.after)
	if _, err := w.Write([]byte("a line\n")); err != nil {
		t.Fatalf("a line kept for later: %v", err)
	}
	if err := w.Flush(); err == nil {
		t.Fatal("a failed flush reported no error")
	}
	if _, err := w.Write(make([]byte, flushAt)); err == nil {
		t.Fatal("a full batch that failed reported no error")
	}
	log := slog.New(flushing{slog.NewTextHandler(w, nil), w, slog.LevelWarn})
	if err := log.Handler().Handle(t.Context(), slog.NewRecord(time.Now(), slog.LevelError, "x", 0)); err == nil {
		t.Fatal("an error line that could not be written reported no error")
	}
}

// Many writers at once, flushed by real timers and by size: every line
// arrives whole, once, and each writer's lines in its order.
func TestConcurrentLinesArriveWholeAndInOrder(t *testing.T) {
	var mu sync.Mutex
	var dst bytes.Buffer
	w := NewBatch(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return dst.Write(p)
	}), time.Millisecond, func(d time.Duration, f func()) { time.AfterFunc(d, f) })
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(w, "writer %d line %d %s\n", g, i, strings.Repeat("y", i%200))
			}
		})
	}
	wg.Wait()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	next := make([]int, writers)
	for _, l := range strings.Split(strings.TrimSuffix(dst.String(), "\n"), "\n") {
		var g, i int
		if _, err := fmt.Sscanf(l, "writer %d line %d ", &g, &i); err != nil || g < 0 || g >= writers {
			t.Fatalf("line %q: %v", l, err)
		}
		if i != next[g] || l != fmt.Sprintf("writer %d line %d %s", g, i, strings.Repeat("y", i%200)) {
			t.Fatalf("writer %d: line %q, want line %d whole", g, l, next[g])
		}
		next[g]++
	}
	for g, n := range next {
		if n != lines {
			t.Fatalf("writer %d: %d lines arrived, want %d", g, n, lines)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A destination that stops taking writes holds the writers once a batch
// is full, as a write a line did before; memory does not grow with it.
func TestAStuckDestinationHoldsWritersNotMemory(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got bytes.Buffer
	var s scheduled
	w := NewBatch(writerFunc(func(p []byte) (int, error) {
		<-release
		mu.Lock()
		defer mu.Unlock()
		return got.Write(p)
	}), time.Hour, s.after)
	line := []byte(strings.Repeat("z", 99) + "\n")
	const lines = 10 * flushAt / 100
	held := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.buf)
	}
	// A scheduled flush takes the first line and its write is stuck.
	if _, err := w.Write(line); err != nil {
		t.Fatal(err)
	}
	go s.run()
	for held() != 0 {
		time.Sleep(time.Millisecond)
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		for range lines {
			if _, err := w.Write(line); err != nil {
				t.Error(err)
			}
		}
	}()
	// The next batch fills and its writer waits behind the stuck write.
	deadline := time.Now().Add(10 * time.Second)
	for held() < flushAt {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes held after 10 s, want a second full batch", held())
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // time to run on, if nothing held it
	if n := held(); n > flushAt+len(line) {
		t.Fatalf("%d bytes held while the destination is stuck, want at most %d", n, flushAt+len(line))
	}
	select {
	case <-written:
		t.Fatal("every line was taken while the destination was stuck")
	default:
	}
	close(release)
	<-written
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := (lines + 1) * len(line); got.Len() != want {
		t.Fatalf("%d bytes arrived, want %d", got.Len(), want)
	}
}
