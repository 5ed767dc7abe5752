package direct

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// TestLastRoomRace: many proved guests confirm Riverside's one studio at
// once; exactly one holds it, the rest get the last-room refusal, and no
// second reference or hold exists.
func TestLastRoomRace(t *testing.T) {
	w := newWorld(t, func(c *config.Config) {
		c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 100, 100, 100
		c.Limits.PortfolioPending, c.Limits.LocationPending = 100, 100
	})
	ctx := context.Background()
	const guests = 8
	ids := make([]string, guests)
	codes := make([]string, guests)
	for i := range guests {
		email := fmt.Sprintf("guest%d@example.com", i)
		res, err := w.start(ctx, web, stayArgs("roomtype", "studio", "checkout", "2027-01-06", "email", email))
		if err != nil {
			t.Fatal(refusalText(err))
		}
		ids[i], codes[i] = res.BookingID, w.lastCode(email)
	}
	var wg sync.WaitGroup
	results := make([]string, guests)
	for i := range guests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := w.confirm(ctx, web, args("booking_id", ids[i], "code", codes[i]))
			if err != nil {
				results[i] = refusalText(err)
			} else {
				results[i] = "OK " + res.ReservationNumber
			}
		}()
	}
	wg.Wait()
	won := 0
	for _, r := range results {
		switch {
		case strings.HasPrefix(r, "OK "):
			won++
		case !strings.HasPrefix(r, "The last room went while you were verifying."):
			t.Errorf("loser answer = %q", r)
		}
	}
	if won != 1 {
		t.Fatalf("%d guests hold the one studio: %v", won, results)
	}
	free, _ := w.svc.inv.FreeNights(ctx, w.cfg.Locations[0], mustDate("2026-12-30"), 7)
	if freeOf(free, "studio") != 0 {
		t.Fatal("the studio is not held")
	}
	recs, err := w.st.ListReservations(ctx, store.ReservationFilter{Limit: 100})
	if err != nil || len(recs) != 1 {
		t.Fatalf("reservation records = %d, %v; want exactly one", len(recs), err)
	}
}

// TestIdenticalConcurrentStarts: identical starts at once give one
// identifier and one email, over many rounds.
func TestIdenticalConcurrentStarts(t *testing.T) {
	w := newWorld(t, func(c *config.Config) {
		c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 1000, 1000, 1000
	})
	ctx := context.Background()
	for round := range 20 {
		email := fmt.Sprintf("round%d@example.com", round)
		var wg sync.WaitGroup
		ids := make([]string, 4)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := w.start(ctx, web, stayArgs("email", email))
				if err != nil {
					ids[i] = refusalText(err)
					return
				}
				ids[i] = res.BookingID
			}()
		}
		wg.Wait()
		for _, id := range ids[1:] {
			if id != ids[0] {
				t.Fatalf("round %d: ids %v", round, ids)
			}
		}
		sent := 0
		for _, m := range w.messages() {
			if m.To[0] == email {
				sent++
			}
		}
		if sent != 1 {
			t.Fatalf("round %d: %d emails, want 1", round, sent)
		}
	}
}

// TestIdenticalConcurrentConfirms: the same valid pair sent at once yields
// one reservation; losers get the in-progress sentence and later the same
// reference.
func TestIdenticalConcurrentConfirms(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	res, _ := w.start(ctx, web, stayArgs())
	code := w.lastCode("ada@example.com")
	var wg sync.WaitGroup
	answers := make([]string, 4)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
			if err != nil {
				answers[i] = refusalText(err)
				return
			}
			answers[i] = conf.ReservationNumber
		}()
	}
	wg.Wait()
	ref := ""
	for _, a := range answers {
		if strings.HasPrefix(a, "RIV-") {
			if ref != "" && a != ref {
				t.Fatalf("two references: %v", answers)
			}
			ref = a
		} else if !strings.HasPrefix(a, "This booking confirmation is still in progress.") {
			t.Fatalf("answer %q", a)
		}
	}
	later, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
	if err != nil || later.ReservationNumber != ref {
		t.Fatalf("later = %v %s, want %s", later, refusalText(err), ref)
	}
}

// TestPendingCeilings: the local ceiling of 3 and the group ceiling of 8
// hold under concurrent confirms.
func TestPendingCeilings(t *testing.T) {
	for _, tc := range []struct {
		name         string
		local, group int
	}{
		{"local", 3, 8},
		{"group", 3, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, func(c *config.Config) {
				c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 100, 100, 100
				c.Limits.LocationPending, c.Limits.PortfolioPending = tc.local, tc.group
			})
			ctx := context.Background()
			type pending struct{ id, code string }
			var starts []pending
			for i := range 6 {
				for _, prop := range []string{"riverside", "oldtown"} {
					email := fmt.Sprintf("p%d-%s@example.com", i, prop)
					res, err := w.start(ctx, web, stayArgs("property", prop, "roomtype", "single", "email", email,
						"checkin", fmt.Sprintf("2027-0%d-10", i+1), "checkout", fmt.Sprintf("2027-0%d-11", i+1)))
					if err != nil {
						t.Fatal(refusalText(err))
					}
					starts = append(starts, pending{res.BookingID, w.lastCode(email)})
				}
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			perLocation := map[string]int{}
			for _, s := range starts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					conf, err := w.confirm(ctx, web, args("booking_id", s.id, "code", s.code))
					if err != nil {
						if !strings.HasPrefix(refusalText(err), "Chat booking is briefly paused while staff confirm existing reservations.") {
							t.Errorf("refusal %q", refusalText(err))
						}
						return
					}
					mu.Lock()
					perLocation[conf.Property]++
					mu.Unlock()
				}()
			}
			wg.Wait()
			// Contention may refuse a confirm that a quieter moment would
			// have admitted; it never admits past a ceiling. Booking on, one
			// at a time, fills each ceiling exactly.
			for i := 6; i < 12; i++ {
				for _, prop := range []string{"riverside", "oldtown"} {
					email := fmt.Sprintf("q%d-%s@example.com", i, prop)
					res, err := w.start(ctx, web, stayArgs("property", prop, "roomtype", "single", "email", email,
						"checkin", fmt.Sprintf("2027-%02d-10", i+1), "checkout", fmt.Sprintf("2027-%02d-11", i+1)))
					if err != nil {
						if !strings.HasPrefix(refusalText(err), "Chat booking is briefly paused while staff confirm existing reservations.") {
							t.Fatalf("start: %s", refusalText(err))
						}
						continue
					}
					if conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode(email))); err == nil {
						perLocation[conf.Property]++
					}
				}
			}
			total := 0
			for loc, n := range perLocation {
				if n > tc.local {
					t.Errorf("%s holds %d pending, over the local ceiling %d", loc, n, tc.local)
				}
				total += n
			}
			if want := min(tc.group, 2*tc.local); total != want {
				t.Fatalf("pending reservations = %d (%v), want %d", total, perLocation, want)
			}
		})
	}
}

// midConfirm runs hook once, when a confirmation reads the pending
// places: after it proved the code, before its transaction.
type midConfirm struct {
	store.Store
	once sync.Once
	hook func()
}

// ListReservations runs the hook at confirmation's read of the proved
// contact's reservations, the last read before its commit.
func (m *midConfirm) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	if f.ContactKey != "" && m.hook != nil {
		m.once.Do(m.hook)
	}
	return m.Store.ListReservations(ctx, f)
}

// TestResendDuringConfirm: a resend that replaces the code while a
// confirmation with the old code is between its reads and its commit
// wins; the old code then commits nothing, and the new one books.
func TestResendDuringConfirm(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "fd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	mc := &midConfirm{Store: st}
	w := newWorldOn(t, config.Demo(), mc)
	ctx := context.Background()
	start, err := w.start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	old := w.lastCode("ada@example.com")
	w.clock.Advance(61 * time.Second)
	mc.hook = func() {
		if _, err := w.start(ctx, web, args("booking_id", start.BookingID)); err != nil {
			t.Errorf("resend: %s", refusalText(err))
		}
	}
	if _, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", old)); !strings.HasPrefix(refusalText(err), sentWrongCode) {
		t.Fatalf("confirm with the replaced code = %q, want the wrong-code sentence", refusalText(err))
	}
	if recs, err := w.st.ListReservations(ctx, store.ReservationFilter{Limit: 10}); err != nil || len(recs) != 0 {
		t.Fatalf("%d reservations after the replaced code (%v), want 0", len(recs), err)
	}
	res, err := w.confirm(ctx, web, args("booking_id", start.BookingID, "code", w.lastCode("ada@example.com")))
	if err != nil || !strings.HasPrefix(res.ReservationNumber, "RIV-") {
		t.Fatalf("confirm with the new code = %+v, %s", res, refusalText(err))
	}
}
