package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkUSPCalls measures usp_availability_query over 14 days of the
// demo's airport shuttle on /usp/mcp, one session and one call at a time,
// next to the bare go-sdk echo tool in the same run. bench/usp.sh turns
// the results into ratios to the echo.
func BenchmarkUSPCalls(b *testing.B) {
	url := startServer(b, "")
	start := testNow.AddDate(0, 0, 1).Format("2006-01-02")
	end := testNow.AddDate(0, 0, 14).Format("2006-01-02")
	query := func(limit int) map[string]any {
		args := map[string]any{"service_id": "svc_airport_shuttle", "start_date": start, "end_date": end}
		if limit > 0 {
			args["limit"] = limit
		}
		return args
	}
	calls := []struct {
		name, endpoint, tool string
		args                 map[string]any
	}{
		{"echo", echoServer(b), "echo", map[string]any{"text": "hello"}},
		// The first page at the default size (50 slots and a cursor).
		{"usp_availability_query_14_days", url + "/usp/mcp", "usp_availability_query", query(0)},
		// All 224 slots of the 14 days in one answer.
		{"usp_availability_query_14_days_one_page", url + "/usp/mcp", "usp_availability_query", query(500)},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: c.endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
			latencies := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				latencies = append(latencies, time.Since(t0))
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", c.tool, err, res)
				}
			}
			b.StopTimer()
			slices.Sort(latencies)
			b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
