package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/payment"
	"frontdesk/reservation"
	"frontdesk/staff"
)

// addRiversideClerk adds rita, a clerk of Riverside only.
func addRiversideClerk(t *testing.T, m *Main) {
	t.Helper()
	svc, err := staff.New(m.store, m.Config.Portfolio, staff.Options{Clock: m.Clock, Hashing: staff.Hashing{Time: 1, Memory: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddUser(context.Background(), "rita", staffPassword, staff.Clerk, []string{"riverside"}); err != nil {
		t.Fatal(err)
	}
}

// payment reads p again.
func reread(t *testing.T, m *Main, p payment.Payment) payment.Payment {
	t.Helper()
	p, err := m.payments.Get(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStaffSeesAndRefundsAPayment: the reservation's page shows the
// payment; a clerk sees it but is offered no refund and is refused one;
// an owner's refund needs the CSRF token, a reason and an amount within
// what is left, is kept with the owner's name and reason, and the same
// form sent twice refunds once.
func TestStaffSeesAndRefundsAPayment(t *testing.T) {
	m, ref, _, p := paidStay(t, business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 48, LateCancelFee: "50.00"})
	addStaff(t, m)
	addRiversideClerk(t, m)
	page := "/staff/reservations/" + ref
	olga, rita := signIn(t, m, "olga"), signIn(t, m, "rita")

	_, _, body := olga.do("GET", page, nil)
	if dd(body, "pay-state") != "paid" || !strings.HasPrefix(dd(body, "pay-amount"), "$") || !strings.Contains(body, `id="refund-form"`) {
		t.Fatalf("the owner's page: %s", body)
	}
	_, _, body = rita.do("GET", page, nil)
	if dd(body, "pay-state") != "paid" || strings.Contains(body, `id="refund-form"`) || strings.Contains(body, `id="waive-form"`) {
		t.Fatalf("the clerk's page offers a refund or lacks the payment: %s", body)
	}
	form := func(c *staffClient, amount, note string) url.Values {
		return url.Values{"csrf": {c.csrf}, "amount": {amount}, "note": {note}, "seen": {"0"}}
	}
	refused := []struct {
		name   string
		c      *staffClient
		form   url.Values
		status int
		says   string
	}{
		{"a clerk", rita, form(rita, "10.00", "goodwill"), http.StatusForbidden, "Only an owner"},
		{"no CSRF token", olga, url.Values{"amount": {"10.00"}, "note": {"goodwill"}, "seen": {"0"}}, http.StatusForbidden, "out of date"},
		{"more than paid", olga, form(olga, "100000.00", "goodwill"), http.StatusUnprocessableEntity, "more than the"},
		{"no reason", olga, form(olga, "10.00", " "), http.StatusUnprocessableEntity, "Give the reason"},
		{"not an amount", olga, form(olga, "ten", "goodwill"), http.StatusUnprocessableEntity, "as a decimal"},
		{"a card number", olga, form(olga, "10.00", "4242424242424242"), http.StatusUnprocessableEntity, "card number"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := tc.c.do("POST", page+"/refund", tc.form)
			if status != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("refund = %d: %s", status, body)
			}
			if got := reread(t, m, p); len(got.Refunds) != 0 {
				t.Fatalf("a refused refund was recorded: %+v", got.Refunds)
			}
		})
	}
	ok := form(olga, "10.00", "the heater was broken")
	for range 2 {
		status, h, body := olga.do("POST", page+"/refund", ok)
		if status != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "?done=refunded") {
			t.Fatalf("refund = %d %q: %s", status, h.Get("Location"), body)
		}
	}
	got := reread(t, m, p)
	if len(got.Refunds) != 1 || got.Refunds[0].Amount != 1000 || got.Refunds[0].By != "olga" || got.Refunds[0].Note != "the heater was broken" || got.Refunds[0].State != payment.RefundDone {
		t.Fatalf("refunds = %+v, want one of 1000 by olga", got.Refunds)
	}
	_, _, body = olga.do("GET", page+"?done=refunded", nil)
	for _, want := range []string{"Refund sent to the payment provider", "$10.00, manual refund, sent, by olga: the heater was broken"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the page after the refund lacks %q: %s", want, body)
		}
	}
	if dd(body, "pay-refunded") != "$10.00" {
		t.Fatalf("refunded = %q", dd(body, "pay-refunded"))
	}
}

// TestStaffWaivesALateFeeAndOwnerSeesTotals: staff cancelling late keep
// the $20.00 deposit as part of an $80.00 fee; the owner's dashboard
// shows it taken, kept as a fee and $60.00 owed, never charged; waiving
// the fee refunds the deposit once, clears what is owed, and names the
// owner.
func TestStaffWaivesALateFeeAndOwnerSeesTotals(t *testing.T) {
	m, ref, _, p := paidStay(t, business.Policy{Payment: business.PayDeposit, Deposit: "20.00", FreeCancelHours: 1000, LateCancelFee: "80.00"})
	addStaff(t, m)
	page := "/staff/reservations/" + ref
	olga := signIn(t, m, "olga")
	dashboard := "/staff/?pay_from=2026-11-01&pay_to=2026-11-30"

	if status, _, _ := olga.do("POST", page, url.Values{"csrf": {olga.csrf}, "to": {"cancelled"}}); status != http.StatusSeeOther {
		t.Fatalf("cancel = %d", status)
	}
	p = cancelled(t, m, p)
	if p.Settled == nil || p.Settled.Why != payment.SettledCancellation || p.Settled.Kept != 2000 || p.Settled.Owed != 6000 || len(p.Refunds) != 0 {
		t.Fatalf("after a late cancellation: %+v %+v", p.Settled, p.Refunds)
	}
	_, _, body := olga.do("GET", dashboard, nil)
	for id, want := range map[string]string{"money-taken": "$20.00", "money-refunded": "$0.00", "money-kept": "$20.00", "money-fees": "$20.00", "money-owed": "$60.00"} {
		if got := dd(body, id); got != want {
			t.Fatalf("%s = %q, want %q: %s", id, got, want, body)
		}
	}
	if !strings.Contains(body, "It is never charged to a card") {
		t.Fatal("the dashboard does not say the owed part is never charged")
	}
	_, _, body = olga.do("GET", page, nil)
	if !strings.HasPrefix(dd(body, "pay-owed"), "$60.00 of the late fee") || !strings.Contains(body, `id="waive-form"`) {
		t.Fatalf("the cancelled page: %s", body)
	}
	if status, _, _ := olga.do("POST", page+"/waive", url.Values{"csrf": {olga.csrf}, "note": {" "}}); status != http.StatusUnprocessableEntity {
		t.Fatalf("a waiver without a reason = %d", status)
	}
	for range 2 {
		status, h, _ := olga.do("POST", page+"/waive", url.Values{"csrf": {olga.csrf}, "note": {"regular guest"}})
		if status == http.StatusSeeOther && !strings.HasSuffix(h.Get("Location"), "?done=waived") {
			t.Fatalf("waive = %d %q", status, h.Get("Location"))
		}
	}
	p = reread(t, m, p)
	if p.Waiver == nil || p.Waiver.By != "olga" || p.Waiver.Refund != 2000 || len(p.Refunds) != 1 || p.Refunds[0].Reason != payment.ReasonWaiver || p.Refunds[0].State != payment.RefundDone {
		t.Fatalf("after the waiver: %+v %+v", p.Waiver, p.Refunds)
	}
	_, _, body = olga.do("GET", page, nil)
	if strings.Contains(body, `id="waive-form"`) || strings.Contains(body, `id="pay-owed"`) || !strings.Contains(dd(body, "pay-waiver"), "by olga: regular guest; $20.00 refunded") {
		t.Fatalf("the waived page: %s", body)
	}
	_, _, body = olga.do("GET", dashboard, nil)
	for id, want := range map[string]string{"money-refunded": "$20.00", "money-kept": "$0.00", "money-fees": "$0.00", "money-owed": ""} {
		if got := dd(body, id); got != want {
			t.Fatalf("after the waiver %s = %q, want %q", id, got, want)
		}
	}
	if _, _, body = olga.do("GET", "/staff/?pay_from=2026-12-01&pay_to=2026-12-31", nil); dd(body, "money-taken") != "$0.00" {
		t.Fatalf("a month without payments: taken %q", dd(body, "money-taken"))
	}
	carl := signIn(t, m, "carl")
	if _, _, body = carl.do("GET", dashboard, nil); strings.Contains(body, `id="money"`) {
		t.Fatal("a clerk sees the money totals")
	}
}

// TestAdvanceWaiverAcrossDoors: an owner waives a stay's late fee
// before any cancellation, with a reason kept with their name (a
// clerk may not, and a second waiver changes nothing); the guest's page
// then shows that a late cancellation refunds all the deposit, and a
// late cancellation, from the guest's page or by staff, refunds all of
// it and keeps no fee, on both engines. USP's door is
// TestCancellationAfterAnAdvanceWaiverTakesNoFee.
func TestAdvanceWaiverAcrossDoors(t *testing.T) {
	pol := business.Policy{Payment: business.PayDeposit, Deposit: "20.00", FreeCancelHours: 1000, LateCancelFee: "80.00"}
	for _, door := range []string{"guest page", "staff"} {
		for _, engine := range []string{"sqlite", "postgres"} {
			t.Run(door+"/"+engine, func(t *testing.T) {
				database := ""
				if engine == "postgres" {
					database = pgtest.Schema(t)
				}
				checkAdvanceWaiver(t, pol, door, database)
			})
		}
	}
}

func checkAdvanceWaiver(t *testing.T, pol business.Policy, door, database string) {
	m, ref, link, p := paidStayOn(t, pol, database)
	addStaff(t, m)
	page := "/staff/reservations/" + ref
	olga, carl := signIn(t, m, "olga"), signIn(t, m, "carl")
	_, _, body := get(t, m.URL+link, "", nil)
	if dd(body, "cancel-refund") != "$0.00" {
		t.Fatalf("before the waiver, a late cancellation refunds %q", dd(body, "cancel-refund"))
	}
	_, _, body = olga.do("GET", page, nil)
	if !strings.Contains(body, `id="waive-form"`) {
		t.Fatalf("no waiver offered in advance: %s", body)
	}
	if status, _, _ := carl.do("POST", page+"/waive", url.Values{"csrf": {carl.csrf}, "note": {"regular guest"}}); status != http.StatusForbidden {
		t.Fatalf("a clerk's waiver = %d", status)
	}
	for i := range 2 {
		status, h, _ := olga.do("POST", page+"/waive", url.Values{"csrf": {olga.csrf}, "note": {"regular guest"}})
		if i == 0 && (status != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "?done=waived")) {
			t.Fatalf("waive in advance = %d %q", status, h.Get("Location"))
		}
	}
	p = reread(t, m, p)
	if !p.FeeWaivedInAdvance() || p.Waiver.By != "olga" || p.Waiver.Note != "regular guest" || len(p.Refunds) != 0 {
		t.Fatalf("after the advance waiver: %+v %+v", p.Waiver, p.Refunds)
	}
	_, _, body = olga.do("GET", page, nil)
	if strings.Contains(body, `id="waive-form"`) || !strings.Contains(dd(body, "pay-waiver"), "by olga: regular guest; in advance: a cancellation takes no late fee") {
		t.Fatalf("the waived page: %s", body)
	}
	_, _, body = get(t, m.URL+link, "", nil)
	if dd(body, "cancel-refund") != "$20.00" {
		t.Fatalf("after the waiver, a late cancellation refunds %q", dd(body, "cancel-refund"))
	}
	if door == "guest page" {
		body = guestCancels(t, m, link)
		if dd(body, "kept") != "$0.00" || !strings.Contains(body, "Nothing is owed.") {
			t.Fatalf("the cancelled page: %s", body)
		}
	} else if status, _, _ := olga.do("POST", page, url.Values{"csrf": {olga.csrf}, "to": {"cancelled"}}); status != http.StatusSeeOther {
		t.Fatalf("staff cancel = %d", status)
	}
	p = cancelled(t, m, p)
	if got := cancelRefund(t, p); got != 2000 || p.Settled == nil || p.Settled.Kept != 0 || p.Owed() != 0 {
		t.Fatalf("after a late cancellation: refunded %d, %+v", got, p.Settled)
	}
}

// TestNoShowAppliesTheRule: marking a paid stay a no-show at the staff
// screen keeps the deposit by default and returns it when the unit's
// policy says so, once, however often the outbox is relayed.
func TestNoShowAppliesTheRule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refund bool
	}{{"kept", false}, {"refunded", true}} {
		t.Run(tc.name, func(t *testing.T) {
			m, ref, _, p := paidStay(t, business.Policy{Payment: business.PayDeposit, Deposit: "20%", NoShowRefund: tc.refund})
			addStaff(t, m)
			m.Clock.(*clock.Fixed).Set(time.Date(2026, 12, 31, 16, 0, 0, 0, time.UTC)) // the morning after arrival, in Denver
			olga := signIn(t, m, "olga")
			status, h, _ := olga.do("POST", "/staff/reservations/"+ref, url.Values{"csrf": {olga.csrf}, "to": {"no-show"}})
			if status != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "?done=no-show-none") {
				t.Fatalf("no-show = %d %q", status, h.Get("Location"))
			}
			p = cancelled(t, m, p)
			p = cancelled(t, m, p)
			want := int64(0)
			if tc.refund {
				want = p.Amount
			}
			if p.Settled == nil || p.Settled.Why != payment.SettledNoShow || p.Settled.Kept != p.Amount-want || p.Refunded() != want || len(p.Refunds) > 1 {
				t.Fatalf("after the no-show: %+v %+v", p.Settled, p.Refunds)
			}
			if tc.refund && (p.Refunds[0].Reason != payment.ReasonNoShow || p.Refunds[0].State != payment.RefundDone) {
				t.Fatalf("refunds = %+v", p.Refunds)
			}
			_, _, body := olga.do("GET", "/staff/?pay_from=2026-11-01&pay_to=2026-11-30", nil)
			if shown := dd(body, "money-no-shows"); (shown != "") == tc.refund {
				t.Fatalf("kept from no-shows = %q", shown)
			}
		})
	}
}

// silentRefunds is a payment provider whose refunds time out while down
// is set, as a provider that does not answer does; sent counts the
// refunds the provider made.
type silentRefunds struct {
	payment.Provider
	down atomic.Bool
	sent atomic.Int32
}

func (s *silentRefunds) Refund(ctx context.Context, in payment.RefundRequest) (payment.Refund, error) {
	if s.down.Load() {
		return payment.Refund{}, fmt.Errorf("refund: %w", context.DeadlineExceeded)
	}
	r, err := s.Provider.Refund(ctx, in)
	if err == nil {
		s.sent.Add(1)
	}
	return r, err
}

// TestStaffRefundTheProviderDoesNotAnswer: an owner's refund the
// provider does not answer is recorded pending, and the page says so;
// the same form sent again while the provider is silent records nothing
// more, and once it answers, sending it again (or the sweep) sends that
// one refund, once.
func TestStaffRefundTheProviderDoesNotAnswer(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { checkSilentRefund(t, "") })
	t.Run("postgres", func(t *testing.T) { checkSilentRefund(t, pgtest.Schema(t)) })
}

func checkSilentRefund(t *testing.T, database string) {
	silent := &silentRefunds{}
	m, ref, _, p := paidRequestVia(t, business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 48, LateCancelFee: "50.00"}, database,
		func(pr payment.Provider) payment.Provider { silent.Provider = pr; return silent })
	if _, _, err := m.office.Decide(context.Background(), reservation.Decision{Reference: ref, To: reservation.Confirmed, By: "olga"}); err != nil {
		t.Fatal(err)
	}
	addStaff(t, m)
	page := "/staff/reservations/" + ref
	olga := signIn(t, m, "olga")
	form := url.Values{"csrf": {olga.csrf}, "amount": {"10.00"}, "note": {"the heater was broken"}, "seen": {"0"}}

	silent.down.Store(true)
	for range 2 {
		status, h, body := olga.do("POST", page+"/refund", form)
		if status != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "?done=refund-pending") {
			t.Fatalf("refund with the provider silent = %d %q: %s", status, h.Get("Location"), body)
		}
		got := reread(t, m, p)
		if len(got.Refunds) != 1 || got.Refunds[0].State != payment.RefundPending || got.Refunds[0].Amount != 1000 || silent.sent.Load() != 0 {
			t.Fatalf("refunds with the provider silent = %+v, %d sent", got.Refunds, silent.sent.Load())
		}
	}
	_, _, body := olga.do("GET", page+"?done=refund-pending", nil)
	for _, want := range []string{"Refund recorded with your name and reason; the payment provider did not answer, so it is sent again until it does.",
		"$10.00, manual refund, pending: will be sent again, by olga: the heater was broken"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the page after a silent refund lacks %q: %s", want, body)
		}
	}

	silent.down.Store(false)
	status, h, _ := olga.do("POST", page+"/refund", form)
	if status != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "?done=refunded") {
		t.Fatalf("the same form once the provider answers = %d %q", status, h.Get("Location"))
	}
	if _, err := m.payments.Resume(context.Background(), p.ID); err != nil {
		t.Fatal(err)
	}
	got := reread(t, m, p)
	if len(got.Refunds) != 1 || got.Refunds[0].State != payment.RefundDone || silent.sent.Load() != 1 {
		t.Fatalf("refunds once the provider answers = %+v, %d sent", got.Refunds, silent.sent.Load())
	}
}
