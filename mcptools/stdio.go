package mcptools

import (
	"bufio"
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio runs s over newline-delimited JSON-RPC on in and out until in
// ends or ctx is done. Each line passes the batch guard first, as HTTP
// bodies do.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, guard BatchGuard) error {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), maxBody)
		for sc.Scan() {
			line := sc.Bytes()
			if rewritten, _, err := guard.Inspect(line); err == nil {
				line = rewritten
			} // a line that does not parse goes on, for the SDK to answer
			if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}})
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
