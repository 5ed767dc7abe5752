package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/usp"
)

// BenchmarkMCPAnswer splits the JSON work of one call between the two
// sides of the go-sdk, for the echo baseline and for the default page of
// the 14-day shuttle query, so that the cost of an answer's size can be
// told from the cost of the business logic:
//
//   - structured: structuredContent alone encoded with encoding/json,
//     the part of the server's work that the answer's own types decide;
//   - server: the result encoded as the SDK encodes a response (the
//     result's MarshalJSON, a compacting copy into the response, and
//     another when the message is written);
//   - client: the message as the SDK client decodes it (DecodeMessage,
//     then CallToolResult.UnmarshalJSON, structuredContent into maps).
//
// It reports each answer's bytes on the wire (the SSE event's data).
func BenchmarkMCPAnswer(b *testing.B) {
	m := startMain(b, "")
	query, err := m.usp.QueryAvailability(context.Background(), usp.Call{}, usp.QueryRequest{
		ServiceID: "svc_airport_shuttle",
		StartDate: testNow.AddDate(0, 0, 1).Format("2006-01-02"), EndDate: testNow.AddDate(0, 0, 14).Format("2006-01-02"),
	})
	if err != nil {
		b.Fatal(err)
	}
	answers := []struct {
		name   string
		wire   []byte
		result *mcp.CallToolResult
	}{
		{"echo", answerOf(b, echoServer(b), "echo", map[string]any{"text": "hello"}),
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"text":"hello"}`}}, StructuredContent: echoOut{"hello"}}},
		{"usp_availability_query_14_days", answerOf(b, m.URL+"/usp/mcp", "usp_availability_query", shuttleQuery14Days(0)),
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "50 open slots for svc_airport_shuttle; more on the next page."}}, StructuredContent: query}},
	}
	for _, a := range answers {
		b.Run("structured/"+a.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := json.Marshal(a.result.StructuredContent); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(a.wire)), "wire-bytes")
		})
		b.Run("server/"+a.name, func(b *testing.B) {
			id, _ := jsonrpc.MakeID(float64(2))
			for b.Loop() {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(a.result); err != nil {
					b.Fatal(err)
				}
				if _, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: bytes.TrimSpace(buf.Bytes())}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(a.wire)), "wire-bytes")
		})
		b.Run("client/"+a.name, func(b *testing.B) {
			for b.Loop() {
				msg, err := jsonrpc.DecodeMessage(a.wire)
				if err != nil {
					b.Fatal(err)
				}
				var res mcp.CallToolResult
				if err := json.Unmarshal(msg.(*jsonrpc.Response).Result, &res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(a.wire)), "wire-bytes")
		})
	}
}

// answerOf makes one call over streamable HTTP and returns the JSON-RPC
// response as it came over the wire.
func answerOf(b *testing.B, endpoint, tool string, args map[string]any) []byte {
	b.Helper()
	rec := &recorder{}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rec}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil || res.IsError {
		b.Fatalf("%s: %v %v", tool, err, res)
	}
	_, data, ok := bytes.Cut(rec.last, []byte("\ndata: "))
	if !ok {
		b.Fatalf("%s: no SSE data in %q", tool, rec.last)
	}
	return bytes.TrimSpace(data)
}

// recorder keeps the body of the last POST's answer.
type recorder struct{ last []byte }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err // the standalone GET stream stays open: never read it here
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	r.last = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, err
}
