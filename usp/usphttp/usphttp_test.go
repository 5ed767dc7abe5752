package usphttp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/uspspec"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// server is the REST binding on loopback with platform profiles served
// over TLS by a second local server.
type server struct {
	url, platform string
}

func start(t *testing.T) server {
	t.Helper()
	plat := usptest.NewPlatforms(t, nil)
	b := usptest.NewBusiness(t, usptest.PublicOnly(config.Demo()), usptest.Now, plat, nil)
	srv := httptest.NewServer(mux(&Handler{Business: b.Business}))
	t.Cleanup(srv.Close)
	return server{url: srv.URL, platform: plat.URL}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (s server) do(t *testing.T, method, path, body string, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}
}

func TestOperationsOverREST(t *testing.T) {
	s := start(t)
	schemas := uspspec.Load(t)
	agent := map[string]string{"USP-Agent": `profile="` + s.platform + `/platform.json"`, "USP-Correlation-Id": "7f3c2b1a-9e4d-4a8b-8c1f-2d5e6f7a8b9c"}
	cases := []struct {
		name, method, path, body, spec string
		check                          func(t *testing.T, doc map[string]any)
	}{
		{"list", "POST", "/usp/services/list", `{"filters":{"location_id":"airport"},"pagination":{"limit":2}}`, "/services/list", func(t *testing.T, doc map[string]any) {
			if n := len(doc["services"].([]any)); n != 2 || doc["pagination"].(map[string]any)["has_more"] != true {
				t.Fatalf("page = %v", doc)
			}
		}},
		{"get", "GET", "/usp/services/svc_airport_shuttle", "", "/services/{service_id}", func(t *testing.T, doc map[string]any) {
			if doc["service"].(map[string]any)["type"] != "appointment" {
				t.Fatalf("service = %v", doc["service"])
			}
		}},
		{"lookup", "POST", "/usp/services/lookup", `{"ids":["svc_oldtown_single","svc_gone"]}`, "/services/lookup", func(t *testing.T, doc map[string]any) {
			if len(doc["services"].([]any)) != 1 || len(doc["messages"].([]any)) != 1 {
				t.Fatalf("lookup = %v", doc)
			}
		}},
		{"query 14 days", "POST", "/usp/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-02","end_date":"2026-03-15","limit":500}`, "/availability/query", func(t *testing.T, doc map[string]any) {
			if n := len(doc["slots"].([]any)); n != 224 {
				t.Fatalf("%d slots, want 224", n)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(t, c.method, c.path, c.body, agent)
			if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			if got := r.header.Get("USP-Correlation-Id"); got != agent["USP-Correlation-Id"] {
				t.Fatalf("correlation id echoed as %q", got)
			}
			schemas.Check(t, uspspec.REST(c.method, c.spec, 200), r.body)
			var doc map[string]any
			json.Unmarshal(r.body, &doc)
			if v := doc["usp"].(map[string]any)["version"]; v != usp.Version {
				t.Fatalf("usp.version = %v", v)
			}
			c.check(t, doc)
		})
	}
}

func TestProfileHosting(t *testing.T) {
	s := start(t)
	r := s.do(t, "GET", "/.well-known/usp", "", nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" || r.header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("profile: %d %v", r.status, r.header)
	}
	uspspec.Load(t).Check(t, uspspec.REST("GET", "/.well-known/usp", 200), r.body)
}

func TestProtocolErrorsAreProblems(t *testing.T) {
	s := start(t)
	schemas := uspspec.Load(t)
	cases := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		typ                      string
	}{
		{"malformed json", "POST", "/usp/availability/query", `{"service_id":`, nil, 400, "invalid-request"},
		{"not an object", "POST", "/usp/availability/query", `["svc_airport_shuttle"]`, nil, 400, "invalid-request"},
		{"empty body", "POST", "/usp/availability/query", ``, nil, 400, "invalid-request"},
		{"wrong type", "POST", "/usp/availability/query", `{"service_id":5}`, nil, 422, "validation-error"},
		{"context of the wrong type", "POST", "/usp/services/list", `{"context":"US"}`, nil, 422, "validation-error"},
		{"not JSON", "POST", "/usp/services/list", `{"context":`, nil, 400, "invalid-request"},
		{"a date-time without its offset", "POST", "/usp/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-02T09:00:00","end_date":"2026-03-03"}`, nil, 422, "validation-error"},
		{"idempotency key not a UUID", "POST", "/usp/services/list", `{}`, map[string]string{"Idempotency-Key": "again"}, 422, "validation-error"},
		{"missing field", "POST", "/usp/availability/query", `{"service_id":"svc_airport_shuttle"}`, nil, 400, "invalid-request"},
		{"too wide", "POST", "/usp/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-02","end_date":"2026-06-02"}`, nil, 400, "range-too-wide"},
		{"ten years", "POST", "/usp/availability/query", `{"service_id":"svc_airport_shuttle","start_date":"2026-03-02","end_date":"2036-03-02"}`, nil, 422, "validation-error"},
		{"unknown service", "GET", "/usp/services/svc_nowhere", "", nil, 404, "service-not-found"},
		{"bad agent header", "POST", "/usp/services/list", `{}`, map[string]string{"USP-Agent": "profile=https://x"}, 400, "invalid-request"},
		{"http profile", "POST", "/usp/services/list", `{}`, map[string]string{"USP-Agent": `profile="http://agent.example/p.json"`}, 400, "invalid-profile-url"},
		{"unreachable profile", "POST", "/usp/services/list", `{}`, map[string]string{"USP-Agent": `profile="` + s.platform + `/gone.json"`}, 424, "profile-unreachable"},
		{"newer platform", "POST", "/usp/services/list", `{}`, map[string]string{"USP-Agent": `profile="` + s.platform + `/newer.json"`}, 400, "version-unsupported"},
		{"oversized lookup", "POST", "/usp/services/lookup", `{"ids":[` + strings.Repeat(`"a",`, 100) + `"a"]}`, nil, 422, "validation-error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{"USP-Correlation-Id": "corr-1"}
			for k, v := range c.header {
				h[k] = v
			}
			r := s.do(t, c.method, c.path, c.body, h)
			if r.status != c.status || r.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("status %d %s: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			if r.header.Get("USP-Correlation-Id") != "corr-1" {
				t.Fatal("correlation id not echoed on the error")
			}
			schemas.Check(t, uspspec.Problem, r.body)
			var p struct{ Type string }
			json.Unmarshal(r.body, &p)
			if p.Type != "https://usp-protocol.dev/errors/"+c.typ {
				t.Fatalf("type = %s, want %s", p.Type, c.typ)
			}
		})
	}
	r := s.do(t, "POST", "/usp/bookings", `{}`, nil)
	if r.status != 404 || r.header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("unserved operation: %d %s", r.status, r.body)
	}
}

// A business outcome is 200 with messages[], never a problem.
func TestIncompatiblePlatformIsAnOutcome(t *testing.T) {
	s := start(t)
	r := s.do(t, "POST", "/usp/services/list", `{}`, map[string]string{"USP-Agent": `profile="` + s.platform + `/bookings-only.json"`})
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	uspspec.Load(t).Check(t, uspspec.REST("POST", "/services/list", 200), r.body)
	var doc struct {
		Messages []usp.Message
	}
	json.Unmarshal(r.body, &doc)
	if len(doc.Messages) != 1 || doc.Messages[0].Code != "capabilities_incompatible" {
		t.Fatalf("messages = %+v", doc.Messages)
	}
}

func TestUSPAgentHeader(t *testing.T) {
	for header, want := range map[string]string{
		`profile="https://a.example/p.json"`:          "https://a.example/p.json",
		`v=1, profile="https://a.example/p.json";x=1`: "https://a.example/p.json",
		`profile="https://a.example/q\"uote"`:         `https://a.example/q"uote`,
		``:                                            "",
	} {
		got, err := ProfileFromAgent(header)
		if err != nil || got != want {
			t.Errorf("ProfileFromAgent(%q) = %q, %v; want %q", header, got, err, want)
		}
	}
	for _, bad := range []string{`profile=https://a`, `profile="unterminated`, `other="x"`, `profile=""`} {
		if _, err := ProfileFromAgent(bad); err == nil {
			t.Errorf("ProfileFromAgent(%q) accepted", bad)
		}
	}
}

// mux mounts the binding's routes as cmd/frontdesk does, without its
// host checks and deadlines.
func mux(h *Handler) http.Handler {
	m := http.NewServeMux()
	for _, r := range h.Routes() {
		m.Handle(r.Pattern, r.Handler)
	}
	return m
}
