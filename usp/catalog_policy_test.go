package usp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/uspspec"
)

// policyDemo is the demo with a deposit on the airport's doubles, the
// shuttle paid at booking, and a free unit.
func policyDemo(t *testing.T) *fixture {
	t.Helper()
	cfg := config.Demo()
	for i := range cfg.Locations {
		l := &cfg.Locations[i]
		if l.Slug != "airport" {
			continue
		}
		var free business.Unit
		for j := range l.Units {
			u := &l.Units[j]
			switch u.Type {
			case "double":
				u.Policy = business.Policy{Payment: business.PayDeposit, Deposit: "20%", FreeCancelHours: 48, LateCancelFee: "60.00", RescheduleFee: "15.00"}
			case "studio":
				u.Policy = business.Policy{Payment: business.PayDeposit, Deposit: "50.00", FreeCancelHours: 24, LateCancelFee: "50.00"}
			case "shuttle":
				u.Policy = business.Policy{Payment: business.PayAtBooking, FreeCancelHours: 2, LateCancelFee: "10.00"}
				free = *u
				free.Type, free.Name, free.Price, free.Policy = "lounge", "Lounge", "0.00", business.Policy{}
			}
		}
		l.Units = append(l.Units, free)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return newFixture(t, cfg, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), nil)
}

// TestCatalogPublishesTerms: each unit's payment timing, deposit,
// cancellation deadline and fee, no-show forfeit and rescheduling fee
// reach its service as the catalog schema names them, every service
// passes the schema and the constraint matrix of §3.11, and a unit that
// takes no money is free.
func TestCatalogPublishesTerms(t *testing.T) {
	f := policyDemo(t)
	res, err := f.b.ListServices(context.Background(), Call{}, ListRequest{Pagination: pageOf(100)})
	if err != nil {
		t.Fatal(err)
	}
	schemas := uspspec.Load(t)
	for _, s := range res.Services {
		body := mustJSON(t, s)
		schemas.Check(t, uspspec.Def("catalog.json", "Service"), body)
		if err := checkPaymentMatrix(body); err != "" {
			t.Errorf("%s: %s", s.ID, err)
		}
	}
	want := map[string]string{
		"svc_airport_double": `{"pricing":{"model":"fixed","amount":%d,"currency":"USD","deposit":{"type":"percentage","value":20,"refundable":true}},` +
			`"policies":{"cancellation":{"allowed":true,"free_cancellation_until":"PT48H","late_cancellation_fee":6000},"rescheduling":{"allowed":true,"fee":1500},"no_show":{"fee_percentage":20},"requires_payment":true,"payment_timing":"deposit_required"}}`,
		"svc_airport_studio": `{"pricing":{"model":"fixed","amount":%d,"currency":"USD","deposit":{"type":"fixed","value":5000,"refundable":true}},` +
			`"policies":{"cancellation":{"allowed":true,"free_cancellation_until":"PT24H","late_cancellation_fee":5000},"rescheduling":{"allowed":true},"no_show":{"fee":5000},"requires_payment":true,"payment_timing":"deposit_required"}}`,
		"svc_airport_shuttle": `{"pricing":{"model":"fixed","amount":%d,"currency":"USD"},` +
			`"policies":{"cancellation":{"allowed":true,"free_cancellation_until":"PT2H","late_cancellation_fee":1000},"rescheduling":{"allowed":true},"no_show":{"fee_percentage":100},"requires_payment":true,"payment_timing":"at_booking"}}`,
		"svc_airport_lounge": `{"pricing":{"model":"free","currency":"USD"},` +
			`"policies":{"cancellation":{"allowed":true},"rescheduling":{"allowed":true},"requires_payment":false}}`,
		"svc_riverside_single": `{"pricing":{"model":"fixed","amount":%d,"currency":"USD"},` +
			`"policies":{"cancellation":{"allowed":true},"rescheduling":{"allowed":true},"requires_payment":true,"payment_timing":"at_service"}}`,
	}
	for id, format := range want {
		s, ok := f.b.catalog.get(id)
		if !ok {
			t.Fatalf("no service %s", id)
		}
		w := format
		if s.Pricing.Amount != 0 {
			w = fmt.Sprintf(format, s.Pricing.Amount)
		}
		if got := termsOf(t, s); got != w {
			t.Errorf("%s =\n%s\nwant\n%s", id, got, w)
		}
	}
}

// publishedTerms are the parts of a service the unit's terms set.
type publishedTerms struct {
	Cancellation    CancelPolicy     `json:"cancellation"`
	Rescheduling    ReschedulePolicy `json:"rescheduling"`
	NoShow          *NoShow          `json:"no_show,omitempty"`
	RequiresPayment bool             `json:"requires_payment"`
	PaymentTiming   string           `json:"payment_timing,omitempty"`
}

// termsOf is the service's pricing and the policies its terms set,
// without the booking window and confirmation mode.
func termsOf(t *testing.T, s Service) string {
	t.Helper()
	p := s.Policies
	body, err := json.Marshal(struct {
		Pricing  Price          `json:"pricing"`
		Policies publishedTerms `json:"policies"`
	}{s.Pricing, publishedTerms{p.Cancellation, p.Rescheduling, p.NoShow, p.RequiresPayment, p.PaymentTiming}})
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// checkPaymentMatrix applies §3.11.2's rules 1 to 5 to one published
// service, read back from its JSON; it returns the first broken rule.
func checkPaymentMatrix(body []byte) string {
	var s struct {
		Pricing struct {
			Model   string          `json:"model"`
			Amount  *int64          `json:"amount"`
			Deposit json.RawMessage `json:"deposit"`
		} `json:"pricing"`
		Policies struct {
			RequiresPayment bool    `json:"requires_payment"`
			PaymentTiming   *string `json:"payment_timing"`
		} `json:"policies"`
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return err.Error()
	}
	switch {
	case !s.Policies.RequiresPayment && (s.Pricing.Model != "free" || s.Policies.PaymentTiming != nil):
		return "rule 1: no payment means pricing.model free and no payment_timing"
	case s.Policies.RequiresPayment && (s.Pricing.Model == "free" || s.Policies.PaymentTiming == nil):
		return "rule 2: a paid service is not free and names its payment_timing"
	case s.Policies.PaymentTiming != nil && *s.Policies.PaymentTiming == "deposit_required" && len(s.Pricing.Deposit) == 0:
		return "rule 3: deposit_required needs pricing.deposit"
	case s.Pricing.Model == "free" && s.Pricing.Amount != nil:
		return "rule 4: a free service has no amount"
	case s.Pricing.Model == "fixed" && (s.Pricing.Amount == nil || *s.Pricing.Amount <= 0):
		return "rule 5: a fixed price has an amount above zero"
	}
	return ""
}
