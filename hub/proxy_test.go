package hub

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clientip"
	"frontdesk/internal/golden"
)

// TestProxy: a page whose route names a property reaches that
// property's location with its path, query and body; no hop-by-hop or
// forwarding header a client wrote reaches the location, and none the
// location wrote reaches the client; the Origin the hub's route checked
// is dropped; a slug without an origin is not found.
func TestProxy(t *testing.T) {
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var seen []string
		for _, h := range []string{"Origin", "Connection", "Upgrade", "Keep-Alive", "Proxy-Authorization", "Te", "Forwarded", "X-Secret"} {
			if r.Header.Get(h) != "" {
				seen = append(seen, h)
			}
		}
		w.Header().Set("Keep-Alive", "timeout=5")
		w.Header().Set("Proxy-Authenticate", "Basic")
		io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" host="+r.Host+" xff="+r.Header.Get("X-Forwarded-For")+
			" xfh="+r.Header.Get("X-Forwarded-Host")+" seen="+strings.Join(seen, ",")+" body="+string(body))
	}))
	t.Cleanup(location.Close)
	demo := config.Demo()
	px, err := NewProxy(demo.Portfolio, map[string]string{"riverside": location.URL + "/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/book/{slug}", px)
	hub := httptest.NewServer(mux)
	t.Cleanup(hub.Close)

	req, _ := http.NewRequest(http.MethodPost, hub.URL+"/book/riverside?roomtype=double", strings.NewReader("name=Ada"))
	for h, v := range map[string]string{"Origin": hub.URL, "Connection": "X-Secret, Upgrade", "X-Secret": "1", "Upgrade": "websocket",
		"Proxy-Authorization": "Basic eA==", "Te": "trailers", "Forwarded": "for=10.9.9.9", "X-Forwarded-For": "10.9.9.9", "X-Forwarded-Host": "evil.example"} {
		req.Header.Set(h, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	hubHost := strings.TrimPrefix(hub.URL, "http://")
	want := "POST /book/riverside?roomtype=double host=" + hubHost + " xff=127.0.0.1 xfh=" + hubHost + " seen= body=name=Ada"
	if string(got) != want {
		t.Fatalf("proxied = %q, want %q", got, want)
	}
	for _, h := range []string{"Keep-Alive", "Proxy-Authenticate"} {
		if v := resp.Header.Get(h); v != "" {
			t.Errorf("the answer carries the location's %s: %q", h, v)
		}
	}

	for _, path := range []string{"/book/oldtown", "/book/nowhere", "/book/http:%2F%2Fevil.example"} {
		resp, err := http.Get(hub.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
	}

	for _, origin := range []string{"not a url", "ftp://127.0.0.1:21", "/relative"} {
		if _, err := NewProxy(demo.Portfolio, map[string]string{"riverside": origin}, nil); err == nil {
			t.Errorf("NewProxy took the origin %q", origin)
		}
	}
}

// TestProxyUnreachable: a location that does not answer gets the 502
// page naming the property and its phone, and no address of the hub's.
func TestProxyUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	demo := config.Demo()
	px, err := NewProxy(demo.Portfolio, map[string]string{"oldtown": closed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/properties/{slug}", px)
	hub := httptest.NewServer(mux)
	t.Cleanup(hub.Close)
	resp, err := http.Get(hub.URL + "/properties/oldtown")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("unreachable location = %d %s, want 502 text/html", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(string(got), ln.Addr().String()) || strings.Contains(string(got), "127.0.0.1") {
		t.Fatalf("the 502 page names an address:\n%s", got)
	}
	golden.Check(t, "unreachable.html", got)
}

// TestProxyAnswerHeadersReplaceTheHubs: a header the hub's front set
// before forwarding is replaced by the location's of the same name, not
// sent twice; one the location does not set is kept.
func TestProxyAnswerHeadersReplaceTheHubs(t *testing.T) {
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Request-Id", "location")
		w.WriteHeader(http.StatusFound)
	}))
	t.Cleanup(location.Close)
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": location.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Referrer-Policy", "same-origin")
		w.Header().Set("X-Request-Id", "hub")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		px.To("riverside", nil).ServeHTTP(w, r)
	}))
	t.Cleanup(hub.Close)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(hub.URL + "/go/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for name, want := range map[string][]string{"Referrer-Policy": {"no-referrer"}, "X-Request-Id": {"location"}, "X-Content-Type-Options": {"nosniff"}} {
		if got := resp.Header.Values(name); !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// TestProxyForwardsHTTPSFromATrustedTerminator: behind a TLS terminator
// the hub trusts, the location hears the client's scheme, https, and the
// client's address; a client's own X-Forwarded-Proto is not believed.
func TestProxyForwardsHTTPSFromATrustedTerminator(t *testing.T) {
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Header.Get("X-Forwarded-Proto")+" "+r.Header.Get("X-Forwarded-For"))
	}))
	t.Cleanup(location.Close)
	px, err := NewProxy(config.Demo().Portfolio, map[string]string{"riverside": location.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	terminator, err := clientip.Parse([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		trusted clientip.Proxies
		want    string
	}{{terminator, "https 203.0.113.9"}, {nil, "http 127.0.0.1"}} {
		hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			px.To("riverside", nil).ServeHTTP(w, tt.trusted.WithClient(r))
		}))
		req, _ := http.NewRequest(http.MethodGet, hub.URL+"/book/riverside", nil)
		req.Header.Set("X-Forwarded-Proto", "https")
		req.Header.Set("X-Forwarded-For", "203.0.113.9")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		hub.Close()
		if string(got) != tt.want {
			t.Errorf("trusting %v: the location heard %q, want %q", tt.trusted, got, tt.want)
		}
	}
}
