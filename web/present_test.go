package web

import (
	"fmt"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/reservation"
)

// TestWordPrice: the pages word a price in pricing's lines: the nights,
// each fee, the tax and the total, then what is due now and at the
// property for a unit that takes a deposit; a timed unit's places as its
// place name, never nights.
func TestWordPrice(t *testing.T) {
	c := config.Demo()
	double, _ := c.Locations[0].Unit("double")
	double.Fees = []business.Fee{{Name: "Cleaning fee", Amount: "35.00", Per: business.FeePerStay, Taxable: true}}
	double.Policy = business.Policy{Payment: business.PayDeposit, Deposit: "30%"}
	// 2 nights × 119.00 + 35.00 = 273.00; 10.75% tax = 29.35; 30% of
	// 302.35 = 90.705, rounded half up
	p := wordPrice(c.Portfolio, double, 2, 1, 27300+2935)
	words := func(p *priceLines) string {
		var out []string
		for _, l := range append(append(p.Lines, p.Tax), p.Due...) {
			out = append(out, l.Label+": "+l.Amount)
		}
		return strings.Join(out, "; ") + "; Total: " + p.Total
	}
	want := "2 nights × $119.00 a night: $238.00; Cleaning fee: $35.00; 10.75% lodging tax: $29.35; Due now: $90.71; Due at the property: $211.64; Total: $302.35"
	if got := words(p); got != want {
		t.Errorf("a stay with a fee and a deposit:\n%s\nwant\n%s", got, want)
	}
	var shuttle business.Unit
	for _, u := range c.Locations[2].Units {
		if u.Kind == business.KindTimed {
			shuttle = u
		}
	}
	if got := words(wordPrice(c.Portfolio, shuttle, 1, 2, 5000)); got != "2 rides × $25.00: $50.00; : ; Due now: $50.00; Total: $50.00" {
		t.Errorf("two rides: %s", got)
	}
	if p := wordPrice(c.Portfolio, double, 2, 1, 12345); len(p.Lines) != 0 || len(p.Due) != 2 || p.Total != "$123.45" {
		t.Errorf("a total the rates do not give = %s", fmt.Sprint(*p))
	}
}

// TestStaffState: the staff lists word a platform's checkout whose hold
// lapsed apart from a guest's request, which staff take or decline.
func TestStaffState(t *testing.T) {
	tests := []struct {
		source reservation.Source
		state  reservation.State
		want   string
	}{
		{reservation.SourceForm, reservation.Requested, "requested"},
		{reservation.USP("acme"), reservation.Requested, "checkout lapsed: holds nothing until the platform pays"},
		{reservation.USP("acme"), reservation.Confirmed, "confirmed"},
		{reservation.SourceChat, reservation.Reserved, "reserved"},
	}
	for _, tt := range tests {
		if got := staffState(reservation.Reservation{Source: tt.source, State: tt.state}); got != tt.want {
			t.Errorf("%s %s = %q, want %q", tt.source, tt.state, got, tt.want)
		}
	}
}
