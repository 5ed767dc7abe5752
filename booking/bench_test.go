package booking

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// BenchmarkConfirmedBookings measures whole bookings (start with its code
// email, then confirm with its hold and two notices) on each engine with
// the dev mailbox, beside the baseline of one raw single-row commit on the
// same engine. bench/booking.sh turns them into ratios.
func BenchmarkConfirmedBookings(b *testing.B) {
	engines := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"sqlite", func(b *testing.B) store.Store {
			st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
		{"postgres", func(b *testing.B) store.Store {
			st, err := postgres.Open(context.Background(), pgtest.Schema(b))
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
	}
	for _, e := range engines {
		b.Run(e.name+"/raw_commit", func(b *testing.B) {
			st := e.open(b)
			defer st.Close()
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				if _, err := st.Create(ctx, store.Record{Kind: "bench", Key: fmt.Sprint(i), Value: []byte("x"), UpdatedAt: testNow}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
		})
		b.Run(e.name+"/booking", func(b *testing.B) {
			st := e.open(b)
			defer st.Close()
			cfg := config.Demo()
			cfg.Limits.PortfolioEmailHourly, cfg.Limits.PortfolioEmailDaily, cfg.Limits.LocationEmailHourly = 1<<30, 1<<30, 1<<30
			cfg.Limits.PortfolioPending, cfg.Limits.LocationPending = 1<<30, 1<<30
			cfg.Locations[0].Units[1].Count = 1 << 20 // doubles enough for every booking
			w := newWorldOn(b, cfg, st)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				email := fmt.Sprintf("bench%d@example.com", i)
				day := mustDate("2026-12-01").AddDays(i % 500)
				res, err := w.svc.Start(ctx, web, stayArgs("email", email, "checkin", day.String(), "checkout", day.AddDays(1).String()))
				if err != nil {
					b.Fatal(refusalText(err))
				}
				code := w.lastCode(email)
				if _, err := w.svc.Confirm(ctx, web, args("booking_id", res.BookingID, "code", code)); err != nil {
					b.Fatal(refusalText(err))
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bookings/s")
		})
	}
}
