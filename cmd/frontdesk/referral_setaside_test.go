package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/reservation"
)

// TestRefusedRefundIsSetAsideInServe is the referral ledger's outbox on a
// running server, with a real refusal of the ORP host: a stay booked
// with the partner's code and a shuttle booked with it through USP both
// earn payouts; then the owner lowers orp.max_report_minor below the
// stay's total and restarts, so the host refuses the stay's refund as
// invalid at every pass. The shuttle's refund, after it, waits until the
// stay's end is set aside at its fifth counted failure, then reverses
// its payout; the metric counts one. Once the limit is raised again, a
// retry refunds the stay.
func TestRefusedRefundIsSetAsideInServe(t *testing.T) {
	t.Parallel()
	onReferralEngines(t, func(t *testing.T, database string) {
		ctx := context.Background()
		w := startReferral(t, database)
		stay := w.bookForm(grace, "", w.code)
		w.decide(stay, reservation.Confirmed)
		shuttle := w.bookUSP(w.code)
		w.relay()
		payouts := map[string]string{} // by reference: the partner's payout
		for id, p := range w.payouts() {
			for _, ref := range []string{stay, shuttle} {
				if p["amount"].(map[string]any)["amount_minor"] == float64(w.total(ref)/10) {
					payouts[ref] = id
				}
			}
		}
		if len(payouts) != 2 || w.total(shuttle) >= w.total(stay) {
			t.Fatalf("payouts %v for totals %d and %d", w.payouts(), w.total(stay), w.total(shuttle))
		}
		limit := w.total(shuttle)
		w.restartWith(func(c *config.Config) { c.ORP.MaxReportMinor = limit })

		// Staff cancel the stay before it begins: a refund the host now
		// refuses. The platform cancels the shuttle after it.
		olga := signIn(t, w.main, "olga")
		if status, _, body := olga.do("POST", "/staff/reservations/"+stay, url.Values{"csrf": {olga.csrf}, "to": {"cancelled"}}); status != http.StatusSeeOther {
			t.Fatalf("staff cancel = %d %s", status, body)
		}
		if status, _, body := post(t, w.url+"/usp/bookings/"+shuttle+"/cancel", w.platform, `{"reason":"plans changed"}`); status != 200 {
			t.Fatalf("platform cancel = %d %s", status, body)
		}
		// The server's relay, woken by the commits, counts the first
		// failure; each pass a minute later counts one more.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if _, err := w.main.store.Get(ctx, "outbox-failing", "referral"); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the server's relay counted no failure of the stay's end within 10s")
			}
		}
		desk := w.main.bookings.Desk()
		for pass := 2; pass < 5; pass++ {
			w.clock.Advance(time.Minute)
			if err := desk.Relay(ctx); err == nil || !strings.Contains(err.Error(), "amount_minor may be at most") {
				t.Fatalf("pass %d = %v, want the host's refusal", pass, err)
			}
			if p := w.payout(w.partner, payouts[shuttle]); p["state"] != "held" {
				t.Fatalf("pass %d: the shuttle's payout is %v while the stay's end holds the ledger", pass, p["state"])
			}
		}
		w.clock.Advance(time.Minute)
		err := desk.Relay(ctx)
		if p := w.payout(w.partner, payouts[shuttle]); p["state"] != "reversed" {
			t.Fatalf("the shuttle's payout after the stay's end was set aside: %v", p["state"])
		}
		if err != nil {
			t.Fatalf("the pass that sets the stay's end aside = %v", err)
		}
		if p := w.payout(w.partner, payouts[stay]); p["state"] != "held" {
			t.Fatalf("the stay's payout, its refund refused: %v", p["state"])
		}
		aside, err := desk.SetAsideEvents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(aside) != 1 || aside[0].Reference != stay || aside[0].Consumer != "referral" || aside[0].Attempts != 5 {
			t.Fatalf("set aside %+v, want the stay's end", aside)
		}
		if body := string(scrape(t, w.url)); !strings.Contains(body, `frontdesk_outbox_set_aside_total{consumer="referral"} 1`) {
			t.Fatalf("metrics lack the set-aside count: %s", body)
		}

		w.clock.Advance(time.Minute)
		w.restart() // the default limit again
		if err := w.main.bookings.Desk().RetrySetAside(ctx, "referral", aside[0].Position); err != nil {
			t.Fatal(err)
		}
		if p := w.payout(w.partner, payouts[stay]); p["state"] != "reversed" {
			t.Fatalf("the stay's payout after the retry: %v", p["state"])
		}
	})
}
