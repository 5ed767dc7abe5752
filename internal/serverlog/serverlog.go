// Package serverlog builds the logger of frontdesk's commands: JSON lines
// on standard error, or text on a terminal. A server's lines are written
// in batches: a busy server logs a line for every request, and writing
// each on its own cost a system call per request, about 5% of a read
// tool call's CPU. Its info and debug lines wait at most a batch's
// interval; a warning or an error is written at once, with every line
// before it, so that what explains a failure is on disk when the failure
// is.
package serverlog

import (
	"io"
	"log/slog"
	"os"
)

// New returns a logger writing to w from level up: JSON when w is not a
// terminal, text when it is. With a batch, lines go through it, and
// warnings and errors flush it.
func New(w io.Writer, batch *Batch, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	out := w
	if batch != nil {
		out = batch
	}
	var h slog.Handler = newLineHandler(out, opts)
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			h = slog.NewTextHandler(out, opts)
		}
	}
	if batch != nil {
		h = flushing{h, batch, slog.LevelWarn}
	}
	return slog.New(h)
}
