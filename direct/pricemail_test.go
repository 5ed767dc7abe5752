package direct

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/golden"
	"frontdesk/reservation"
)

// withFees gives Riverside's double a taxable cleaning fee per stay and
// an untaxed linen fee per guest, and the airport shuttle a fixed
// deposit.
func withFees(c *config.Config) {
	for li := range c.Locations {
		l := &c.Locations[li]
		l.Units = append([]business.Unit(nil), l.Units...)
		for ui := range l.Units {
			u := &l.Units[ui]
			switch {
			case l.Slug == "riverside" && u.Type == "double":
				u.Fees = []business.Fee{
					{Name: "Cleaning fee", Amount: "35.00", Per: business.FeePerStay, Taxable: true},
					{Name: "Linen fee", Amount: "5.00", Per: business.FeePerGuest},
				}
			case u.Type == "shuttle":
				u.Count = 3 // seats, so a party of two fits
				u.Policy = business.Policy{Payment: business.PayDeposit, Deposit: "10.00"}
			}
		}
	}
}

// TestPriceMails pins the price lines of the guest mails: a form request
// for a room with fees shows them between the nights and the tax, in its
// total; a staff decision on a timed booking shows its places as rides,
// never nights, with what is due now and at the property. Chat does not
// book the room with fees: its price has no place for them.
func TestPriceMails(t *testing.T) {
	w := newWorld(t, withFees)
	ctx := context.Background()
	req := formRequest(t)
	req.Token = testToken(0)
	res, err := w.svc.Core().Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reservation.Get(ctx, w.st, res.Reference)
	// 3 nights × 119.00 + 35.00 + 2 × 5.00; tax on 392.00 = 42.14
	if err != nil || r.Total != 35700+3500+1000+4214 {
		t.Fatalf("form request total = %d, %v", r.Total, err)
	}

	if _, err := w.start(ctx, web, stayArgs()); err == nil {
		t.Fatal("chat started a booking of a room with fees")
	} else if e, ok := AsError(err); !ok || e.Code != CodeUnbookable || !strings.Contains(refusalText(err), "/book/riverside?roomtype=double") {
		t.Fatalf("chat's start of a room with fees = %v", refusalText(err))
	}

	ride, err := w.svc.Core().Book(ctx, reservation.BookRequest{
		Location: "airport", Unit: "shuttle", Slots: []string{"2026-12-02T06:00"}, Guests: 2, Units: 2,
		Contact: reservation.Contact{Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+1 303 555 0199"},
		Source:  reservation.USP("platform.example"), Total: 5000, Kind: reservation.KindBooking, By: "usp:platform.example",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, sent, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: ride.Reference, To: reservation.Confirmed, By: "ann"}); err != nil || !sent {
		t.Fatalf("confirm the ride: sent %v, %v", sent, err)
	}

	var mails strings.Builder
	for _, m := range w.messages() {
		if len(m.To) == 1 && m.To[0] == w.cfg.Mail.Staff {
			continue // the staff notice carries no price lines
		}
		fmt.Fprintf(&mails, "== %s\nTo: %s\nSubject: %s\n\n%s\n", m.ID, strings.Join(m.To, ", "), m.Subject, m.Text)
	}
	golden.Check(t, "price-mails.txt", []byte(mails.String()))
	if got := mails.String(); strings.Contains(got, "night") && !strings.Contains(got, "3 nights × $119.00") {
		t.Errorf("mails word a ride as a night:\n%s", got)
	}
}
