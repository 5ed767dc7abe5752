package usp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/inventory"
	"frontdesk/pricing"
	"frontdesk/sqlite"
)

// BenchmarkQueryAvailability is the domain part of the MCP benchmark's
// usp_availability_query: the demo shuttle's first page over 14 days,
// read from a real SQLite file, and the same answer encoded as JSON.
func BenchmarkQueryAvailability(b *testing.B) {
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "usp.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	cfg := config.Demo()
	biz, err := New(Options{
		Config: Config{Portfolio: cfg.Portfolio}, Inventory: inventory.New(st), Pricer: pricing.New(cfg.Portfolio, "https://stays.example"),
		Clock: clock.NewFixed(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)), Origin: "https://stays.example",
	})
	if err != nil {
		b.Fatal(err)
	}
	in := QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-15"}
	b.Run("query", func(b *testing.B) {
		for b.Loop() {
			if _, err := biz.QueryAvailability(context.Background(), Call{}, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("query_and_encode", func(b *testing.B) {
		for b.Loop() {
			res, err := biz.QueryAvailability(context.Background(), Call{}, in)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
