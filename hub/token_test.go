package hub

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/config"
)

// TestProxyByToken: a guest's page, its forms and a channel's feed reach
// the location their token names, path, query and body whole; a token of
// the earlier form, one naming a location without an origin or no
// location, and anything malformed get the hub's own 404, and no
// location is asked.
func TestProxyByToken(t *testing.T) {
	got := map[string]string{}
	serve := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got[name] = r.Method + " " + r.URL.RequestURI() + " " + string(b)
			io.WriteString(w, name)
		})
	}
	riverside, oldtown := httptest.NewServer(serve("riverside")), httptest.NewServer(serve("oldtown"))
	t.Cleanup(riverside.Close)
	t.Cleanup(oldtown.Close)
	demo := config.Demo()
	px, err := NewProxy(demo.Portfolio, map[string]string{"riverside": riverside.URL, "oldtown": oldtown.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got["hub"] = r.Method + " " + r.URL.RequestURI()
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "the hub's 404")
	})
	mux := http.NewServeMux()
	mux.Handle("GET /stay/{token}", px.ByToken("token", "", serve("own"), notFound))
	mux.Handle("POST /stay/{token}/cancel", px.ByToken("token", "", serve("own"), notFound))
	mux.Handle("GET /channels/{file}", px.ByToken("file", ".ics", serve("own"), notFound))
	hub := httptest.NewServer(mux)
	t.Cleanup(hub.Close)

	const random = "q3Zp-_0aB9xYw7VvUu6TtSs5RrQq4PpOo3NnMm2LlKk"
	const feed = "mzxw6ytboi2dsnjvgq3tmnzyhe4dcmrr"
	tests := []struct {
		name, method, path, body string
		status                   int
		at, want                 string
	}{
		{"stay page", "GET", "/stay/RIV." + random + "?sent=mailed", "", 200, "riverside", "GET /stay/RIV." + random + "?sent=mailed "},
		{"stay form", "POST", "/stay/OTL." + random + "/cancel", "code=123456", 200, "oldtown", "POST /stay/OTL." + random + "/cancel code=123456"},
		{"feed", "GET", "/channels/RIV." + feed + ".ics", "", 200, "riverside", "GET /channels/RIV." + feed + ".ics "},
		{"earlier stay token", "GET", "/stay/" + random, "", 404, "hub", "GET /stay/" + random},
		{"earlier feed token", "GET", "/channels/" + feed + ".ics", "", 404, "hub", "GET /channels/" + feed + ".ics"},
		{"location without an origin", "GET", "/stay/APS." + random, "", 404, "hub", "GET /stay/APS." + random},
		{"no location", "GET", "/stay/ZZZ." + random, "", 404, "hub", "GET /stay/ZZZ." + random},
		{"lowercase prefix", "GET", "/stay/riv." + random, "", 404, "hub", "GET /stay/riv." + random},
		{"feed without .ics", "GET", "/channels/RIV." + feed, "", 404, "hub", "GET /channels/RIV." + feed},
		{"prefix alone", "GET", "/stay/RIV.", "", 404, "hub", "GET /stay/RIV."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(got)
			req, _ := http.NewRequest(tt.method, hub.URL+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || len(got) != 1 || got[tt.at] != tt.want {
				t.Fatalf("%s %s = %d %q, seen %q; want %d from %s: %q", tt.method, tt.path, resp.StatusCode, b, got, tt.status, tt.at, tt.want)
			}
		})
	}

	// Outside a split hub, the route's own handler answers every token.
	var none *Proxy
	if h := none.ByToken("token", "", serve("own"), notFound); h == nil {
		t.Fatal("a nil proxy gives no handler")
	}
	rec := httptest.NewRecorder()
	none.ByToken("token", "", serve("own"), notFound).ServeHTTP(rec, httptest.NewRequest("GET", "/stay/"+random, nil))
	if rec.Body.String() != "own" {
		t.Fatalf("a nil proxy answered %q, want the route's own handler", rec.Body.String())
	}
}
