package uspmcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"frontdesk/hub"
	"frontdesk/usp"
)

// TestTellPlatform: a location answers a call that asks with the
// platform authenticated while serving it; a call that does not ask, a
// call that authenticated nobody, and any call at the hub are answered
// without the header.
func TestTellPlatform(t *testing.T) {
	w := NewWebhooks()
	serve := func(on bool) *httptest.Server {
		s := httptest.NewServer(TellPlatform(on, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if on && r.Header.Get(hub.PlatformHeader) != "" {
				t.Errorf("the request's %s reached the handler", hub.PlatformHeader)
			}
			if r.URL.Query().Has("auth") {
				w.Observe(r.Context(), usp.Principal{ID: "api_key:p1", Platform: "p1"})
			}
			io.WriteString(rw, "{}")
		})))
		t.Cleanup(s.Close)
		return s
	}
	location, atHub := serve(true), serve(false)
	for _, tt := range []struct {
		url  string
		ask  bool
		want string
	}{
		{location.URL + "?auth", true, "p1"},
		{location.URL + "?auth", false, ""},
		{location.URL, true, ""},
		{atHub.URL + "?auth", true, ""},
	} {
		req, _ := http.NewRequest(http.MethodPost, tt.url, nil)
		if tt.ask {
			req.Header.Set(hub.PlatformHeader, "?")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get(hub.PlatformHeader); got != tt.want {
			t.Errorf("%s asked=%v: %s = %q, want %q", tt.url, tt.ask, hub.PlatformHeader, got, tt.want)
		}
	}
}
