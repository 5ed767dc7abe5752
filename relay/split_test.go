package relay

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProxy: a page whose route names a property reaches that
// property's location with its path, query and body, without the Origin
// the hub's route has already checked; another slug is not found.
func TestProxy(t *testing.T) {
	location := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" origin="+r.Header.Get("Origin")+" forwarded="+r.Header.Get("X-Forwarded-Host")+" body="+string(body))
	}))
	t.Cleanup(location.Close)
	proxy, err := Proxy(map[string]string{"riverside": location.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/book/{slug}", proxy)
	hub := httptest.NewServer(mux)
	t.Cleanup(hub.Close)
	req, _ := http.NewRequest(http.MethodPost, hub.URL+"/book/riverside?roomtype=double", strings.NewReader("name=Ada"))
	req.Header.Set("Origin", hub.URL)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "POST /book/riverside?roomtype=double origin= forwarded=" + strings.TrimPrefix(hub.URL, "http://") + " body=name=Ada"
	if string(got) != want {
		t.Fatalf("proxied = %q, want %q", got, want)
	}
	resp, err = http.Get(hub.URL + "/book/oldtown")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a slug without an origin = %d, want 404", resp.StatusCode)
	}
	if _, err := Proxy(map[string]string{"riverside": "not a url"}); err == nil {
		t.Fatal("Proxy took an origin that is not a URL")
	}
}
