package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
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
	m, platform := startUSPDemo(b, "")
	url := m.URL
	calls := []struct {
		name, endpoint, tool string
		args                 map[string]any
		// next, when set, gives each call its own arguments.
		next func() map[string]any
	}{
		{"echo", echoServer(b), "echo", map[string]any{"text": "hello"}, nil},
		{"quote_stay", url + "/mcp", "quote_stay", map[string]any{"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02"}, nil},
		{"find_rooms", url + "/mcp", "find_rooms", map[string]any{"property": "riverside", "checkin": "2026-12-30", "checkout": "2027-01-02"}, nil},
		{"find_rooms_3_locations_30_nights", url + "/mcp", "find_rooms", map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-29"}, nil},
		{"usp_availability_query_14_days", url + "/usp/mcp", "usp_availability_query", shuttleQuery14Days(0), nil},
		{"usp_availability_query_14_days_limit_25", url + "/usp/mcp", "usp_availability_query", shuttleQuery14Days(25), nil},
		{"usp_availability_query_14_days_one_page", url + "/usp/mcp", "usp_availability_query", shuttleQuery14Days(500), nil},
		{"usp_bookings_create", url + "/usp/mcp", "usp_bookings_create", nil, uspBookings(b, url, platform)},
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
			params := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
			var latencies []time.Duration
			if c.next != nil {
				latencies = timeEachCall(b, cs, c.tool, c.next)
			} else {
				latencies, _ = timeCalls(b, cs, params)
			}
			b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			// Client and server share this process, so its CPU time per
			// call is what one call costs both sides, whatever else runs
			// on the machine.
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/call")
		})
	}
}

// timeEachCall is timeCalls with new arguments for every call; making
// them is not timed.
func timeEachCall(b *testing.B, cs *mcp.ClientSession, tool string, next func() map[string]any) []time.Duration {
	b.Helper()
	var latencies []time.Duration
	for b.Loop() {
		b.StopTimer()
		params := &mcp.CallToolParams{Name: tool, Arguments: next()}
		b.StartTimer()
		start := time.Now()
		res, err := cs.CallTool(context.Background(), params)
		latencies = append(latencies, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", tool, err, res)
		}
		if sc, _ := res.StructuredContent.(map[string]any); sc["booking"] == nil {
			b.Fatalf("%s made no booking: %v", tool, sc)
		}
	}
	slices.Sort(latencies)
	return latencies
}

// uspBookings gives the arguments of one usp_bookings_create after
// another: the demo platform, with its API key and an idempotency key,
// books the next free shuttle slot of the booking window each time.
func uspBookings(b *testing.B, url string, platform map[string]string) func() map[string]any {
	b.Helper()
	profile := strings.TrimSuffix(strings.TrimPrefix(platform["USP-Agent"], `profile="`), `"`)
	var slots []string
	for day := testNow.AddDate(0, 0, 1); len(slots) < 8000 && day.Before(testNow.AddDate(0, 0, 540)); day = day.AddDate(0, 0, 30) {
		q := fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q,"limit":500}`, day.Format("2006-01-02"), day.AddDate(0, 0, 29).Format("2006-01-02"))
		resp, err := http.Post(url+"/usp/availability/query", "application/json", strings.NewReader(q))
		if err != nil {
			b.Fatal(err)
		}
		var res struct{ Slots []struct{ ID string } }
		json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		for _, s := range res.Slots {
			slots = append(slots, s.ID)
		}
	}
	n := 0
	return func() map[string]any {
		if n == len(slots) {
			b.Fatalf("all %d shuttle slots are booked", n)
		}
		n++
		return map[string]any{
			"service_id": "svc_airport_shuttle", "slot_id": slots[n-1],
			"buyer": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"},
			"_meta": map[string]any{"usp": map[string]any{"profile": profile, "idempotency_key": fmt.Sprintf("00000000-0000-4000-8000-%012d", n),
				"authorization": map[string]any{"mechanism": "api_key", "credential": demoPlatformKey}}},
		}
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

// BenchmarkFindRooms measures find_rooms' own work in process, without
// the SDK or HTTP: the hub's search and the encoding of its answer, for
// one property over 3 nights and for all three over 30. It is what
// bench/replay.sh's heap ÷ frontdesk leaves of a call, and so the part
// that civil's dates and FreeNights' slot lists showed up in.
func BenchmarkFindRooms(b *testing.B) {
	m := startMain(b, "")
	in := testNow.AddDate(0, 0, 29).Format(time.DateOnly)
	ctx := context.Background()
	for _, c := range []struct {
		name, property string
		nights         int
	}{{"one_property_3_nights", "riverside", 3}, {"all_properties_30_nights", "", 30}} {
		out := testNow.AddDate(0, 0, 29+c.nights).Format(time.DateOnly)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := m.hub.FindRooms(ctx, c.property, in, out, 0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
