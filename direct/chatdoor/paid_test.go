package chatdoor

import (
	"context"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
)

// TestPaidUnitIsBookedOnTheSite: chat takes no payment, so a unit whose
// terms take money when booking is refused with the booking form and
// the phone, and no code is mailed; the location's other units still
// book in chat.
func TestPaidUnitIsBookedOnTheSite(t *testing.T) {
	for _, pol := range []business.Policy{
		{Payment: business.PayDeposit, Deposit: "50.00"},
		{Payment: business.PayAtBooking, FreeCancelHours: 48, LateCancelFee: "40.00"},
	} {
		t.Run(pol.Payment, func(t *testing.T) {
			w := newWorld(t, func(c *config.Config) {
				for i, u := range c.Locations[0].Units {
					if u.Type == "double" {
						c.Locations[0].Units[i].Policy = pol
					}
				}
			})
			ctx := context.Background()
			_, err := w.svc.Start(ctx, web, stayArgs())
			const want = "This stay cannot be booked in chat. Use the booking form or call +1 303 555 0111.\n" +
				"http://localhost:8080/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"
			if got := refusalText(err); got != want {
				t.Fatalf("start on a paid unit = %q, want %q", got, want)
			}
			if msgs, err := w.mail.Messages(ctx); err != nil || len(msgs) != 0 {
				t.Fatalf("mails after the refusal: %d, %v; want none", len(msgs), err)
			}
			if ref := w.book(stayArgs("roomtype", "single")); ref == "" {
				t.Fatal("the unpaid single did not book")
			}
		})
	}
}
