package mcpfront

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestIsAnswerEvent(t *testing.T) {
	for _, c := range []struct {
		event string
		want  bool
	}{
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\n", true},
		{"event: message\nid: s1_2\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"a,b\",\"result\":{}}\n\n", true},
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"x\"}}\n\n", true},
		{"data: { \"id\" : {\"k\":[1,2]} , \"result\" : null }\n\n", true},
		// A notification, and a request the client must answer before the
		// call can end: both flushed.
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"result\":1}}\n\n", false},
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\",\"params\":{}}\n\n", false},
		{"event: prime\nid: s1_0\n\n", false},
		{"event: message\ndata: [{\"result\":1}]\n\n", false},
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2\n\n", false},
		{"event: message\ndata: {\"jsonrpc\" \"2.0\",\"result\":1}\n\n", false},
		{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"unterminated", false},
		{"data:", false},
		{"", false},
	} {
		if got := isAnswerEvent([]byte(c.event)); got != c.want {
			t.Errorf("isAnswerEvent(%q) = %v, want %v", c.event, got, c.want)
		}
	}
}

// flushCounter records the flushes that reach the connection.
type flushCounter struct {
	http.ResponseWriter
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

func TestAnswerWriterHoldsOnlyTheAnswersFlush(t *testing.T) {
	rec := &flushCounter{ResponseWriter: httptest.NewRecorder()}
	w := &answerWriter{ResponseWriter: rec}
	send := func(event string) {
		w.Write([]byte(event))
		http.NewResponseController(w).Flush() // as the SDK flushes each event
	}
	send("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
	if rec.flushes != 1 {
		t.Fatalf("after a notification: %d flushes, want 1", rec.flushes)
	}
	send("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n")
	if rec.flushes != 1 {
		t.Fatalf("after the answer: %d flushes, want still 1 (held for the end of the response)", rec.flushes)
	}
	// Should anything follow, it is flushed as before.
	http.NewResponseController(w).Flush()
	if rec.flushes != 2 {
		t.Fatalf("a later flush: %d flushes, want 2", rec.flushes)
	}
}

// streamingServer serves through Handler one tool, "wait", which sends a
// progress notification and then waits until the test has read it from
// the stream, and one, "hello", which answers at once.
func streamingServer(t *testing.T) (url string, seen chan struct{}) {
	t.Helper()
	seen = make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "working"})
		if err != nil {
			return nil, nil, err
		}
		select {
		case <-seen:
		case <-time.After(5 * time.Second):
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hello"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil, nil
	})
	srv := httptest.NewServer(Handler(s, HTTPOptions{Hostnames: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	return srv.URL, seen
}

func post(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(SessionHeader, session)
		req.Header.Set(VersionHeader, "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestAnswerGoesOutWithTheEndOfTheResponse: the answer to a call is not
// flushed on its own but written with the end of the response, so a small
// one arrives with a Content-Length, in one piece.
func TestAnswerGoesOutWithTheEndOfTheResponse(t *testing.T) {
	url, _ := streamingServer(t)
	session := post(t, url, "", initializeBody).Header.Get(SessionHeader)
	post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp := post(t, url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{}}}`)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"text":"hello"`) {
		t.Fatalf("answer = %s", body)
	}
	if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 {
		t.Errorf("answer sent with Content-Length %d and transfer encoding %v, want Content-Length %d: it was flushed before the response ended",
			resp.ContentLength, resp.TransferEncoding, len(body))
	}
}

// TestNotificationsStillStream: a notification a call sends before its
// answer reaches the client while the call is still running.
func TestNotificationsStillStream(t *testing.T) {
	url, seen := streamingServer(t)
	session := post(t, url, "", initializeBody).Header.Get(SessionHeader)
	post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	start := time.Now()
	resp := post(t, url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"progressToken":"p"}}}`)
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "notifications/progress") {
			break
		}
	}
	if time.Since(start) > 4*time.Second {
		t.Fatalf("the progress notification arrived only after %v, when the call gave up waiting", time.Since(start))
	}
	close(seen)
	rest, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(rest), `"text":"done"`) {
		t.Fatalf("after the notification: %s", rest)
	}
}
