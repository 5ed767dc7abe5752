package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/orp"
	"frontdesk/referral"
	"frontdesk/store"
)

// heldFolds is a store whose click writer cannot fold while held: every
// Apply that would count logged clicks (the journal's mark, or the
// deletion of the store's click log) fails. A click then exists only
// where its redirect logged it, as in the moments after a 302 before the
// writer's next fold.
type heldFolds struct {
	store.Store
	held    atomic.Bool
	refused atomic.Int64
}

func (s *heldFolds) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	if s.held.Load() {
		for _, w := range writes {
			if w.Record.Kind == "orp.clickmark" || w.Record.Kind == "orp.clicklog" && w.Op == store.OpDelete {
				s.refused.Add(1)
				return nil, errors.New("test: folds held")
			}
		}
	}
	return s.Store.Apply(ctx, writes)
}

const clickSoonSecret = "whsec_click_soon_0123456789"

// TestClickCountsWhenRedirected: a form booking, a USP booking carrying
// _meta.orp.click and a signed provider sale, each sent 10 ms after its
// click's 302, are attributed on both engines while the click writer has
// not folded the click (the store refuses every fold until the end). On
// SQLite the clicks are in the journal, on PostgreSQL in the store's
// click log. A provider sale naming a click id of the host's shape that
// no click carries answers 503 with Retry-After, so the provider sends it
// again, and applies once it is known.
func TestClickCountsWhenRedirected(t *testing.T) {
	onReferralEngines(t, func(t *testing.T, database string) {
		held := &heldFolds{}
		w := startReferral(t, database, func(m *Main) {
			m.Config.ORP.StripeWebhookSecret = clickSoonSecret
			m.WrapStore = func(st store.Store) store.Store { held.Store = st; return held }
		})
		held.held.Store(true)
		ctx := context.Background()
		click := func() string {
			t.Helper()
			status, loc := w.click("GET", local(w.link), map[string]string{"User-Agent": browserUA})
			if status != http.StatusFound {
				t.Fatalf("tracked link = %d", status)
			}
			time.Sleep(10 * time.Millisecond)
			w.clock.Advance(10 * time.Millisecond)
			return via(t, loc)
		}
		attributed := func(ref string) bool {
			t.Helper()
			bs, err := referral.Bookings(ctx, w.main.store)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bs {
				if b.Reference == ref {
					return b.Deal == w.deal && b.State == referral.StateCounted
				}
			}
			return false
		}

		if ref := w.bookForm(grace, click(), ""); !attributed(ref) {
			t.Fatalf("form booking 10 ms after its click was not attributed")
		}

		w.clock.Advance(6 * time.Second)
		day := w.clock.Now().AddDate(0, 0, 3).Format("2006-01-02")
		_, _, body := post(t, w.url+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q}`, day, day))
		slot := decodeJSON(t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
		status, _, body := post(t, w.url+"/usp/bookings", w.platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
			"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"},"_meta":{"orp":{"click":%q}}}`, slot, click()))
		if status != 201 {
			t.Fatalf("USP booking = %d %s", status, body)
		}
		if ref := decodeJSON(t, body)["booking"].(map[string]any)["id"].(string); !attributed(ref) {
			t.Fatalf("USP booking 10 ms after its click was not attributed")
		}

		w.clock.Advance(6 * time.Second)
		sale := func(event, clickID string) (*http.Response, map[string]any) {
			b, _ := json.Marshal(map[string]any{"id": event, "type": "payment_intent.succeeded", "object": "event", "data": map[string]any{"object": map[string]any{
				"id": "pi_" + event, "amount": 12000, "currency": "usd", "metadata": map[string]any{"orp_click": clickID}}}})
			resp, rb := w.do("POST", "/orp/providers/stripe", "", b, map[string]string{"Stripe-Signature": orp.StripeSignature(b, clickSoonSecret, w.clock.Now())})
			var m map[string]any
			json.Unmarshal(rb, &m)
			return resp, m
		}
		if resp, m := sale("evt_soon_sale", click()); resp.StatusCode != 200 || m["applied"] != true || m["counted"] != true {
			t.Fatalf("provider sale 10 ms after its click = %d %v, want applied and counted", resp.StatusCode, m)
		}

		// A click id no click carries: retryable, not a final answer.
		id := []byte(click())
		id[len(id)-1] = map[bool]byte{true: 'B', false: 'A'}[id[len(id)-1] == 'A']
		resp, m := sale("evt_soon_unknown", string(id))
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || obody(m)["retryable"] != true {
			t.Fatalf("unknown click id = %d %v, want 503 retryable with Retry-After", resp.StatusCode, m)
		}
		if strings.Contains(fmt.Sprint(m), "applied") {
			t.Fatalf("unknown click id answered %v", m)
		}
		if held.refused.Load() == 0 {
			t.Fatal("the click writer never tried to fold: the test did not hold anything back")
		}
		held.held.Store(false)
	})
}
