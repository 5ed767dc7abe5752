package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/uspspec"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/keyset"
	"frontdesk/usp/webhook"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

const bookingEventSchema = "https://usp-protocol.dev/schemas/services/webhook_event.json#/$defs/BookingEvent"

func seeded(b byte) io.Reader { return bytes.NewReader(bytes.Repeat([]byte{b, b + 1, b + 2}, 400)) }

func openSQLite(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// engines runs f on a fresh SQLite file and on a PostgreSQL schema.
func engines(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) { f(t, openSQLite(t, filepath.Join(t.TempDir(), "frontdesk.db"))) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		f(t, db)
	})
}

// delivery is one POST a receiver accepted as correctly signed.
type delivery struct {
	EventID string
	Event   string
	Created time.Time
	Body    []byte
}

// receiver is a platform's webhook endpoint. It verifies every POST as
// §10.1.1 tells a platform to, on its own: the keyid against the keys of
// the business profile, the RFC 9421 signature over the required
// components with created at most five minutes old, and Content-Digest
// against the body. It records what verified, duplicates included, and
// answers with the next status of script (200 when the script is done).
type receiver struct {
	t       *testing.T
	clock   clock.Clock
	profile func() keyset.ProfileKeys

	mu       sync.Mutex
	script   []int
	got      []delivery
	rejected []string
}

func newReceiver(t *testing.T, clk clock.Clock, ks keyset.Set, script ...int) (*receiver, *httptest.Server) {
	rc := &receiver{t: t, clock: clk, script: script, profile: func() keyset.ProfileKeys {
		// The platform reads the keys as the business profile serves
		// them: JSON objects under keys.
		pub, err := ks.Published(context.Background(), clk.Now())
		if err != nil {
			t.Error(err)
		}
		var p keyset.ProfileKeys
		for _, k := range pub {
			b, _ := json.Marshal(k)
			p.Keys = append(p.Keys, b)
		}
		return p
	}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	now := rc.clock.Now()
	ver, err := httpsig.Verify(r.Context(), httpsig.Request(r), now, rc.profile(), httpsig.Policy{
		Required:       []string{"@method", "@authority", "@path", "content-digest", "content-type"},
		RequireCreated: true, MaxAge: 5 * time.Minute,
	})
	if err == nil {
		err = httpsig.VerifyContentDigest(r.Header.Values("Content-Digest"), body)
	}
	var ev webhook.BookingEvent
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		rc.rejected = append(rc.rejected, fmt.Sprint(r.Method, " ", r.Header.Get("Content-Type"), " ", err))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	created, _ := ver.Input.Created()
	rc.got = append(rc.got, delivery{EventID: ev.EventID, Event: ev.Event, Created: created, Body: body})
	status := 200
	if len(rc.script) > 0 {
		status, rc.script = rc.script[0], rc.script[1:]
	}
	w.WriteHeader(status)
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.rejected) > 0 {
		rc.t.Fatalf("receiver rejected deliveries: %v", rc.rejected)
	}
	return append([]delivery(nil), rc.got...)
}

// business is the business side of a test: its keys and outbox on st.
type business struct {
	st    store.Store
	clock *clock.Fixed
	keys  keyset.Set
	box   *webhook.Outbox
}

func newBusiness(t *testing.T, st store.Store, url string, allowPrivate bool) *business {
	t.Helper()
	clk := clock.NewFixed(t0)
	ks := keyset.Set{Records: st, Rand: seeded(7)}
	if err := ks.Ensure(context.Background(), t0); err != nil {
		t.Fatal(err)
	}
	return &business{st: st, clock: clk, keys: ks, box: &webhook.Outbox{
		Records: st, Client: usp.CallbackClient(allowPrivate, nil), Sign: ks, Clock: clk,
		Endpoint: func(_ context.Context, platform string) (string, error) {
			if platform == "acme" {
				return url, nil
			}
			return "", nil
		},
	}}
}

// book stores a USP platform's reservation awaiting staff.
func (b *business) book(t *testing.T, ref, platform string) reservation.Reservation {
	t.Helper()
	r := reservation.Reservation{
		Reference: ref, Location: "airport", Unit: "shuttle", Slots: []string{"2026-12-02T10:00"}, Guests: 1,
		Source: reservation.USP(platform), State: reservation.Requested, CreatedAt: b.clock.Now(),
	}
	if _, err := b.st.Apply(context.Background(), []store.Write{reservation.Create(r, b.clock.Now())}); err != nil {
		t.Fatal(err)
	}
	r.Version = 1
	return r
}

// move commits a staff decision as every door does, through the
// reservation desk, with the USP door's subscription queueing its event.
func (b *business) move(t *testing.T, r reservation.Reservation, to reservation.State) reservation.Reservation {
	t.Helper()
	desk := reservation.NewDesk(b.st)
	desk.Subscribe("usp", func(e reservation.Event) []store.Write {
		typ := map[reservation.State]string{reservation.Confirmed: "booking.confirmed", reservation.Cancelled: "booking.canceled"}[e.Reservation.State]
		if w, ok := webhook.QueueEvent(e.Reservation, typ, e.Version, e.At); ok && typ != "" {
			return []store.Write{w}
		}
		return nil
	})
	moved, err := desk.Decide(context.Background(), reservation.Change{Read: r, By: "staff", At: b.clock.Now(),
		Unit: reservation.Unit{Location: r.Location, Type: r.Unit, Capacity: 100}}, to)
	if err != nil {
		t.Fatal(err)
	}
	return moved
}

func (b *business) deliver(t *testing.T) webhook.Result {
	t.Helper()
	res, err := b.box.Deliver(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func outbox(t *testing.T, st store.Records, kind string) []store.Record {
	t.Helper()
	recs, err := st.List(context.Background(), kind, "", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestBookingEventIsDeliveredSigned: a staff confirmation of a platform's
// booking reaches the platform as one signed POST whose body is a
// BookingEvent of the official schema, and leaves the outbox empty.
func TestBookingEventIsDeliveredSigned(t *testing.T) {
	schemas := uspspec.Load(t)
	engines(t, func(t *testing.T, st store.Store) {
		b := newBusiness(t, st, "", true)
		rc, srv := newReceiver(t, b.clock, b.keys)
		b.box.Endpoint = func(context.Context, string) (string, error) { return srv.URL + "/hooks/usp", nil }
		r := b.book(t, "AIR-7K2Q", "acme")
		if n := len(outbox(t, st, webhook.Kind)); n != 0 {
			t.Fatalf("a booking awaiting staff queued %d events", n)
		}
		b.move(t, r, reservation.Confirmed)
		if res := b.deliver(t); res.Delivered != 1 {
			t.Fatalf("pass = %+v, want one delivered", res)
		}
		got := rc.deliveries()
		if len(got) != 1 || got[0].Event != "booking.confirmed" || got[0].EventID != webhook.EventID("AIR-7K2Q", 2) || !got[0].Created.Equal(t0) {
			t.Fatalf("deliveries = %+v", got)
		}
		schemas.Check(t, bookingEventSchema, got[0].Body)
		if n := len(outbox(t, st, webhook.Kind)); n != 0 {
			t.Fatalf("%d events left after delivery", n)
		}
		if res := b.deliver(t); res != (webhook.Result{}) || len(rc.deliveries()) != 1 {
			t.Fatalf("a second pass delivered again: %+v", res)
		}
	})
}

// TestFailedDeliveryIsRetried: a receiver that fails twice gets the
// event a third time 30 and then 60 seconds later, with the same event_id
// and a fresh created each time; nothing is sent before a retry is due.
func TestFailedDeliveryIsRetried(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		b := newBusiness(t, st, "", true)
		rc, srv := newReceiver(t, b.clock, b.keys, 500, 503)
		b.box.Endpoint = func(context.Context, string) (string, error) { return srv.URL + "/hooks/usp", nil }
		b.move(t, b.book(t, "AIR-RETRY", "acme"), reservation.Cancelled)

		steps := []struct {
			at   time.Duration
			want webhook.Result
			got  int
		}{
			{0, webhook.Result{Retrying: 1}, 1},
			{29 * time.Second, webhook.Result{}, 1},
			{30 * time.Second, webhook.Result{Retrying: 1}, 2},
			{89 * time.Second, webhook.Result{}, 2},
			{90 * time.Second, webhook.Result{Delivered: 1}, 3},
			{10 * time.Minute, webhook.Result{}, 3},
		}
		for _, s := range steps {
			b.clock.Set(t0.Add(s.at))
			if res := b.deliver(t); res != s.want || len(rc.deliveries()) != s.got {
				t.Fatalf("at +%v: pass %+v with %d deliveries, want %+v with %d", s.at, res, len(rc.deliveries()), s.want, s.got)
			}
		}
		got := rc.deliveries()
		for i, d := range got {
			if d.EventID != got[0].EventID || d.Event != "booking.canceled" || !d.Created.Equal(t0.Add(steps[[]int{0, 2, 4}[i]].at)) {
				t.Fatalf("delivery %d = %+v, want the same event_id %s created at its attempt", i, d, got[0].EventID)
			}
		}
	})
}

// TestDeliveryIsGivenUpAfterThreeRetries: an endpoint that never accepts
// gets four attempts within 15 minutes; the event then moves to the dead
// letters and is not sent again.
func TestDeliveryIsGivenUpAfterThreeRetries(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "frontdesk.db"))
	b := newBusiness(t, st, "", true)
	rc, srv := newReceiver(t, b.clock, b.keys, 500, 500, 500, 500, 500)
	b.box.Endpoint = func(context.Context, string) (string, error) { return srv.URL, nil }
	b.move(t, b.book(t, "AIR-DEAD", "acme"), reservation.Confirmed)
	var dead int
	for s := time.Duration(0); s <= 15*time.Minute; s += 5 * time.Second {
		b.clock.Set(t0.Add(s))
		dead += b.deliver(t).Dead
	}
	if n := len(rc.deliveries()); n != 1+webhook.MaxRetries || dead != 1 {
		t.Fatalf("%d attempts, %d given up; want 4 and 1", n, dead)
	}
	// §9.2.3's exponential backoff from 30 s: 30, 60 and 120 s apart.
	for i, at := range []time.Duration{0, 30 * time.Second, 90 * time.Second, 210 * time.Second} {
		if got := rc.deliveries()[i].Created; !got.Equal(t0.Add(at)) {
			t.Fatalf("attempt %d at %v, want +%v", i+1, got.Sub(t0), at)
		}
	}
	if n, d := len(outbox(t, st, webhook.Kind)), len(outbox(t, st, webhook.DeadKind)); n != 0 || d != 1 {
		t.Fatalf("outbox %d, dead letters %d; want 0 and 1", n, d)
	}
}

// TestOutboxSurvivesRestart: the process stops between the state change
// and the delivery; the reopened store still has the event, and it is
// delivered once.
func TestOutboxSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	first, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	b := newBusiness(t, first, "", true)
	b.move(t, b.book(t, "AIR-RESTART", "acme"), reservation.Confirmed)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	st := openSQLite(t, path)
	b = newBusiness(t, st, "", true)
	rc, srv := newReceiver(t, b.clock, b.keys)
	b.box.Endpoint = func(context.Context, string) (string, error) { return srv.URL, nil }
	if res := b.deliver(t); res.Delivered != 1 {
		t.Fatalf("pass after restart = %+v", res)
	}
	if got := rc.deliveries(); len(got) != 1 || got[0].EventID != webhook.EventID("AIR-RESTART", 2) {
		t.Fatalf("deliveries after restart = %+v", got)
	}
}

// forgetful fails the first Delete, as a process that dies after the
// platform acknowledged and before the outbox noted it.
type forgetful struct {
	store.Store
	failed atomic.Bool
}

func (f *forgetful) Delete(ctx context.Context, kind, key string, version int64) error {
	if f.failed.CompareAndSwap(false, true) {
		return errors.New("disk gone")
	}
	return f.Store.Delete(ctx, kind, key, version)
}

// TestUnacknowledgedDeliveryRepeatsWithSameEventID: when the worker dies
// after the POST, the event stays leased; once the lease ends it is sent
// again, and the platform sees a duplicate with the same event_id that it
// can drop.
func TestUnacknowledgedDeliveryRepeatsWithSameEventID(t *testing.T) {
	st := &forgetful{Store: openSQLite(t, filepath.Join(t.TempDir(), "frontdesk.db"))}
	b := newBusiness(t, st, "", true)
	b.box.Records = st
	rc, srv := newReceiver(t, b.clock, b.keys)
	b.box.Endpoint = func(context.Context, string) (string, error) { return srv.URL, nil }
	b.move(t, b.book(t, "AIR-TWICE", "acme"), reservation.Confirmed)
	if _, err := b.box.Deliver(context.Background()); err == nil {
		t.Fatal("a pass whose delete failed reported no error")
	}
	b.clock.Set(t0.Add(webhook.Lease - time.Second))
	if res := b.deliver(t); res != (webhook.Result{}) {
		t.Fatalf("a leased event was sent again before its lease ended: %+v", res)
	}
	b.clock.Set(t0.Add(webhook.Lease))
	if res := b.deliver(t); res.Delivered != 1 {
		t.Fatalf("pass after the lease = %+v", res)
	}
	got := rc.deliveries()
	seen := map[string]int{}
	for _, d := range got {
		seen[d.EventID]++
	}
	if len(got) != 2 || seen[webhook.EventID("AIR-TWICE", 2)] != 2 {
		t.Fatalf("deliveries = %+v, want the same event twice", got)
	}
}

// TestEventsOfOneBookingKeepTheirOrder: while the confirmation waits for
// a retry, the later cancellation of the same booking is not sent; an
// event of another booking is.
func TestEventsOfOneBookingKeepTheirOrder(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "frontdesk.db"))
	b := newBusiness(t, st, "", true)
	rc, srv := newReceiver(t, b.clock, b.keys, 500)
	b.box.Endpoint = func(context.Context, string) (string, error) { return srv.URL, nil }
	r := b.move(t, b.book(t, "AIR-A", "acme"), reservation.Confirmed)
	b.move(t, r, reservation.Cancelled)
	b.move(t, b.book(t, "AIR-B", "acme"), reservation.Confirmed)
	b.deliver(t)
	var order []string
	for _, d := range rc.deliveries() {
		order = append(order, d.Event+" "+d.EventID)
	}
	want := []string{"booking.confirmed " + webhook.EventID("AIR-A", 2), "booking.confirmed " + webhook.EventID("AIR-B", 2)}
	if len(order) != 2 || order[0] != want[0] || order[1] != want[1] {
		t.Fatalf("first pass sent %v, want %v", order, want)
	}
	b.clock.Set(t0.Add(webhook.FirstRetry))
	b.deliver(t)
	got := rc.deliveries()
	if len(got) != 4 || got[2].EventID != webhook.EventID("AIR-A", 2) || got[3].EventID != webhook.EventID("AIR-A", 3) || got[3].Event != "booking.canceled" {
		t.Fatalf("after the retry: %+v", got)
	}
}

// TestCallbackToPrivateAddressIsRefused: with allow_private_profiles off,
// a webhook URL on loopback is never connected to; the event waits for a
// retry like any failed delivery.
func TestCallbackToPrivateAddressIsRefused(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "frontdesk.db"))
	b := newBusiness(t, st, "", false)
	rc, srv := newReceiver(t, b.clock, b.keys)
	b.box.Endpoint = func(context.Context, string) (string, error) { return srv.URL, nil }
	b.move(t, b.book(t, "AIR-PRIV", "acme"), reservation.Confirmed)
	if res := b.deliver(t); res.Retrying != 1 || len(rc.deliveries()) != 0 {
		t.Fatalf("pass = %+v with %d deliveries; want a refused connection", res, len(rc.deliveries()))
	}
}

// TestPlatformWithoutWebhookURL: an event for a platform with no webhook
// URL is offered to its MCP sessions only, then leaves the outbox; other
// doors' reservations queue nothing.
func TestPlatformWithoutWebhookURL(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "frontdesk.db"))
	b := newBusiness(t, st, "", true)
	var notified []string
	b.box.Notify = func(_ context.Context, platform string, body []byte) {
		var ev webhook.BookingEvent
		json.Unmarshal(body, &ev)
		notified = append(notified, platform+" "+ev.EventID)
	}
	b.move(t, b.book(t, "AIR-MCP", "other"), reservation.Confirmed)
	chat := b.book(t, "AIR-CHAT", "x")
	chat.Source = reservation.SourceChat
	if _, err := b.st.Apply(context.Background(), []store.Write{reservation.Save(chat, t0)}); err != nil {
		t.Fatal(err)
	}
	chat.Version = 2
	b.move(t, chat, reservation.Confirmed)
	if res := b.deliver(t); res.Dropped != 1 || len(notified) != 1 || notified[0] != "other "+webhook.EventID("AIR-MCP", 2) {
		t.Fatalf("pass = %+v, notified %v", res, notified)
	}
	if n := len(outbox(t, st, webhook.Kind)); n != 0 {
		t.Fatalf("%d events left", n)
	}
}
