package mcptools

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio runs s over newline-delimited JSON-RPC on in and out until in
// ends or ctx is done. Each line passes the batch guard first, as HTTP
// bodies do.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, guard BatchGuard) error {
	// The guard answers some lines itself; one lock keeps its lines and
	// the SDK's whole.
	lw := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), maxBody)
		for sc.Scan() {
			line := sc.Bytes()
			rewritten, isBatch, err := guard.Inspect(line)
			switch {
			case err == nil:
				line = rewritten
			case errors.Is(err, errDuplicateKey) || errors.Is(err, errBatchTooLarge):
				// Passed on, the SDK would run what the guard refused.
				_, code, message, _ := guardAnswer(err, isBatch, "")
				if _, err := lw.Write(errorLine(code, message)); err != nil {
					return
				}
				continue
			} // any other line goes on, for the SDK to answer
			if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{lw}})
}

// lockedWriter writes each line in one piece.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
