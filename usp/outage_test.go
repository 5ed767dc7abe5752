package usp_test

import (
	"context"
	"database/sql"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// outageBench is a business whose profile fetcher keeps pins in its
// store, with a platform server the test can take down.
func outageBench(t *testing.T) (*usptest.Business, *usptest.Platforms) {
	t.Helper()
	plat := usptest.NewPlatforms(t, map[string]string{"/cached/full.json": fullProfile, "/full.json": fullProfile})
	path := filepath.Join(t.TempDir(), "usp.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFixed(usptest.Now)
	profiles := usp.NewProfiles(usp.ProfileOptions{AllowPrivate: true, RootCAs: plat.Roots(), Clock: clk, Pins: st, MaxStale: time.Hour})
	return usptest.On(t, usptest.WithPlatform(config.Demo()), st, clk, plat, profiles, path), plat
}

// book books the first open shuttle slot of 2 March.
func (b *bench) book(t *testing.T, call usp.Call) (*usp.BookingResult, error) {
	t.Helper()
	slot := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	return b.CreateBooking(context.Background(), call, usp.CreateRequest{ServiceID: "svc_airport_shuttle", SlotID: slot.ID, Buyer: ada})
}

// TestBookingOnAPinnedProfileWhileItsHostIsDown: a profile pinned ahead
// of time is what calls naming its URI are checked against; its host is
// never asked, so one that does not even resolve books as well as one
// that is up, and the pin on the running server is not fetched either.
func TestBookingOnAPinnedProfileWhileItsHostIsDown(t *testing.T) {
	b, plat := outageBench(t)
	ctx := context.Background()
	bench := &bench{Business: b, plat: plat}
	down := "https://platform.invalid/usp/profile.json"
	if err := usp.PinProfile(ctx, b.Store, down, []byte(fullProfile), "file", b.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	call := platformCall(plat)
	call.Profile = down
	res, err := bench.book(t, call)
	if err != nil || res.Booking == nil {
		t.Fatalf("booking on a pinned profile whose host is down: %v %+v", err, res)
	}
	// A pin of a URI whose server is up: still no fetch.
	if err := usp.PinProfile(ctx, b.Store, plat.URL+"/full.json", []byte(fullProfile), "fetched", b.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	if got := plat.Hits("/full.json").Load(); got != 0 {
		t.Fatalf("pinned profile fetched %d times", got)
	}
	pins, err := usp.PinnedProfiles(ctx, b.Store)
	if err != nil || len(pins) != 2 || pins[0].URI != down && pins[1].URI != down {
		t.Fatalf("pins = %+v, %v", pins, err)
	}
	// A pin is checked like a fetched profile.
	if err := usp.PinProfile(ctx, b.Store, "https://x.example/p.json", []byte(`{"usp":{}}`), "file", b.Clock.Now()); err == nil {
		t.Fatal("a malformed profile was pinned")
	}
	if err := usp.PinProfile(ctx, b.Store, "http://x.example/p.json", []byte(fullProfile), "file", b.Clock.Now()); err == nil {
		t.Fatal("a plain-http URI was pinned")
	}
}

// TestBookingOnACachedProfileWhileItsHostIsDown: a fetched profile past
// its max-age is served stale while its host is down, for its
// stale-if-error (30 min, under the fetcher's hour), and not after.
func TestBookingOnACachedProfileWhileItsHostIsDown(t *testing.T) {
	b, plat := outageBench(t)
	bench := &bench{Business: b, plat: plat}
	call := platformCall(plat)
	call.Profile = plat.URL + "/cached/full.json"
	if res, err := bench.book(t, call); err != nil || res.Booking == nil {
		t.Fatalf("first booking: %v %+v", err, res)
	}
	plat.Close()
	b.Clock.Advance(10 * time.Minute) // past max-age=120
	res, err := bench.book(t, call)
	if err != nil || res.Booking == nil {
		t.Fatalf("booking on the cached profile with its host down: %v %+v", err, res)
	}
	if got := plat.Hits("/cached/full.json").Load(); got != 1 {
		t.Fatalf("profile fetched %d times, want once", got)
	}
	b.Clock.Advance(30 * time.Minute) // past stale-if-error=1800
	_, err = bench.book(t, call)
	if code(t, err) != usp.CodeProfileUnreachable {
		t.Fatalf("past the stale bound: %v, want profile_unreachable", err)
	}
}

// TestProfileCAFile: usp.profile_ca_file adds a CA to the system roots
// for profile fetches; without it the platform's private certificate is
// not trusted, and a file without certificates is refused at start.
func TestProfileCAFile(t *testing.T) {
	plat := usptest.NewPlatforms(t, nil)
	ctx := context.Background()
	clk := clock.NewFixed(usptest.Now)
	var u usp.ProfileFetch // the demo's: every bound at its default
	allowPrivate := config.Demo().AllowPrivate()
	plain, err := usp.ConfiguredProfiles(u, allowPrivate, clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Get(ctx, plat.URL+"/platform.json"); code(t, err) != usp.CodeProfileUnreachable {
		t.Fatalf("a private CA without profile_ca_file: %v, want profile_unreachable", err)
	}
	dir := t.TempDir()
	u.CAFile = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(u.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: plat.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	withCA, err := usp.ConfiguredProfiles(u, allowPrivate, clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withCA.Get(ctx, plat.URL+"/platform.json"); err != nil {
		t.Fatalf("with profile_ca_file: %v", err)
	}
	u.CAFile = filepath.Join(dir, "empty.pem")
	os.WriteFile(u.CAFile, []byte("not a certificate\n"), 0o600)
	if _, err := usp.ConfiguredProfiles(u, allowPrivate, clk, nil, nil); err == nil {
		t.Fatal("a CA file without certificates was accepted")
	}
}

// failingDisk is a real SQLite store whose reads and writes fail, once
// failing, with an error SQLite gave a write to a read-only database: a
// disk gone read-only under the business.
type failingDisk struct {
	*sqlite.DB
	fail atomic.Pointer[error]
}

func (f *failingDisk) err() error {
	if e := f.fail.Load(); e != nil {
		return *e
	}
	return nil
}

func (f *failingDisk) Get(ctx context.Context, kind, key string) (store.Record, error) {
	if err := f.err(); err != nil {
		return store.Record{}, err
	}
	return f.DB.Get(ctx, kind, key)
}

func (f *failingDisk) Apply(ctx context.Context, w []store.Write) ([]store.Record, error) {
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.DB.Apply(ctx, w)
}

// readOnlyError is what SQLite answers a write to a read-only database.
func readOnlyError(t *testing.T) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ro.db")
	rw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	ro, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.Exec(`INSERT INTO t VALUES (1)`)
	if err == nil {
		t.Fatal("a read-only database took a write")
	}
	return err
}

// TestStorageOutageIsServiceUnavailable: when the store fails as out of
// service (here a read-only disk), a booking is answered 503
// service_unavailable with Retry-After, never 500.
func TestStorageOutageIsServiceUnavailable(t *testing.T) {
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile})
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "usp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	disk := &failingDisk{DB: db}
	b := usptest.On(t, usptest.WithPlatform(config.Demo()), disk, clock.NewFixed(usptest.Now), plat, nil, "")
	bench := &bench{Business: b, plat: plat, call: platformCall(plat)}
	s := bench.slot(t, "svc_airport_shuttle", "2026-03-02")
	if _, err := bench.book(t, bench.call); err != nil { // binds the key while the disk works
		t.Fatal(err)
	}
	ro := readOnlyError(t)
	disk.fail.Store(&ro)
	srv := httptest.NewServer(restMux(b.Business))
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest("POST", srv.URL+"/usp/bookings", strings.NewReader(fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, s.ID)))
	req.Header.Set("Authorization", usptest.Bearer)
	req.Header.Set("USP-Agent", `profile="`+bench.call.Profile+`"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "service-unavailable") {
		t.Fatalf("create on a read-only disk: %d %v %s, want 503 service_unavailable with Retry-After", resp.StatusCode, resp.Header, body)
	}
}

// TestPinAfterAFailedFetchTakesEffectAtOnce: a URI whose fetch failed is
// remembered as failing for a minute, but a pin made then (the moment an
// operator pins) is what the next call is checked against, with no wait.
func TestPinAfterAFailedFetchTakesEffectAtOnce(t *testing.T) {
	b, plat := outageBench(t)
	ctx := context.Background()
	bench := &bench{Business: b, plat: plat}
	down := "https://platform.invalid/usp/profile.json"
	call := platformCall(plat)
	call.Profile = down
	if _, err := bench.book(t, call); err == nil {
		t.Fatal("a call naming an unreachable, unpinned profile succeeded")
	}
	if err := usp.PinProfile(ctx, b.Store, down, []byte(fullProfile), "file", b.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	res, err := bench.book(t, call)
	if err != nil || res.Booking == nil {
		t.Fatalf("the call right after the pin: %v %+v", err, res)
	}
}
