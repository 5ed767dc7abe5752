package usp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/mcpfront"
	"frontdesk/postgres"
	"frontdesk/usp"
	"frontdesk/usp/uspmcp"
	"frontdesk/usp/usptest"
)

// frozenDeadline is the business's call deadline in these tests.
const frozenDeadline = 300 * time.Millisecond

// frozen is a business on PostgreSQL whose tables a second connection
// can lock, so that every statement of the store waits: a frozen
// database, for real.
type frozen struct {
	*bench
	dsn       string
	rest, mcp string
	cs        *mcp.ClientSession
	lock      pgx.Tx
}

func startFrozen(t *testing.T, deadline time.Duration) *frozen {
	t.Helper()
	dsn := pgtest.Schema(t)
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": subsProfile})
	b := usptest.On(t, usptest.WithPlatform(usptest.Manual(usptest.Unpaid(config.Demo()))), st, clock.NewFixed(usptest.Now), plat, nil, "",
		func(o *usp.Options) { o.Deadline = deadline })
	rest := httptest.NewServer(restMux(b.Business))
	t.Cleanup(rest.Close)
	srv := httptest.NewServer(mcpfront.Handler(uspmcp.New(b.Business, mcpfront.Options{}), mcpfront.HTTPOptions{Hostnames: []string{"127.0.0.1"}}))
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	hc := &http.Client{Transport: bearer{http.DefaultTransport}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &frozen{bench: &bench{Business: b, plat: plat, call: platformCall(plat)}, dsn: dsn, rest: rest.URL, mcp: srv.URL, cs: cs}
}

// subsProfile is a platform using every capability, feed subscriptions
// included.
var subsProfile = strings.TrimSuffix(strings.TrimSuffix(fullProfile, "}}}"), "]") + `],
 "dev.usp-protocol.services.catalog.subscriptions":[{"version":"2026-08-20","extends":"dev.usp-protocol.services.catalog"}],
 "dev.usp-protocol.services.waitlist":[{"version":"2026-08-20","extends":"dev.usp-protocol.services.bookings"}]}}}`

type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", usptest.Bearer)
	return b.next.RoundTrip(r)
}

// freeze locks every table of the business's schema until thaw.
func (f *frozen) freeze(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	rows, err := conn.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		t.Fatalf("tables: %v %v", tables, err)
	}
	if f.lock, err = conn.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.lock.Exec(ctx, "LOCK TABLE "+strings.Join(tables, ", ")+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
}

func (f *frozen) thaw(t *testing.T) {
	t.Helper()
	if err := f.lock.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// patient waits far longer than the deadline, so a call that does not
// keep it fails the test instead of hanging it.
var patient = &http.Client{Timeout: 5 * time.Second}

// restCall is one REST request of the platform.
func (f *frozen) restCall(t *testing.T, method, path, body, key string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, f.rest+"/usp"+path, strings.NewReader(body))
	req.Header.Set("Authorization", usptest.Bearer)
	req.Header.Set("USP-Agent", `profile="`+f.call.Profile+`"`)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := patient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: no answer: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(raw)
}

// TestFrozenStore: with every table of PostgreSQL locked, each USP
// operation, on both bindings, answers within its deadline: with its
// result when it needs no store, else service_unavailable with
// Retry-After. Thawed, a create that was cut off is resolved by its
// retry under the same idempotency key, and one the store lets through
// before the deadline is answered with its booking.
func TestFrozenStore(t *testing.T) {
	f := startFrozen(t, frozenDeadline)
	ctx := context.Background()
	// What the operations address, made while the store answers.
	s := f.slot(t, "svc_airport_shuttle", "2026-03-02")
	made, err := f.CreateBooking(ctx, f.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
	if err != nil || made.Booking == nil {
		t.Fatal(err)
	}
	id := made.Booking.ID
	other := f.slot(t, "svc_airport_shuttle", "2026-03-03")
	held, err := f.HoldSlot(ctx, f.call, usp.HoldRequest{ServiceID: other.ServiceID, SlotID: other.ID})
	if err != nil || held.Hold == nil {
		t.Fatal(err)
	}
	sub, err := f.Subscribe(ctx, f.call, usp.SubscribeRequest{CallbackURL: "https://hooks.example/catalog"})
	if err != nil || sub.Subscription == nil {
		t.Fatalf("subscribe: %v %+v", err, sub)
	}
	joined, err := f.JoinWaitlist(ctx, f.call, usp.JoinRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: &usp.Buyer{FirstName: "Bob", LastName: "Waits", Email: "bob@example.com"}})
	if err != nil || joined.Entry == nil {
		t.Fatalf("join: %v %+v", err, joined)
	}
	entry := joined.Entry.ID
	later := f.slot(t, "svc_airport_shuttle", "2026-03-04")
	buyer := `"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}`
	type op struct {
		tool, method, path, body string
		args                     map[string]any
	}
	ops := []op{
		{"usp_services_list", "POST", "/services/list", `{}`, map[string]any{}},
		{"usp_services_get", "GET", "/services/svc_airport_shuttle", ``, map[string]any{"service_id": "svc_airport_shuttle"}},
		{"usp_services_lookup", "POST", "/services/lookup", `{"ids":["svc_airport_shuttle"]}`, map[string]any{"ids": []any{"svc_airport_shuttle"}}},
		{"usp_services_feed", "GET", "/services/feed", ``, map[string]any{}},
		{"usp_services_feed_subscribe", "POST", "/services/feed/subscriptions", `{"callback_url":"https://hooks.example/other"}`, map[string]any{"callback_url": "https://hooks.example/other2"}},
		{"usp_services_feed_subscription_get", "GET", "/services/feed/subscriptions/" + sub.Subscription.ID, ``, map[string]any{"subscription_id": sub.Subscription.ID}},
		{"usp_services_feed_subscription_pause", "POST", "/services/feed/subscriptions/" + sub.Subscription.ID + "/pause", `{}`, map[string]any{"subscription_id": sub.Subscription.ID}},
		{"usp_services_feed_subscription_resume", "POST", "/services/feed/subscriptions/" + sub.Subscription.ID + "/resume", `{}`, map[string]any{"subscription_id": sub.Subscription.ID}},
		{"usp_services_feed_unsubscribe", "DELETE", "/services/feed/subscriptions/" + sub.Subscription.ID, ``, map[string]any{"subscription_id": sub.Subscription.ID}},
		{"usp_availability_query", "POST", "/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-05","end_date":"2026-03-05"}`,
			map[string]any{"service_id": "svc_airport_shuttle", "start_date": "2026-03-05", "end_date": "2026-03-05"}},
		{"usp_availability_hold", "POST", "/availability/holds", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, later.ID),
			map[string]any{"service_id": "svc_airport_shuttle", "slot_id": later.ID}},
		{"usp_availability_release", "DELETE", "/availability/holds/" + held.Hold.ID, ``, map[string]any{"hold_id": held.Hold.ID}},
		{"usp_bookings_create", "POST", "/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,%s}`, later.ID, buyer),
			map[string]any{"service_id": "svc_airport_shuttle", "slot_id": later.ID, "buyer": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"}}},
		{"usp_bookings_get", "GET", "/bookings/" + id, ``, map[string]any{"booking_id": id}},
		{"usp_bookings_update", "PUT", "/bookings/" + id, `{"notes":"two bags"}`, map[string]any{"booking_id": id, "notes": "two bags"}},
		{"usp_bookings_cancel", "POST", "/bookings/" + id + "/cancel", `{}`, map[string]any{"booking_id": id}},
		{"usp_bookings_reschedule", "POST", "/bookings/" + id + "/reschedule", fmt.Sprintf(`{"slot_id":%q}`, later.ID), map[string]any{"booking_id": id, "slot_id": later.ID}},
		{"usp_bookings_confirm_payment", "POST", "/bookings/" + id + "/confirm-payment", `{"payment_result":{"status":"paid","transaction_id":"t","amount_paid":1,"currency":"USD"}}`,
			map[string]any{"booking_id": id, "payment_result": map[string]any{"status": "paid", "transaction_id": "t", "amount_paid": 1, "currency": "USD"}}},
		{"usp_waitlist_join", "POST", "/waitlist", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,%s}`, s.ID, buyer),
			map[string]any{"service_id": "svc_airport_shuttle", "slot_id": s.ID, "buyer": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"}}},
		{"usp_waitlist_list", "POST", "/waitlist/list", `{}`, map[string]any{}},
		{"usp_waitlist_get", "GET", "/waitlist/" + entry, ``, map[string]any{"entry_id": entry}},
		{"usp_waitlist_accept", "POST", "/waitlist/" + entry + "/accept", `{}`, map[string]any{"entry_id": entry}},
		{"usp_waitlist_decline", "POST", "/waitlist/" + entry + "/decline", ``, map[string]any{"entry_id": entry}},
		{"usp_waitlist_leave", "DELETE", "/waitlist/" + entry, ``, map[string]any{"entry_id": entry}},
	}
	served := map[string]bool{}
	for _, m := range f.Served() {
		served[m.Name] = true
	}
	f.freeze(t)
	for _, o := range ops {
		delete(served, o.tool)
		t.Run("REST "+o.tool, func(t *testing.T) {
			start := time.Now()
			status, header, body := f.restCall(t, o.method, o.path, o.body, "")
			took := time.Since(start)
			if took > frozenDeadline+time.Second {
				t.Fatalf("answered after %v, past the %v deadline", took, frozenDeadline)
			}
			if status >= 500 && (status != 503 || header.Get("Retry-After") == "" || !strings.Contains(body, "service-unavailable")) {
				t.Fatalf("%d %v %s, want a result or 503 service_unavailable with Retry-After", status, header, body)
			}
		})
		t.Run("MCP "+o.tool, func(t *testing.T) {
			args := map[string]any{"_meta": map[string]any{"usp": map[string]any{"profile": f.call.Profile}}}
			for k, v := range o.args {
				args[k] = v
			}
			start := time.Now()
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: o.tool, Arguments: args})
			took := time.Since(start)
			if took > frozenDeadline+time.Second {
				t.Fatalf("answered after %v, past the %v deadline", took, frozenDeadline)
			}
			var rpc *jsonrpc.Error
			if err != nil && (!errors.As(err, &rpc) || rpc.Message != "service_unavailable" || rpc.Code != -32009 || !strings.Contains(string(rpc.Data), `"retry_after":5`)) {
				t.Fatalf("%v, want a result or service_unavailable", err)
			}
		})
	}
	// Confirmation is the staff's, over REST with a staff session.
	delete(served, "usp_bookings_confirm")
	start := time.Now()
	req, _ := http.NewRequest("POST", f.rest+"/usp/bookings/"+id+"/confirm", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "StaffSession "+usptest.StaffToken)
	resp, err := patient.Do(req)
	if err != nil {
		t.Fatalf("frozen confirm: no answer: %v", err)
	}
	resp.Body.Close()
	if took := time.Since(start); took > frozenDeadline+time.Second || resp.StatusCode >= 500 && resp.StatusCode != 503 {
		t.Fatalf("frozen confirm: %d after %v", resp.StatusCode, took)
	}
	if len(served) > 0 {
		t.Fatalf("operations not tried frozen: %v", served)
	}

	// A create cut off by the deadline: the platform is told to retry,
	// and the retry with the same key, once the store answers, books
	// exactly once.
	key := "9a0c6a52-0000-4000-8000-0000000000f1"
	createBody := fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,%s}`, later.ID, buyer)
	status, header, body := f.restCall(t, "POST", "/bookings", createBody, key)
	if status != 503 || header.Get("Retry-After") == "" {
		t.Fatalf("frozen create: %d %s", status, body)
	}
	f.thaw(t)
	status, _, first := f.restCall(t, "POST", "/bookings", createBody, key)
	status2, _, second := f.restCall(t, "POST", "/bookings", createBody, key)
	if status != 201 || status2 != 201 || bookingID(t, first) == "" || bookingID(t, first) != bookingID(t, second) {
		t.Fatalf("retries after the thaw: %d %s / %d %s; want one booking answered twice", status, first, status2, second)
	}

}

func bookingID(t *testing.T, body string) string {
	t.Helper()
	var doc struct{ Booking struct{ ID string } }
	json.Unmarshal([]byte(body), &doc)
	return doc.Booking.ID
}

// TestSlowStoreAnswersTheOutcome: a store that holds a create for half a
// second, inside a deadline of five, delays the answer, never drops it:
// the booking it committed is answered 201.
func TestSlowStoreAnswersTheOutcome(t *testing.T) {
	f := startFrozen(t, 5*time.Second)
	next := f.slot(t, "svc_airport_shuttle", "2026-03-06")
	f.freeze(t)
	thawed := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		thawed <- f.lock.Rollback(context.Background())
	}()
	start := time.Now()
	status, _, body := f.restCall(t, "POST", "/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, next.ID), "9a0c6a52-0000-4000-8000-0000000000f2")
	took := time.Since(start)
	if err := <-thawed; err != nil {
		t.Fatal(err)
	}
	if status != 201 || bookingID(t, body) == "" || took < 500*time.Millisecond {
		t.Fatalf("a create the store held %v: %d %s; want its booking, answered after the store let it through", took, status, body)
	}
}
