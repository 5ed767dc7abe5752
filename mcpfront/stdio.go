package mcpfront

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio runs s over newline-delimited JSON-RPC on in and out until in
// ends or ctx is done. Each line passes the batch guard first, as HTTP
// bodies do. A line the SDK could not decode (not JSON, or an id such as
// 1e999) is answered here with a JSON-RPC error worded without internals:
// handed to the SDK, it would end the whole session.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, guard BatchGuard) error {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), maxBody)
		for sc.Scan() {
			line := sc.Bytes()
			rewritten, isBatch, err := guard.Inspect(line)
			switch {
			case len(bytes.TrimSpace(line)) == 0:
			case err == errParse:
				_, _ = w.Write(errorLine(-32700, "Parse error: the line is not valid JSON.")) // a client gone away ends in at EOF
				continue
			case errors.Is(err, errDuplicateKey) || errors.Is(err, errBatchTooLarge):
				// Passed on, the SDK would run what the guard refused.
				_, code, message, _ := guardAnswer(err, isBatch, "")
				_, _ = w.Write(errorLine(code, message))
				continue
			case err != nil || !decodable(rewritten):
				_, _ = w.Write(errorLine(-32600, "Invalid Request: the message could not be read as JSON-RPC (an id is a string or an integer)."))
				continue
			default:
				line = rewritten
			}
			if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{w}})
}

// decodable reports whether the SDK can decode every message of a line.
func decodable(line []byte) bool {
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' {
		var msgs []json.RawMessage
		if json.Unmarshal(t, &msgs) != nil {
			return false
		}
		for _, m := range msgs {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return false
			}
		}
		return true
	}
	_, err := jsonrpc.DecodeMessage(line)
	return err == nil
}

// lineWriter lets the front and the SDK write whole lines to one output
// without interleaving them; the SDK writes each message in one call.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
