package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// BenchmarkScale measures the read tools of a large business beside the
// 3-property demo, one call at a time over one streamable HTTP session:
// find_rooms across every property, list_properties and a one-property
// find_rooms, each with its median and 99th-percentile latency and the
// size of its answer. The large business is the config file named by
// FRONTDESK_SCALE_CONFIG (bench/scale.sh generates it); without it only
// the demo runs. Each run of the benchmark measures both businesses, so
// -count interleaves them.
func BenchmarkScale(b *testing.B) {
	businesses := []struct {
		name string
		cfg  func() (config.Config, error)
	}{{"demo", func() (config.Config, error) { return config.Demo(), nil }}}
	if path := os.Getenv("FRONTDESK_SCALE_CONFIG"); path != "" {
		businesses = append(businesses, struct {
			name string
			cfg  func() (config.Config, error)
		}{"scale", func() (config.Config, error) { return loadConfig(path) }})
	}
	for _, biz := range businesses {
		c, err := biz.cfg()
		if err != nil {
			b.Fatal(err)
		}
		c.Store.DataDir = b.TempDir()
		m, stop := launch(b, c, "127.0.0.1:0", clock.NewFixed(testNow))
		one := c.Locations[len(c.Locations)/2].Slug
		calls := []struct {
			name, tool string
			args       map[string]any
		}{
			{"find_rooms_all", "find_rooms", map[string]any{"checkin": "2026-12-30", "checkout": "2027-01-02"}},
			{"list_properties", "list_properties", map[string]any{}},
			{"find_rooms_one", "find_rooms", map[string]any{"property": one, "checkin": "2026-12-30", "checkout": "2027-01-02"}},
		}
		for _, call := range calls {
			b.Run(biz.name+"/"+call.name, func(b *testing.B) {
				cs := connect(b, m.URL+"/mcp", "2025-11-25")
				defer cs.Close()
				latencies, res := timeCalls(b, cs, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
				body, _ := json.Marshal(res)
				b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "median-ms")
				b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(len(body))/1024, "answer-KB")
			})
		}
		stop()
	}
}
