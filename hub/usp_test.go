package hub

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/usp"
)

// TestUSPRoutesByWhatTheCallNames: a USP call goes to the location its
// path's booking, hold or checkout, or its body's service or slot,
// names, with its body whole; any other call, one naming a location
// without an origin or one too large to read, is the hub's own.
func TestUSPRoutesByWhatTheCallNames(t *testing.T) {
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		io.WriteString(w, "riverside "+r.Method+" "+r.URL.Path+" "+string(body))
	}))
	t.Cleanup(location.Close)
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": location.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	own := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		io.WriteString(w, "hub "+r.Method+" "+r.URL.Path+" "+string(body))
	})
	mux := http.NewServeMux()
	for _, p := range []string{"POST /usp/bookings", "GET /usp/bookings/{booking_id}", "DELETE /usp/availability/holds/{hold_id}",
		"GET /usp/checkout-sessions/{checkout_id}", "GET /usp/waitlist/{entry_id}", "GET /usp/pay/{token}", "POST /usp/availability/query", "POST /usp/services/list"} {
		mux.Handle(p, px.USP(own))
	}
	hub := httptest.NewServer(mux)
	t.Cleanup(hub.Close)
	long := `{"service_id":"svc_riverside_double","note":"` + strings.Repeat("x", 70<<10) + `"}`
	for _, tt := range []struct{ method, path, body, want string }{
		{"POST", "/usp/bookings", `{"service_id":"svc_riverside_double","slot_id":"slot_riverside_double_20270101T2200Z"}`, "riverside"},
		{"POST", "/usp/bookings", `{"slot_id":"slot_riverside_double_20270101T2200Z"}`, "riverside"},
		{"POST", "/usp/availability/query", long, "hub"}, // over the binding's limit: the hub's binding refuses it, body whole
		{"GET", "/usp/bookings/RIV-00112233AABBCCDD", "", "riverside"},
		{"DELETE", "/usp/availability/holds/hold_RIV-00112233AABBCCDD", "", "riverside"},
		{"GET", "/usp/checkout-sessions/chk_RIV-00112233AABBCCDD", "", "riverside"},
		{"GET", "/usp/waitlist/wl_" + base64.RawURLEncoding.EncodeToString([]byte("svc_riverside_double|slot_riverside_double_20270101T2200Z|1|x")), "", "riverside"},
		{"GET", "/usp/waitlist/wl_notbase64!", "", "hub"},
		{"GET", "/usp/pay/RIV.00112233aabbccdd", "", "riverside"},
		{"GET", "/usp/pay/00112233aabbccdd", "", "hub"},
		{"POST", "/usp/bookings", `{"service_id":"svc_oldtown_single"}`, "hub"}, // no origin for oldtown here
		{"POST", "/usp/bookings", `{"service_id":"svc_riverside"}`, "hub"},
		{"POST", "/usp/bookings", `not json`, "hub"},
		{"GET", "/usp/bookings/OLD-00112233AABBCCDD", "", "hub"},
		{"POST", "/usp/services/list", `{}`, "hub"},
	} {
		req, _ := http.NewRequest(tt.method, hub.URL+tt.path, strings.NewReader(tt.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := tt.want + " " + tt.method + " " + tt.path + " " + tt.body; string(got) != want {
			t.Errorf("%s %s %.40s went to %.60q, want %s", tt.method, tt.path, tt.body, got, tt.want)
		}
	}
}

// TestUSPUnreachable: a USP call whose location does not answer gets
// USP's service_unavailable problem with Retry-After, naming the
// property and its phone, never the HTML page or an address.
func TestUSPUnreachable(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	origin := gone.URL
	gone.Close()
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": origin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /usp/bookings/{booking_id}", px.USP(http.NotFoundHandler()))
	hub := httptest.NewServer(mux)
	t.Cleanup(hub.Close)
	resp, err := http.Get(hub.URL + "/usp/bookings/RIV-00112233AABBCCDD")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var problem struct {
		Type, Detail string
		Status       int
	}
	json.Unmarshal(b, &problem)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/problem+json" ||
		resp.Header.Get("Retry-After") != strconv.Itoa(usp.RetryAfter) || problem.Type != usp.ProblemType(usp.CodeServiceUnavailable) ||
		problem.Status != 503 || !strings.HasPrefix(problem.Detail, "Riverside Inn cannot be reached just now.") || strings.Contains(string(b), strings.TrimPrefix(origin, "http://")) {
		t.Fatalf("unreachable = %d %v\n%s", resp.StatusCode, resp.Header, b)
	}
}
