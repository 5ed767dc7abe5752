package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Text string `json:"text"`
}

// echoServer is the baseline: a bare go-sdk tool served the same way, over
// streamable HTTP on loopback, in the same process.
func echoServer(b *testing.B) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut(in), nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkMCPCalls measures tool calls over streamable HTTP, one session
// and one call at a time, for the bare echo baseline and for the read
// tools. bench/mcp.sh turns the results into ratios to the echo.
func BenchmarkMCPCalls(b *testing.B) {
	url := startServer(b, "")
	calls := []struct {
		name, endpoint, tool string
		args                 map[string]any
	}{
		{"echo", echoServer(b), "echo", map[string]any{"text": "hello"}},
		{"quote_stay", url + "/mcp", "quote_stay", map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02"}},
		{"find_rooms", url + "/mcp", "find_rooms", map[string]any{"property": "riverside", "checkin": "2026-12-30", "checkout": "2027-01-02"}},
		{"find_rooms_3_locations_30_nights", url + "/mcp", "find_rooms", map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-29"}},
		{"usp_availability_query_14_days", url + "/usp/mcp", "usp_availability_query", shuttleQuery14Days(0)},
		{"usp_availability_query_14_days_limit_25", url + "/usp/mcp", "usp_availability_query", shuttleQuery14Days(25)},
		{"usp_availability_query_14_days_one_page", url + "/usp/mcp", "usp_availability_query", shuttleQuery14Days(500)},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: c.endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			cpu := processCPU()
			latencies, _ := timeCalls(b, cs, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			// Client and server share this process, so its CPU time per
			// call is what one call costs both sides, whatever else runs
			// on the machine.
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/call")
		})
	}
}

// timeCalls makes the call b.N times, one at a time, and returns the
// latencies sorted and the last answer.
func timeCalls(b *testing.B, cs *mcp.ClientSession, params *mcp.CallToolParams) ([]time.Duration, *mcp.CallToolResult) {
	b.Helper()
	var latencies []time.Duration
	var res *mcp.CallToolResult
	for b.Loop() {
		start := time.Now()
		var err error
		res, err = cs.CallTool(context.Background(), params)
		latencies = append(latencies, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", params.Name, err, res)
		}
	}
	slices.Sort(latencies)
	return latencies, res
}
