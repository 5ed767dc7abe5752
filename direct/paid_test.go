package direct

import (
	"context"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/reservation"
)

// TestChatCancelsNoPaidStay: chat processes no payment or refund, so a
// confirmed stay of a unit that takes a deposit, booked on the site, is
// cancelled in chat only by phone, with the specification's sentence;
// a stay of an unpaid unit still gets its code.
func TestChatCancelsNoPaidStay(t *testing.T) {
	w := newWorld(t, func(c *config.Config) {
		for i, u := range c.Locations[0].Units {
			if u.Type == "double" {
				c.Locations[0].Units[i].Policy = business.Policy{Payment: business.PayDeposit, Deposit: "20%"}
			}
		}
	})
	ctx := context.Background()
	res, err := w.svc.Core().Submit(ctx, formRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.svc.core.Decide(ctx, reservation.Decision{Reference: res.Reference, To: reservation.Confirmed, By: "maria"}); err != nil {
		t.Fatal(err)
	}
	_, err = w.cancel(ctx, web, args("reservation_number", res.Reference, "phone_last4", "0142"))
	if got := refusalText(err); got != byPhone {
		t.Fatalf("chat cancellation of a paid stay = %q, want %q", got, byPhone)
	}
	single := w.book(stayArgs("roomtype", "single"))
	if _, got := cancelStep1(w, single); got != "" {
		t.Fatalf("chat cancellation of an unpaid stay = %q", got)
	}
}
