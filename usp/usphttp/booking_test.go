package usphttp

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/uspspec"
	"frontdesk/usp/usptest"
)

const fullPlatform = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}],
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

// startBooking serves the REST binding of a business with the test
// platform registered.
func startBooking(t *testing.T) (server, map[string]string) {
	t.Helper()
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullPlatform, "/second.json": fullPlatform})
	b := usptest.NewBusiness(t, usptest.WithPlatform(usptest.Manual(usptest.Unpaid(config.Demo()))), usptest.Now, plat, nil)
	srv := httptest.NewServer(mux(&Handler{Business: b.Business}))
	t.Cleanup(srv.Close)
	return server{url: srv.URL, platform: plat.URL}, map[string]string{
		"USP-Agent": `profile="` + plat.URL + `/full.json"`, "Authorization": usptest.Bearer, "USP-Correlation-Id": "corr-r",
	}
}

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestBookingOperationsOverREST(t *testing.T) {
	s, auth := startBooking(t)
	schemas := uspspec.Load(t)
	doc := func(t *testing.T, r reply, status int, method, spec string, specStatus int) map[string]any {
		t.Helper()
		if r.status != status || r.header.Get("Content-Type") != "application/json" || r.header.Get("USP-Correlation-Id") != "corr-r" {
			t.Fatalf("%s %s: status %d, want %d: %s", method, spec, r.status, status, r.body)
		}
		schemas.Check(t, uspspec.REST(method, spec, specStatus), r.body)
		var out map[string]any
		json.Unmarshal(r.body, &out)
		return out
	}
	q := doc(t, s.do(t, "POST", "/usp/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-02","end_date":"2026-03-02"}`, auth), 200, "POST", "/availability/query", 200)
	slots := q["slots"].([]any)
	first, second := slots[0].(map[string]any)["id"].(string), slots[1].(map[string]any)["id"].(string)

	hold := doc(t, s.do(t, "POST", "/usp/availability/holds", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, first), auth), 201, "POST", "/availability/holds", 201)["hold"].(map[string]any)
	body := fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"hold_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}}`, first, hold["id"])
	keyed := with(auth, "Idempotency-Key", "6f1c7a52-0000-4000-8000-000000000001")
	created := doc(t, s.do(t, "POST", "/usp/bookings", body, keyed), 201, "POST", "/bookings", 201)["booking"].(map[string]any)
	id := created["id"].(string)
	// The same key and body: the stored result; another body: 409.
	replay := doc(t, s.do(t, "POST", "/usp/bookings", body, keyed), 201, "POST", "/bookings", 201)["booking"].(map[string]any)
	if replay["id"] != id || replay["revision"] != created["revision"] {
		t.Fatalf("replay = %v", replay)
	}
	if r := s.do(t, "POST", "/usp/bookings", body[:len(body)-1]+`,"notes":"x"}`, keyed); r.status != 409 {
		t.Fatalf("same key, other body: %d %s", r.status, r.body)
	}
	got := doc(t, s.do(t, "GET", "/usp/bookings/"+id, "", auth), 200, "GET", "/bookings/{booking_id}", 200)["booking"].(map[string]any)
	if got["status"] != "pending" {
		t.Fatalf("get = %v", got)
	}
	updated := doc(t, s.do(t, "PUT", "/usp/bookings/"+id, `{"notes":"two bags"}`, with(auth, "If-Match", `"`+got["revision"].(string)+`"`)), 200, "PUT", "/bookings/{booking_id}", 200)["booking"].(map[string]any)
	// A stale If-Match: 412 and nothing changes.
	if r := s.do(t, "POST", "/usp/bookings/"+id+"/cancel", `{}`, with(auth, "If-Match", got["revision"].(string))); r.status != 412 {
		t.Fatalf("stale If-Match: %d %s", r.status, r.body)
	}
	// Staff confirm; a platform's key cannot.
	if r := s.do(t, "POST", "/usp/bookings/"+id+"/confirm", `{}`, auth); r.status != 401 {
		t.Fatalf("platform confirm: %d %s", r.status, r.body)
	}
	confirmed := doc(t, s.do(t, "POST", "/usp/bookings/"+id+"/confirm", `{}`, with(auth, "Authorization", "StaffSession "+usptest.StaffToken)), 200, "POST", "/bookings/{booking_id}/confirm", 200)["booking"].(map[string]any)
	if confirmed["status"] != "confirmed" || confirmed["revision"] == updated["revision"] {
		t.Fatalf("confirmed = %v", confirmed)
	}
	moved := doc(t, s.do(t, "POST", "/usp/bookings/"+id+"/reschedule", fmt.Sprintf(`{"slot_id":%q}`, second), auth), 200, "POST", "/bookings/{booking_id}/reschedule", 200)["booking"].(map[string]any)
	if moved["slot"].(map[string]any)["id"] != second {
		t.Fatalf("moved = %v", moved)
	}
	cancelled := doc(t, s.do(t, "POST", "/usp/bookings/"+id+"/cancel", `{"reason":"flight moved"}`, auth), 200, "POST", "/bookings/{booking_id}/cancel", 200)
	if cancelled["booking"].(map[string]any)["status"] != "canceled" {
		t.Fatalf("cancelled = %v", cancelled)
	}
	// Again: invalid_transition, a business outcome with 200.
	again := doc(t, s.do(t, "POST", "/usp/bookings/"+id+"/cancel", `{}`, auth), 200, "POST", "/bookings/{booking_id}/cancel", 200)
	if again["messages"].([]any)[0].(map[string]any)["code"] != "invalid_transition" {
		t.Fatalf("second cancel = %v", again)
	}
	h2 := doc(t, s.do(t, "POST", "/usp/availability/holds", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, first), auth), 201, "POST", "/availability/holds", 201)["hold"].(map[string]any)
	rel := doc(t, s.do(t, "DELETE", "/usp/availability/holds/"+h2["id"].(string), "", auth), 200, "DELETE", "/availability/holds/{hold_id}", 200)["hold"].(map[string]any)
	if rel["status"] != "released" {
		t.Fatalf("released = %v", rel)
	}
}

// TestRefusedFirstCallsBindNothing: a key's first privileged calls name
// profile A and are refused for their arguments or later in the
// operation (a malformed buyer, an unknown slot, an unknown booking, a
// hold of an unknown service with an idempotency key); none binds the
// key, so a correct call naming profile B succeeds and binds it, and A
// is then refused.
func TestRefusedFirstCallsBindNothing(t *testing.T) {
	s, auth := startBooking(t)
	a := auth
	b := with(auth, "USP-Agent", `profile="`+s.platform+`/second.json"`)
	q := s.do(t, "POST", "/usp/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-02","end_date":"2026-03-02"}`, a)
	var slots struct{ Slots []struct{ ID string } }
	if err := json.Unmarshal(q.body, &slots); err != nil || len(slots.Slots) == 0 {
		t.Fatalf("query: %d %s", q.status, q.body)
	}
	slot := slots.Slots[0].ID
	for _, c := range []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
	}{
		{"malformed buyer", "POST", "/usp/bookings", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"not an email"}}`, slot), a, 422},
		{"unknown slot", "POST", "/usp/availability/holds", `{"service_id":"svc_airport_shuttle","slot_id":"slot_nowhere"}`, a, 422},
		{"unknown service, keyed", "POST", "/usp/availability/holds", fmt.Sprintf(`{"service_id":"svc_nowhere","slot_id":%q}`, slot), with(a, "Idempotency-Key", "6f1c7a52-0000-4000-8000-000000000009"), 422},
		{"unknown booking", "GET", "/usp/bookings/APS-1", "", a, 404},
		{"unknown hold", "DELETE", "/usp/availability/holds/hold_APS-1", "", a, 404},
	} {
		if r := s.do(t, c.method, c.path, c.body, c.header); r.status != c.status {
			t.Fatalf("first call, %s: %d %s, want %d", c.name, r.status, r.body, c.status)
		}
	}
	if r := s.do(t, "POST", "/usp/availability/holds", fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, slot), b); r.status != 201 {
		t.Fatalf("a correct call naming profile B after refused calls naming A: %d %s", r.status, r.body)
	}
	r := s.do(t, "GET", "/usp/bookings/APS-1", "", a)
	var p struct{ Type string }
	json.Unmarshal(r.body, &p)
	if p.Type != "https://usp-protocol.dev/errors/profile-not-trusted" {
		t.Fatalf("profile A after B was bound: %d %s, want profile-not-trusted", r.status, r.body)
	}
}

func TestBookingProblems(t *testing.T) {
	s, auth := startBooking(t)
	schemas := uspspec.Load(t)
	noKey := with(auth)
	delete(noKey, "Authorization")
	noAgent := with(auth)
	delete(noAgent, "USP-Agent")
	cases := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		typ                      string
	}{
		{"no credentials", "POST", "/usp/availability/holds", `{"service_id":"svc_airport_shuttle","slot_id":"x"}`, noKey, 401, "authentication-required"},
		{"wrong key", "GET", "/usp/bookings/APS-1", "", with(auth, "Authorization", "Bearer nope"), 401, "authentication-required"},
		{"no profile", "GET", "/usp/bookings/APS-1", "", noAgent, 400, "invalid-request"},
		{"unknown booking", "GET", "/usp/bookings/APS-1", "", auth, 404, "booking-not-found"},
		{"unknown booking cancelled", "POST", "/usp/bookings/APS-1/cancel", `{}`, auth, 404, "booking-not-found"},
		{"unknown hold", "DELETE", "/usp/availability/holds/hold_APS-1", "", auth, 404, "booking-not-found"},
		{"no buyer", "POST", "/usp/bookings", `{"service_id":"svc_airport_shuttle","slot_id":"x"}`, auth, 400, "invalid-request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(t, c.method, c.path, c.body, c.header)
			if r.status != c.status || r.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("status %d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			schemas.Check(t, uspspec.Problem, r.body)
			var p struct{ Type string }
			json.Unmarshal(r.body, &p)
			if p.Type != "https://usp-protocol.dev/errors/"+c.typ {
				t.Fatalf("type = %s, want %s", p.Type, c.typ)
			}
		})
	}
}

func TestEntityTag(t *testing.T) {
	for in, want := range map[string]string{`"v3"`: "v3", `v3`: "v3", `W/"v3"`: "v3", `*`: "", ``: ""} {
		if got := entityTag(in); got != want {
			t.Errorf("entityTag(%q) = %q, want %q", in, got, want)
		}
	}
}
