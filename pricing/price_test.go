package pricing

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"frontdesk/business"
)

// feeLocation is the demo's Riverside Inn with fees on its double: a
// taxable cleaning fee per stay, an untaxed resort fee per night and a
// taxable linen fee per guest.
func feeLocation(t *testing.T) (*Pricer, business.Location) {
	t.Helper()
	p, c := demoPricer()
	l := location(c, "riverside")
	l.Units = append([]business.Unit(nil), l.Units...)
	for i := range l.Units {
		if l.Units[i].Type == "double" {
			l.Units[i].Fees = []business.Fee{
				{Name: "Cleaning fee", Amount: "35.00", Per: business.FeePerStay, Taxable: true},
				{Name: "Resort fee", Amount: "10.00", Per: business.FeePerNight},
				{Name: "Linen fee", Amount: "5.00", Per: business.FeePerGuest, Taxable: true},
			}
		}
	}
	return p, l
}

func labels(lines []PriceLine) string {
	var out []string
	for _, l := range lines {
		out = append(out, fmt.Sprintf("%s = %d", l.Label, l.Amount))
	}
	return strings.Join(out, "; ")
}

// TestFees: each fee is priced per stay, night or guest, the tax is
// charged on the rates and the taxable fees only, and the total holds
// them all; Price splits that total into the same lines.
func TestFees(t *testing.T) {
	p, l := feeLocation(t)
	double, _ := l.Unit("double")
	rate := int64(11900) // the demo double's nightly rate
	tests := []struct {
		nights, guests int
	}{{1, 1}, {3, 2}, {9, 4}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d-nights-%d-guests", tt.nights, tt.guests), func(t *testing.T) {
			q, err := p.Quote(Stay{Location: l, RoomType: "double", Checkin: "2026-12-10", Checkout: civilAdd("2026-12-10", tt.nights), Guests: tt.guests}, today)
			if err != nil {
				t.Fatal(err)
			}
			perStay, perNight, perGuest := int64(3500), int64(1000*tt.nights), int64(500*tt.guests)
			subtotal, _ := p.subtotal(double, tt.nights)
			wantTax := p.tax(subtotal + perStay + perGuest) // the resort fee is not taxed
			if q.Subtotal != subtotal || q.Fees != perStay+perNight+perGuest || q.Tax != wantTax || q.Total != subtotal+q.Fees+wantTax {
				t.Fatalf("quote = %d + fees %d + tax %d = %d, want %d + %d + %d", q.Subtotal, q.Fees, q.Tax, q.Total, subtotal, perStay+perNight+perGuest, wantTax)
			}
			pr := p.Price(double, tt.nights, tt.guests, q.Total)
			if pr.Subtotal != q.Subtotal || pr.FeeTotal != q.Fees || pr.Tax.Amount != q.Tax || pr.Total != q.Total {
				t.Fatalf("price = %+v, quote %+v", pr, q)
			}
			want := fmt.Sprintf("Cleaning fee = 3500; Resort fee, %d %s × $10.00 = %d; Linen fee, %d %s × $5.00 = %d",
				tt.nights, plural(tt.nights, "night"), perNight, tt.guests, plural(tt.guests, "guest"), perGuest)
			if got := labels(pr.Fees); got != want {
				t.Errorf("fee lines = %q, want %q", got, want)
			}
			if tt.nights == 1 && rate+perStay+perNight+perGuest+wantTax != q.Total {
				t.Errorf("one night's total = %d", q.Total)
			}
			// Another guest count is another total: the lines do not
			// split the first one.
			if other := p.Price(double, tt.nights, tt.guests+1, q.Total); len(other.Lines) != 0 || len(other.Fees) != 0 {
				t.Errorf("a total priced for other guests split into %+v", other)
			}
		})
	}
	// A unit without fees prices as before: no fee lines, Fees zero.
	q, err := p.Quote(Stay{Location: l, RoomType: "single", Checkin: "2026-12-10", Checkout: "2026-12-11", Guests: 3}, today)
	if err != nil || q.Fees != 0 || q.Total != 9857 {
		t.Fatalf("a single without fees = %+v, %v", q, err)
	}
}

// TestFeeTaxableOrNot: the same fee changes the tax only when taxable.
func TestFeeTaxableOrNot(t *testing.T) {
	p, l := feeLocation(t)
	for _, taxable := range []bool{false, true} {
		t.Run(fmt.Sprint("taxable=", taxable), func(t *testing.T) {
			l := l
			l.Units = append([]business.Unit(nil), l.Units...)
			l.Units[0].Fees = []business.Fee{{Name: "Cleaning fee", Amount: "20.00", Per: business.FeePerStay, Taxable: taxable}}
			q, err := p.Quote(Stay{Location: l, RoomType: "single", Checkin: "2026-12-10", Checkout: "2026-12-11"}, today)
			if err != nil {
				t.Fatal(err)
			}
			wantTax := int64(957) // 10.75% of 89.00
			if taxable {
				wantTax = 1172 // 10.75% of 109.00 = 1171.75
			}
			if q.Fees != 2000 || q.Tax != wantTax || q.Total != 8900+2000+wantTax {
				t.Fatalf("quote = %+v, want fees 2000 and tax %d", q, wantTax)
			}
		})
	}
}

// TestSlotPrice: a timed booking's price is its places at the unit's
// price per place, worded with the unit's place name, untaxed.
func TestSlotPrice(t *testing.T) {
	p, c := demoPricer()
	shuttle, ok := location(c, "airport").Unit("shuttle")
	if !ok {
		t.Fatal("the demo has no shuttle")
	}
	tests := []struct {
		places int
		label  string
	}{{1, "1 ride × $25.00"}, {3, "3 rides × $25.00"}}
	for _, tt := range tests {
		total, ok := p.SlotTotal(shuttle, tt.places)
		if !ok || total != 2500*int64(tt.places) {
			t.Fatalf("SlotTotal(%d) = %d, %v", tt.places, total, ok)
		}
		pr := p.Price(shuttle, 1, tt.places, total)
		if got := labels(pr.Lines); got != fmt.Sprintf("%s = %d", tt.label, total) || pr.Tax.Label != "" || pr.Total != total || pr.Subtotal != total {
			t.Errorf("%d places: %q, %+v", tt.places, got, pr)
		}
	}
	unnamed := shuttle
	unnamed.PlaceName = ""
	if got := labels(p.Price(unnamed, 1, 2, 5000).Lines); got != "2 places × $25.00 = 5000" {
		t.Errorf("a unit without a place name: %q", got)
	}
	if pr := p.Price(shuttle, 1, 2, 4000); len(pr.Lines) != 0 || pr.Total != 4000 {
		t.Errorf("a total the price does not give: %+v", pr)
	}
	double, _ := location(c, "airport").Unit("double")
	if _, ok := p.SlotTotal(double, 1); ok {
		t.Error("SlotTotal priced a room sold by the night")
	}
}

// TestDueSplit: the unit's terms split the total into what is due when
// booking and at the property, a percentage rounded half up and a fixed
// deposit never more than the total.
func TestDueSplit(t *testing.T) {
	p, c := demoPricer()
	single, _ := location(c, "riverside").Unit("single")
	tests := []struct {
		name     string
		policy   business.Policy
		total    int64
		timing   string
		now, due int64
	}{
		{"at-service", business.Policy{}, 9857, business.PayAtService, 0, 9857},
		{"at-booking", business.Policy{Payment: business.PayAtBooking}, 9857, business.PayAtBooking, 9857, 0},
		{"percent", business.Policy{Payment: business.PayDeposit, Deposit: "30%"}, 9857, business.PayDeposit, 2957, 6900}, // 2957.1
		{"percent-half-up", business.Policy{Payment: business.PayDeposit, Deposit: "50%"}, 9857, business.PayDeposit, 4929, 4928},
		{"fixed", business.Policy{Payment: business.PayDeposit, Deposit: "50.00"}, 9857, business.PayDeposit, 5000, 4857},
		{"fixed-over-total", business.Policy{Payment: business.PayDeposit, Deposit: "150.00"}, 9857, business.PayDeposit, 9857, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := single
			u.Policy = tt.policy
			pr := p.Price(u, 1, 1, tt.total)
			if pr.Timing != tt.timing || pr.DueNow != tt.now || pr.DueLater != tt.due || pr.DueNow+pr.DueLater != pr.Total {
				t.Fatalf("due = %s %d now + %d later, want %s %d + %d", pr.Timing, pr.DueNow, pr.DueLater, tt.timing, tt.now, tt.due)
			}
			if pr.TakesMoney() != (tt.timing != business.PayAtService) {
				t.Errorf("TakesMoney = %v", pr.TakesMoney())
			}
			if len(pr.Lines) == 0 {
				t.Errorf("the rate lines went: %+v", pr)
			}
		})
	}
}

// TestChatQuoteRoutesFees: chat's quote, whose shape has no place for
// fees, refuses a room with fees with the prefilled form and the phone,
// and quotes every other room as Quote does.
func TestChatQuoteRoutesFees(t *testing.T) {
	p, l := feeLocation(t)
	stay := Stay{Location: l, RoomType: "double", Checkin: "2026-12-10", Checkout: "2026-12-12"}
	_, err := p.ChatQuote(stay, today)
	var r *Refusal
	if !errors.As(err, &r) || r.Kind != RefusalFees || !r.HasForm || !r.HasPhone {
		t.Fatalf("ChatQuote of a room with fees = %v", err)
	}
	want := "No quote: this room has fees\nA double at Riverside Inn has fees on top of its rates, and this answer has no place for them, so there is no figure here and none should be guessed. See http://localhost:8080/book/riverside?roomtype=double&checkin=2026-12-10&checkout=2026-12-12 for the full price and to book, or call " + l.Phone + "."
	if r.Text != want {
		t.Errorf("refusal =\n%s\nwant\n%s", r.Text, want)
	}
	// A date refusal still comes first.
	stay.Checkout = stay.Checkin
	if _, err := p.ChatQuote(stay, today); !errors.As(err, &r) || r.Kind != RefusalCheckoutNotAfter {
		t.Errorf("bad dates in a room with fees = %v", err)
	}
	single := Stay{Location: l, RoomType: "single", Checkin: "2026-12-10", Checkout: "2026-12-12"}
	got, err := p.ChatQuote(single, today)
	plain, _ := p.Quote(single, today)
	if err != nil || got != plain {
		t.Errorf("ChatQuote of a room without fees = %+v, %v; Quote %+v", got, err, plain)
	}
}
