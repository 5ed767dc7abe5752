package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/sqlite"
)

// TestBackupUnderBookingLoad takes a backup with `frontdesk backup` while
// platforms book shuttle slots, is refused a restore into the running
// store, restores the backup into another data directory and finds there
// every booking that was acknowledged before the backup began.
func TestBackupUnderBookingLoad(t *testing.T) {
	m, platform := startUSPDemo(t, "")
	var res struct{ Slots []struct{ ID string } }
	q := fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q,"limit":500}`,
		testNow.AddDate(0, 0, 1).Format("2006-01-02"), testNow.AddDate(0, 0, 30).Format("2006-01-02"))
	_, _, body := post(t, m.URL+"/usp/availability/query", nil, q)
	if err := json.Unmarshal([]byte(body), &res); err != nil || len(res.Slots) < 200 {
		t.Fatalf("availability: %d slots, %v", len(res.Slots), err)
	}
	slots := make(chan string, len(res.Slots))
	for _, s := range res.Slots {
		slots <- s.ID
	}
	close(slots)

	var (
		mu       sync.Mutex
		acked    []string // acknowledged bookings, in order
		backedUp = -1     // how many were acknowledged when the backup began
		errs     []error
	)
	book := func(slot string) error {
		req, _ := http.NewRequest(http.MethodPost, m.URL+"/usp/bookings", strings.NewReader(fmt.Sprintf(
			`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, slot)))
		for k, v := range platform {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var out struct{ Booking struct{ ID string } }
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("book %s: %d %v", slot, resp.StatusCode, err)
		}
		mu.Lock()
		acked = append(acked, out.Booking.ID)
		mu.Unlock()
		return nil
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "backup.db")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for s := range slots {
				if err := book(s); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Go(func() {
		for {
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			if n >= 60 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		backedUp = len(acked)
		mu.Unlock()
		var out strings.Builder
		if err := run(context.Background(), clock.System{}, []string{"backup", "--data", m.Config.Store.DataDir, file}, nil, &out, &out); err != nil {
			mu.Lock()
			errs = append(errs, fmt.Errorf("backup: %v", err))
			mu.Unlock()
		}
	})
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d errors under load, the first: %v", len(errs), errs[0])
	}
	if backedUp < 60 || len(acked) <= backedUp {
		t.Fatalf("%d bookings before the backup and %d in all: the backup did not run under load", backedUp, len(acked))
	}

	var out strings.Builder
	err := run(context.Background(), clock.System{}, []string{"restore", "--data", m.Config.Store.DataDir, file}, nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "in use by another frontdesk process") {
		t.Fatalf("restore into the running store = %v, want a refusal", err)
	}
	restored := filepath.Join(t.TempDir(), "new") // a data directory restore creates
	if err := run(context.Background(), clock.System{}, []string{"restore", "--data", restored, file}, nil, &out, &out); err != nil {
		t.Fatalf("restore = %v", err)
	}
	db, err := sqlite.Open(t.Context(), filepath.Join(restored, "frontdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, ref := range acked[:backedUp] {
		if _, err := db.GetReservation(t.Context(), ref); err != nil {
			t.Errorf("reservation %s, acknowledged before the backup: %v", ref, err)
		}
	}
	t.Logf("%d bookings acknowledged before the backup began, %d in all; %s", backedUp, len(acked), out.String())
}
