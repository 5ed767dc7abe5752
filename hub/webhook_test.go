package hub

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"frontdesk/config"
)

// TestPaymentEvents: a payment event reaches the location its
// reservation reference names, with its body and signature byte for
// byte; one naming no proxied location's reservation is the hub's own to
// answer; an oversized one is refused before anything is forwarded.
func TestPaymentEvents(t *testing.T) {
	got := map[string]string{}
	serve := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got[name] = r.Method + " " + r.URL.Path + " sig=" + r.Header.Get("Stripe-Signature") + " " + string(b)
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
	mux := http.NewServeMux()
	mux.Handle("POST /payments/stripe", px.PaymentEvents(serve("hub")))
	hub := httptest.NewServer(mux)
	t.Cleanup(hub.Close)

	event := func(metadata string) string {
		return `{"id":"evt_1","type":"checkout.session.completed","data":{"object":{"id":"cs_1","metadata":` + metadata + `}}}`
	}
	tests := []struct {
		name, body, want string
	}{
		{"Old Town Lodge's reservation", event(`{"frontdesk_payment":"pay_1","reference":"OTL-00112233AABBCCDD"}`), "oldtown"},
		{"Riverside Inn's reservation", event(`{"frontdesk_payment":"pay_2","reference":"RIV-00112233AABBCCDD"}`), "riverside"},
		{"a location without an origin", event(`{"frontdesk_payment":"pay_3","reference":"APS-00112233AABBCCDD"}`), "hub"},
		{"a refund's metadata", event(`{"frontdesk_payment":"pay_4","refund":"rf_1"}`), "hub"},
		{"a prefix of no location", event(`{"reference":"XYZ-1"}`), "hub"},
		{"a slug for a reference", event(`{"reference":"oldtown"}`), "hub"},
		{"no JSON", "t=1,v1=abc", "hub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(got)
			req, _ := http.NewRequest(http.MethodPost, hub.URL+"/payments/stripe", strings.NewReader(tt.body))
			req.Header.Set("Stripe-Signature", "t=1,v1=feed")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := "POST /payments/stripe sig=t=1,v1=feed " + tt.body
			if string(answer) != tt.want || got[tt.want] != want || len(got) != 1 {
				t.Fatalf("answered by %q, received %q; want %s to receive %q alone", answer, got, tt.want, want)
			}
		})
	}

	clear(got)
	big := event(`{"reference":"OTL-1","pad":"` + strings.Repeat("x", MaxEventBody) + `"}`)
	resp, err := http.Post(hub.URL+"/payments/stripe", "application/json", bytes.NewReader([]byte(big)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || len(got) != 0 {
		t.Fatalf("an oversized event = %d, forwarded to %v; want 400 and nothing forwarded", resp.StatusCode, got)
	}
}
