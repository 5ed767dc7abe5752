package mcpfront

import (
	"bytes"
	"net/http"
)

// answerWriter holds back the flush that follows the answer to a POST's
// one call. The SDK flushes every event of a POST's stream as soon as it
// has written it, the answer included, and then ends the response, which
// makes net/http write the end of the body in a second system call and
// the client wait for it. Held back, the answer goes out with the end of
// the response in one write when the handler returns, a moment later;
// and a small answer gets a Content-Length instead of chunks. Every
// other event (a notification, or a request of the server's that the
// client must answer before the call can end) is flushed at once, as
// before.
//
// Only a POST that is not a batch is served through it: its stream ends
// with the answer to its one call, so nothing follows the held flush.
type answerWriter struct {
	http.ResponseWriter
	answered bool // the last write was the answer
}

func (a *answerWriter) Write(b []byte) (int, error) {
	a.answered = isAnswerEvent(b)
	return a.ResponseWriter.Write(b)
}

func (a *answerWriter) Flush() {
	if a.answered {
		a.answered = false
		return
	}
	_ = http.NewResponseController(a.ResponseWriter).Flush() // nothing buffered when it cannot flush
}

func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

var dataField = []byte("data: ")

// isAnswerEvent reports whether b is a server-sent event, as the SDK
// writes one whole, whose data is a JSON-RPC response: a result or an
// error.
func isAnswerEvent(b []byte) bool {
	for i := 0; ; {
		if bytes.HasPrefix(b[i:], dataField) {
			return isResponse(b[i+len(dataField):])
		}
		n := bytes.IndexByte(b[i:], '\n')
		if n < 0 {
			return false
		}
		i += n + 1
	}
}

// isResponse reports whether msg is a JSON-RPC object with a "result" or
// an "error" member before any "method" member. It reads members only
// until it can tell: the SDK writes "jsonrpc" and "id" first, so an
// answer's result is never scanned. Anything it cannot read is not a
// response, and its flush goes ahead.
func isResponse(msg []byte) bool {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return false
	}
	for {
		i = skipSpace(msg, i+1) // past the '{' or the ','
		if i >= len(msg) || msg[i] != '"' {
			return false
		}
		end := valueEnd(msg, i)
		if end < 0 {
			return false
		}
		switch string(msg[i+1 : end-1]) {
		case "result", "error":
			return true
		case "method":
			return false
		}
		i = skipSpace(msg, end)
		if i >= len(msg) || msg[i] != ':' {
			return false
		}
		if i = valueEnd(msg, skipSpace(msg, i+1)); i < 0 {
			return false
		}
		if i = skipSpace(msg, i); i >= len(msg) || msg[i] != ',' {
			return false
		}
	}
}
