package usp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"frontdesk/internal/uspspec"
	"frontdesk/payment/stripe/stripemock"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
	"frontdesk/usp/webhook"
)

// onUCPEngines runs f on a fresh UCP-native world of each engine.
func onUCPEngines(t *testing.T, f func(t *testing.T, w *payWorld)) {
	api := stripemock.Start(t)
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			st := engine(t)()
			t.Cleanup(func() { st.Close() })
			f(t, newPayWorldIn(t, st, api, usp.ModeUCPNative))
		})
	}
}

// checkout creates a checkout of the shuttle's first slot on day.
func (w *payWorld) checkout(t *testing.T, day string) *usp.Checkout {
	t.Helper()
	s := w.slot(t, "svc_airport_shuttle", day)
	c, err := w.CreateCheckout(context.Background(), w.call, shuttleCheckout(s, 2500))
	if err != nil || c.ID == "" {
		t.Fatalf("create_checkout = %+v, %v", c, err)
	}
	return c
}

func shuttleCheckout(s usp.Slot, price int64) usp.CheckoutRequest {
	return usp.CheckoutRequest{
		LineItems: []usp.CheckoutLineItem{{ID: "li_1", Item: usp.CheckoutItem{ID: s.ServiceID, Title: "Airport shuttle", Price: price}, Quantity: 1}},
		Currency:  "USD", Buyer: ada,
		Booking: &usp.BookingContext{ServiceID: s.ServiceID, ServiceType: "appointment", Slot: usp.SlotRef{ID: s.ID, Start: s.Start, End: s.End, Duration: "PT60M"}},
	}
}

// reported is complete_checkout with the payment the platform's checkout
// system took.
func reported(txn string, amount string) usp.CompleteCheckoutRequest {
	var in usp.CompleteCheckoutRequest
	in.Payment.Instruments = []usp.PaymentInstrument{{ID: "instr_1", HandlerID: usp.HandlerID, Type: usp.InstrumentType, Selected: true,
		Credential: &usp.PaymentCredential{Type: usp.InstrumentType, PaymentResult: usp.PaymentResult{Status: "paid", Provider: "stripe", TransactionID: txn, AmountPaid: []byte(amount), Currency: "USD"}}}}
	return in
}

// checkContext checks a checkout's booking against the paid-bookings
// schema's BookingContext. The schema's root composes UCP's own checkout
// schema, which is not in the repository, so the root's allOf is left
// out; the $defs are the extension's.
func checkContext(t *testing.T, c *usp.Checkout) {
	t.Helper()
	dir := filepath.Join(uspspec.Snapshot(t), "schemas")
	comp := jsonschema.NewCompiler()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		m := doc.(map[string]any)
		if filepath.Base(f) == "paid_bookings.json" {
			delete(m, "allOf")
		}
		if err := comp.AddResource(m["$id"].(string), doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := comp.Compile("https://usp-protocol.dev/schemas/services/paid_bookings.json#/$defs/BookingContext")
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(c.Booking)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("booking context does not match BookingContext: %v\n%s", err, body)
	}
}

// confirmedEvent is the booking.confirmed webhook of booking id as the
// platform receives it, checked against the schema.
func (w *payWorld) confirmedEvent(t *testing.T, id string) webhook.BookingEvent {
	t.Helper()
	ctx := context.Background()
	recs, err := w.Store.List(ctx, webhook.Kind, "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		var e webhook.Event
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			t.Fatal(err)
		}
		if e.Reference != id || e.Type != "booking.confirmed" {
			continue
		}
		body, err := w.EventBody(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		uspspec.Load(t).Check(t, "https://usp-protocol.dev/schemas/services/webhook_event.json#/$defs/BookingEvent", body)
		var ev webhook.BookingEvent
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	t.Fatalf("no booking.confirmed webhook for %s", id)
	return webhook.BookingEvent{}
}

// confirmedEvents counts the booking.confirmed webhooks queued for id.
func (w *payWorld) confirmedEvents(t *testing.T, id string) int {
	t.Helper()
	recs, err := w.Store.List(context.Background(), webhook.Kind, "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range recs {
		var e webhook.Event
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			t.Fatal(err)
		}
		if e.Reference == id && e.Type == "booking.confirmed" {
			n++
		}
	}
	return n
}

// A paid booking through the UCP checkout (§7.5, §7.7.2): create_checkout
// creates the booking holding its slot, ready_for_complete with the
// handler to pay through and no payment action; complete_checkout with
// the reported payment confirms it, and the order id correlates the two.
// Completing it again with the same payment answers the same completed
// checkout and changes nothing; with another payment it is refused.
func TestUCPCheckoutPaysAndConfirmsOnce(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		c := w.checkout(t, "2026-03-02")
		checkContext(t, c)
		bid := c.Booking.BookingID
		if c.Status != "ready_for_complete" || c.Booking.BookingStatus != "pending" || c.ID != "chk_"+bid || c.Order != nil ||
			len(c.Totals) != 2 || c.Totals[1].Amount != 2500 || c.UCP.PaymentHandlers[usp.HandlerName][0].ID != usp.HandlerID || c.ExpiresAt == "" {
			t.Fatalf("checkout = %+v", c)
		}
		b := w.get(t, bid)
		if b.Status != "requires_action" || len(b.Actions) != 0 || b.Payment.AmountDue != 2500 {
			t.Fatalf("booking before completion = %s, actions %v, payment %+v", b.Status, b.Actions, b.Payment)
		}
		if s := w.slot(t, "svc_airport_shuttle", "2026-03-02"); s.ID == b.Slot.ID {
			t.Fatal("the slot of an open checkout is offered again")
		}
		short, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_short", "2000"))
		if err != nil || outcome(t, short.Messages) != "payment_amount_mismatch" || short.Status != "ready_for_complete" {
			t.Fatalf("complete with a short payment = %+v, %v", short, err)
		}

		done, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_ucp_1", "2500"))
		if err != nil || done.Status != "completed" || done.Order == nil || done.Order.ID != "ord_"+bid || done.Booking.BookingStatus != "confirmed" {
			t.Fatalf("complete = %+v, %v", done, err)
		}
		checkContext(t, done)
		got := w.get(t, bid)
		if got.Status != "confirmed" || got.Payment.Status != "paid" || got.Payment.TransactionID != "pi_ucp_1" || got.Payment.OrderReference != "ord_"+bid || got.ExpiresAt != "" {
			t.Fatalf("booking after completion = %s, payment %+v", got.Status, got.Payment)
		}

		again, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_ucp_1", "2500"))
		if err != nil || again.Status != "completed" || again.Order.ID != done.Order.ID || len(again.Messages) != 0 {
			t.Fatalf("complete again = %+v, %v", again, err)
		}
		other, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_ucp_2", "2500"))
		if err != nil || outcome(t, other.Messages) != "invalid_transition" || other.Status != "completed" {
			t.Fatalf("complete with another payment = %+v, %v", other, err)
		}
		if after := w.get(t, bid); after.Revision != got.Revision || after.Payment.TransactionID != "pi_ucp_1" {
			t.Fatalf("a second completion changed the booking: %s %+v", after.Revision, after.Payment)
		}
		if n := w.confirmedEvents(t, bid); n != 1 {
			t.Fatalf("booking.confirmed webhooks = %d, want 1", n)
		}
		if ev := w.confirmedEvent(t, bid); ev.OrderID != done.Order.ID {
			t.Fatalf("booking.confirmed order_id = %q, want %q", ev.OrderID, done.Order.ID)
		}
		read, err := w.GetCheckout(ctx, w.call, c.ID)
		if err != nil || read.Status != "completed" || read.Order.ID != done.Order.ID {
			t.Fatalf("get_checkout = %+v, %v", read, err)
		}
		if cc, err := w.CancelCheckout(ctx, w.call, c.ID); err != nil || outcome(t, cc.Messages) != "invalid_transition" || cc.Status != "completed" {
			t.Fatalf("cancel of a completed checkout = %+v, %v", cc, err)
		}
	})
}

// An abandoned checkout holds its slot only until it expires: the sweep
// frees the slot, the checkout reads incomplete (flow vector 101), and
// a late completion without a new hold records nothing and answers
// hold_expired while the slot is still free, slot_unavailable once it is
// taken (§7.5 A1). A canceled checkout ends its booking at once with
// checkout_abandoned and frees its slot, and reads the same from then on.
func TestUCPCheckoutAbandonedReleasesTheSlot(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		c := w.checkout(t, "2026-03-02")
		w.Clock.Advance(usp.PaymentWindow)
		if n, _, _, err := w.Sweep(ctx); err != nil || n != 1 {
			t.Fatalf("sweep = %d, %v", n, err)
		}
		if s := w.slot(t, "svc_airport_shuttle", "2026-03-02"); s.ID != c.Booking.Slot.ID {
			t.Fatal("the abandoned checkout's slot is not free again")
		}
		read, err := w.GetCheckout(ctx, w.call, c.ID)
		if err != nil || read.Status != "incomplete" || read.Booking.BookingStatus != "pending" {
			t.Fatalf("expired checkout = %+v, %v", read, err)
		}
		late, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_late", "2500"))
		if err != nil || outcome(t, late.Messages) != "hold_expired" || late.Status != "incomplete" {
			t.Fatalf("late completion = %+v, %v", late, err)
		}
		if b := w.get(t, c.Booking.BookingID); b.Status != "pending" || b.Payment.TransactionID != "" {
			t.Fatalf("booking after a late completion = %s %+v", b.Status, b.Payment)
		}

		c2 := w.checkout(t, "2026-03-02")
		// Once another checkout holds the slot, the lapsed one answers
		// slot_unavailable: the platform must choose another slot.
		if taken, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_late", "2500")); err != nil || outcome(t, taken.Messages) != "slot_unavailable" {
			t.Fatalf("late completion of a taken slot = %+v, %v", taken, err)
		}
		cc, err := w.CancelCheckout(ctx, w.call, c2.ID)
		if err != nil || cc.Status != "canceled" || cc.Booking.BookingStatus != "canceled" {
			t.Fatalf("cancel_checkout = %+v, %v", cc, err)
		}
		b := w.get(t, c2.Booking.BookingID)
		if b.Status != "canceled" || b.Cancellation == nil || b.Cancellation.ReasonCode != "checkout_abandoned" || b.Cancellation.CanceledBy != "system" {
			t.Fatalf("booking of a canceled checkout = %s %+v", b.Status, b.Cancellation)
		}
		if s := w.slot(t, "svc_airport_shuttle", "2026-03-02"); s.ID != c2.Booking.Slot.ID {
			t.Fatal("the canceled checkout's slot is not free again")
		}
		if again, err := w.CancelCheckout(ctx, w.call, c2.ID); err != nil || again.Status != "canceled" || len(again.Messages) != 0 {
			t.Fatalf("cancel again = %+v, %v", again, err)
		}
		if later := w.get(t, c2.Booking.BookingID); later.Cancellation.CanceledAt != b.Cancellation.CanceledAt || later.Revision != b.Revision {
			t.Fatal("a second cancel_checkout changed the booking")
		}
	})
}

// Bad input is refused before anything is held: a price that is not the
// catalog's (price_mismatch), a product line, and a direct
// create_booking of a service the checkout books (paid in full or by a
// deposit), which names the checkout.
func TestUCPCheckoutRefusals(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		s := w.slot(t, "svc_airport_shuttle", "2026-03-02")
		c, err := w.CreateCheckout(ctx, w.call, shuttleCheckout(s, 2000))
		if err != nil || outcome(t, c.Messages) != "price_mismatch" || c.ID != "" {
			t.Fatalf("wrong price = %+v, %v", c, err)
		}
		two := shuttleCheckout(s, 2500)
		two.LineItems = append(two.LineItems, usp.CheckoutLineItem{ID: "li_2", Item: usp.CheckoutItem{ID: "mug", Price: 900}, Quantity: 1})
		if _, err := w.CreateCheckout(ctx, w.call, two); code(t, err) != usp.CodeValidation {
			t.Fatal("a product line was accepted")
		}
		for _, svc := range []string{s.ServiceID, "svc_airport_install"} {
			slot := w.slot(t, svc, "2026-03-02")
			_, err = w.CreateBooking(ctx, w.call, usp.CreateRequest{ServiceID: svc, SlotID: slot.ID, Buyer: ada})
			if e, _ := usp.AsError(err); e == nil || e.Code != usp.CodeValidation || !strings.Contains(e.Message, usp.UCPPath+"/checkout-sessions") {
				t.Fatalf("direct booking of %s = %v, want validation_error naming the checkout", svc, err)
			}
		}
		if again := w.slot(t, "svc_airport_shuttle", "2026-03-02"); again.ID != s.ID {
			t.Fatal("a refused checkout took the slot")
		}
		if _, err := w.CompleteCheckout(ctx, w.call, "chk_nothing", reported("pi_x", "2500")); code(t, err) != usp.CodeBookingNotFound {
			t.Fatal("an unknown checkout was completed")
		}
	})
}

// The profile declares the checkout, the paid-bookings extension and the
// payment handler, and every checkout operation is served at the
// endpoint it names; in Standalone mode there is neither.
func TestUCPProfileMatchesCheckoutServed(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		status, body := w.fetch(t, usp.UCPProfilePath)
		var p struct {
			UCP struct {
				Services        map[string][]usp.ServiceBinding         `json:"services"`
				Capabilities    map[string][]usp.CapabilityEntry        `json:"capabilities"`
				PaymentHandlers map[string][]map[string]json.RawMessage `json:"payment_handlers"`
			} `json:"ucp"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &p) != nil {
			t.Fatalf("profile = %d %s", status, body)
		}
		ext := p.UCP.Capabilities[string(usp.CapabilityPaidBookings)]
		if len(ext) != 1 || ext[0].Extends != usp.CapabilityUCPCheckout || ext[0].Spec == "" || ext[0].Schema == "" || ext[0].Version == "" ||
			len(p.UCP.Capabilities[string(usp.CapabilityUCPCheckout)]) != 1 || len(p.UCP.PaymentHandlers[usp.HandlerName]) != 1 {
			t.Fatalf("profile without the checkout: %s", body)
		}
		shop := p.UCP.Services["dev.ucp.shopping"]
		if len(shop) != 1 || !strings.HasSuffix(shop[0].Endpoint, usp.UCPPath) {
			t.Fatalf("shopping binding = %+v", shop)
		}
		// Every operation under the endpoint it names is served: an
		// unauthenticated call is refused by the operation, not unknown.
		for _, m := range usp.UCPMethods() {
			path := strings.ReplaceAll(m.Path, "{checkout_id}", "chk_x")
			req, _ := http.NewRequest(m.HTTPMethod, w.srv.URL+usp.UCPPath+path, strings.NewReader("{}"))
			res, err := w.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed || res.StatusCode < 400 {
				t.Fatalf("%s %s = %d, want the operation's refusal", m.HTTPMethod, path, res.StatusCode)
			}
		}
		// In Standalone mode neither the profile nor the routes exist.
		alone := newPayWorldIn(t, w.Store, w.api, "")
		if status, _ := alone.fetch(t, usp.UCPProfilePath); status != http.StatusNotFound {
			t.Fatalf("%s in Standalone mode = %d", usp.UCPProfilePath, status)
		}
		res, err := alone.client.Post(alone.srv.URL+usp.UCPPath+"/checkout-sessions", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Fatalf("checkout in Standalone mode = %d, want 404", res.StatusCode)
		}
	})
}

// A checkout created on a platform's hold converts that hold: the
// booking keeps the hold's places, and completing the checkout
// confirms it.
func TestUCPCheckoutOnAHold(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		ctx := context.Background()
		s := w.slot(t, "svc_airport_shuttle", "2026-03-02")
		h, err := w.HoldSlot(ctx, w.call, usp.HoldRequest{ServiceID: s.ServiceID, SlotID: s.ID})
		if err != nil || h.Hold == nil {
			t.Fatalf("hold = %+v, %v", h, err)
		}
		in := shuttleCheckout(s, 2500)
		in.Booking.HoldID = h.Hold.ID
		c, err := w.CreateCheckout(ctx, w.call, in)
		if err != nil || c.Status != "ready_for_complete" || c.Booking.Slot.ID != s.ID {
			t.Fatalf("checkout on a hold = %+v, %v", c, err)
		}
		done, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_hold", "2500"))
		if err != nil || done.Status != "completed" || done.Booking.BookingStatus != "confirmed" {
			t.Fatalf("complete = %+v, %v", done, err)
		}
		if again := w.slot(t, "svc_airport_shuttle", "2026-03-02"); again.ID == s.ID {
			t.Fatal("the booked slot is offered again")
		}
	})
}

// A completion whose booking write fails answers an error and leaves no
// confirmed booking: the booking still waits, holding its slot until its
// checkout expires (§7.5 A3, A5), and the same completion retried once
// the store is back confirms it once (A4).
func TestUCPCheckoutFailedCompletionLeavesNothing(t *testing.T) {
	api := stripemock.Start(t)
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			open := engine(t)
			st := open()
			w := newPayWorldIn(t, st, api, usp.ModeUCPNative)
			c := w.checkout(t, "2026-03-02")
			st.Close()
			ctx := context.Background()
			if res, err := w.CompleteCheckout(ctx, w.call, c.ID, reported("pi_down", "2500")); err == nil {
				t.Fatalf("complete on a closed store = %+v, want an error", res)
			}
			st2 := open()
			t.Cleanup(func() { st2.Close() })
			w2 := newPayWorldIn(t, st2, api, usp.ModeUCPNative)
			w2.call = w.call
			b := w2.get(t, c.Booking.BookingID)
			if b.Status != "requires_action" || b.Payment.TransactionID != "" {
				t.Fatalf("booking after a failed completion = %s %+v", b.Status, b.Payment)
			}
			done, err := w2.CompleteCheckout(ctx, w2.call, c.ID, reported("pi_down", "2500"))
			if err != nil || done.Status != "completed" {
				t.Fatalf("retried completion = %+v, %v", done, err)
			}
			if n := w2.confirmedEvents(t, c.Booking.BookingID); n != 1 {
				t.Fatalf("booking.confirmed webhooks = %d, want 1", n)
			}
		})
	}
}

// ucpREST is one call of the UCP binding over HTTP as the platform: its
// status and decoded checkout.
func (w *payWorld) ucpREST(t *testing.T, method, path, key string, body any) (int, usp.Checkout) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, w.srv.URL+usp.UCPPath+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", usptest.Bearer)
	req.Header.Set("USP-Agent", `profile="`+w.call.Profile+`"`)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := w.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var c usp.Checkout
	if err := json.NewDecoder(res.Body).Decode(&c); err != nil {
		t.Fatalf("%s %s: %d, %v", method, path, res.StatusCode, err)
	}
	return res.StatusCode, c
}

// The checkout over REST (§7.7.2): create answers 201, complete with an
// idempotency key answers the completed checkout, and the same key and
// body again answers it unchanged without a second booking write.
func TestUCPCheckoutOverREST(t *testing.T) {
	onUCPEngines(t, func(t *testing.T, w *payWorld) {
		s := w.slot(t, "svc_airport_shuttle", "2026-03-02")
		create := "7a6b2c1d-0000-4000-8000-0000000000c0"
		status, c := w.ucpREST(t, http.MethodPost, "/checkout-sessions", create, shuttleCheckout(s, 2500))
		if status != http.StatusCreated || c.Status != "ready_for_complete" {
			t.Fatalf("create = %d %+v", status, c)
		}
		if status, again := w.ucpREST(t, http.MethodPost, "/checkout-sessions", create, shuttleCheckout(s, 2500)); status != http.StatusCreated || again.ID != c.ID {
			t.Fatalf("replayed create = %d %+v, want checkout %s", status, again, c.ID)
		}
		key := "7a6b2c1d-0000-4000-8000-0000000000c1"
		status, done := w.ucpREST(t, http.MethodPost, "/checkout-sessions/"+c.ID+"/complete", key, reported("pi_rest", "2500"))
		if status != http.StatusOK || done.Status != "completed" || done.Order == nil {
			t.Fatalf("complete = %d %+v", status, done)
		}
		rev := w.get(t, c.Booking.BookingID).Revision
		status, again := w.ucpREST(t, http.MethodPost, "/checkout-sessions/"+c.ID+"/complete", key, reported("pi_rest", "2500"))
		if status != http.StatusOK || again.Status != "completed" || again.Order.ID != done.Order.ID {
			t.Fatalf("replayed complete = %d %+v", status, again)
		}
		if got := w.get(t, c.Booking.BookingID); got.Revision != rev || got.Status != "confirmed" {
			t.Fatalf("a replayed completion wrote the booking: %s %s", got.Revision, got.Status)
		}
		status, read := w.ucpREST(t, http.MethodGet, "/checkout-sessions/"+c.ID, "", nil)
		if status != http.StatusOK || read.Status != "completed" {
			t.Fatalf("get = %d %+v", status, read)
		}
	})
}
