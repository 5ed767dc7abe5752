package orp

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// fixtureTerms are terms where the acceptor places a link in space
// sp_blog_1 and the offerer pays 200 EUR per deal, for 30 days.
const fixtureTerms = `{
	"title": "Acme Notes: a post about note-taking", "kind": "sponsored", "categories": ["software.productivity"],
	"disclosure": {"label": "Partner mention", "lang": "en"},
	"obligations": [
		{"id": "place", "by": "acceptor", "action": "place", "space": {"id": "sp_blog_1"}, "content": {"link": true, "brief": "Why Acme Notes suits solo founders."},
		 "destination": "https://acmenotes.example/", "due": "P14D", "keep": "P16D", "proof": ["proof_url"]},
		{"id": "fee", "by": "offerer", "action": "pay", "per": "deal", "amount": {"amount_minor": 20000, "currency": "EUR"}, "rail": "stripe"}
	]
}`

// allowing is constraints under which fixtureTerms bind the offerer by
// mandate: every rule set, none hit.
const allowing = `{
	"budget": {"per_deal": {"amount_minor": 30000, "currency": "EUR"}, "per_month": {"amount_minor": 100000, "currency": "EUR"}, "max_rate_bps": 3000},
	"approve_over": {"amount_minor": 50000, "currency": "EUR"},
	"kinds": ["sponsored", "affiliate"],
	"categories": {"allow": ["software"], "deny": ["gambling"]},
	"spaces": {"allow": ["sp_blog_1"]},
	"counterparties": {"new": "auto", "deny": ["orp:hub.example/p_denied"]},
	"brand": {"must_not_include": ["guaranteed income"], "disclosure": {"label": "Partner mention", "lang": "en"}},
	"max_duration": "P90D",
	"expires": "2027-06-30T00:00:00Z"
}`

// TestDecideOrder triggers every outcome of §11.1 with a constraints
// fixture, and shows the order: an off step is refused before a denied
// counterparty, which is refused before a brand rule; then every
// escalation reason is collected, in the order §11.1 lists them.
func TestDecideOrder(t *testing.T) {
	now := time.Date(2026, 10, 21, 9, 0, 0, 0, time.UTC)
	var base Constraints
	if err := json.Unmarshal([]byte(allowing), &base); err != nil {
		t.Fatal(err)
	}
	var tm terms
	if err := json.Unmarshal([]byte(fixtureTerms), &tm); err != nil {
		t.Fatal(err)
	}
	auto := Steps{List: "auto", Negotiate: "auto", Accept: "auto", Execute: "auto", Amend: "auto", Settle: "auto", Share: "auto", Revoke: "auto"}
	all := func(c *Constraints, in *decision) {
		c.Expires = "2026-10-01T00:00:00Z"
		c.Categories.Allow = []string{"travel"}
		c.Kinds = []string{"affiliate"}
		c.Spaces.Allow = []string{"sp_news_1"}
		c.Budget = nil
		c.ApproveOver = &Money{AmountMinor: 100, Currency: "EUR"}
		c.MaxDuration = "P7D"
		c.Counterparties.New = "ask"
		min := 400
		c.Counterparties.MinReputation = &min
		in.newCounterparty, in.unchecked = true, true
	}
	for _, c := range []struct {
		name    string
		steps   func(*Steps)
		change  func(*Constraints, *decision)
		code    Code
		reasons []string
	}{
		{name: "bound by mandate", reasons: nil},
		{name: "step off before all else", steps: func(s *Steps) { s.Negotiate = "off" },
			change: func(c *Constraints, in *decision) {
				in.counterparty = "orp:hub.example/p_denied"
				c.Categories.Deny = []string{"software"}
			}, code: StepOff},
		{name: "denied counterparty before brand rules", change: func(c *Constraints, in *decision) {
			in.counterparty = "orp:hub.example/p_denied"
			c.Categories.Deny = []string{"software"}
		}, code: Forbidden},
		{name: "new counterparty while new is off", change: func(c *Constraints, in *decision) {
			c.Counterparties.New, in.newCounterparty = "off", true
			c.Brand.MustNotInclude = []string{"solo founders"}
		}, code: Forbidden},
		{name: "denied category before reasons", change: func(c *Constraints, in *decision) {
			c.Categories.Deny = []string{"software"}
			all(c, in)
		}, steps: func(s *Steps) { s.Negotiate = "ask" }, code: BrandRule},
		{name: "brand phrase", change: func(c *Constraints, in *decision) { c.Brand.MustNotInclude = []string{"SOLO FOUNDERS"} }, code: BrandRule},
		{name: "missing required disclosure", change: func(c *Constraints, in *decision) { c.Brand.Disclosure = &disclosure{Label: "Ad", Lang: "en"} }, code: BrandRule},
		{name: "step_ask", steps: func(s *Steps) { s.Negotiate = "ask" }, reasons: []string{"step_ask"}},
		{name: "mandate_expired", change: func(c *Constraints, in *decision) { c.Expires = "2026-10-21T09:00:00Z" }, reasons: []string{"mandate_expired"}},
		{name: "category_outside", change: func(c *Constraints, in *decision) { c.Categories.Allow = []string{"travel"} }, reasons: []string{"category_outside"}},
		{name: "kind_outside", change: func(c *Constraints, in *decision) { c.Kinds = []string{"affiliate"} }, reasons: []string{"kind_outside"}},
		{name: "space_outside", change: func(c *Constraints, in *decision) { in.role = "acceptor"; c.Spaces.Allow = []string{"sp_news_1"} }, reasons: []string{"space_outside"}},
		{name: "over_budget: a budget never set allows no spending", change: func(c *Constraints, in *decision) { c.Budget = nil }, reasons: []string{"over_budget"}},
		{name: "over_budget: above per_deal", change: func(c *Constraints, in *decision) { c.Budget.PerDeal.AmountMinor = 19999 }, reasons: []string{"over_budget"}},
		{name: "over_budget: above per_month", change: func(c *Constraints, in *decision) { in.monthSpent = 90000 }, reasons: []string{"over_budget"}},
		{name: "over_threshold", change: func(c *Constraints, in *decision) { c.ApproveOver.AmountMinor = 19999 }, reasons: []string{"over_threshold"}},
		{name: "duration_over", change: func(c *Constraints, in *decision) { c.MaxDuration = "P29D" }, reasons: []string{"duration_over"}},
		{name: "new_counterparty", change: func(c *Constraints, in *decision) { c.Counterparties.New, in.newCounterparty = "ask", true }, reasons: []string{"new_counterparty"}},
		{name: "low_reputation: unknown", change: func(c *Constraints, in *decision) { min := 400; c.Counterparties.MinReputation = &min }, reasons: []string{"low_reputation"}},
		{name: "low_reputation: below", change: func(c *Constraints, in *decision) {
			min, got := 400, 399
			c.Counterparties.MinReputation, in.reputation = &min, &got
		}, reasons: []string{"low_reputation"}},
		{name: "claims_unchecked overrides auto", change: func(c *Constraints, in *decision) { in.unchecked = true }, reasons: []string{"claims_unchecked"}},
		{name: "every reason, in order", steps: func(s *Steps) { s.Negotiate = "ask" }, change: all,
			reasons: []string{"step_ask", "mandate_expired", "category_outside", "kind_outside", "over_budget", "over_threshold", "duration_over", "new_counterparty", "low_reputation", "claims_unchecked"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cons Constraints
			json.Unmarshal([]byte(allowing), &cons)
			steps := auto
			if c.steps != nil {
				c.steps(&steps)
			}
			in := decision{step: "negotiate", terms: &tm, role: "offerer", counterparty: "orp:hub.example/p_other", now: now}
			if c.change != nil {
				c.change(&cons, &in)
			}
			reasons, err := decide(&Party{Steps: steps, Constraints: cons}, in)
			if c.code != "" {
				e, ok := err.(*Error)
				if !ok || e.Code != c.code {
					t.Fatalf("decide = %v %v, want %s", reasons, err, c.code)
				}
				return
			}
			if err != nil || !slices.Equal(reasons, c.reasons) {
				t.Fatalf("decide = %v %v, want %v", reasons, err, c.reasons)
			}
		})
	}
}

// TestTighter: an agent may tighten every rule and loosen none (H4).
func TestTighter(t *testing.T) {
	var cur Constraints
	json.Unmarshal([]byte(allowing), &cur)
	steps := unclaimedSteps
	for _, c := range []struct {
		name  string
		steps func(*Steps)
		next  func(*Constraints)
		field string
	}{
		{name: "unchanged"},
		{name: "stricter everywhere", steps: func(s *Steps) { s.Accept = "off" }, next: func(c *Constraints) {
			c.Budget.PerDeal.AmountMinor = 100
			c.Kinds = []string{"sponsored"}
			c.Categories.Deny = append(c.Categories.Deny, "finance")
			c.MaxDuration = "P30D"
			c.Expires = "2027-01-01T00:00:00Z"
		}},
		{name: "a step less strict", steps: func(s *Steps) { s.Accept = "auto" }, field: "steps.accept"},
		{name: "a higher cap", next: func(c *Constraints) { c.Budget.PerDeal.AmountMinor = 30001 }, field: "budget.per_deal"},
		{name: "a cap where none was", next: func(c *Constraints) {}, field: ""},
		{name: "a wider kind list", next: func(c *Constraints) { c.Kinds = append(c.Kinds, "swap") }, field: "kinds"},
		{name: "no kind list", next: func(c *Constraints) { c.Kinds = nil }, field: "kinds"},
		{name: "a shorter deny list", next: func(c *Constraints) { c.Categories.Deny = nil }, field: "categories.deny"},
		{name: "a later expiry", next: func(c *Constraints) { c.Expires = "2028-01-01T00:00:00Z" }, field: "expires"},
		{name: "new counterparties let through", next: func(c *Constraints) { c.Counterparties.New = "" }, field: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var next Constraints
			json.Unmarshal([]byte(allowing), &next)
			ns := steps
			if c.steps != nil {
				c.steps(&ns)
			}
			if c.next != nil {
				c.next(&next)
			}
			if got := tighter(steps, ns, cur, next); got != c.field {
				t.Fatalf("tighter = %q, want %q", got, c.field)
			}
		})
	}
	// Setting a budget where none was set loosens: unset allows nothing.
	if got := tighter(steps, steps, Constraints{}, Constraints{Budget: &Budget{PerDeal: &Money{AmountMinor: 1, Currency: "EUR"}}}); got != "budget.per_deal" {
		t.Fatalf("a new budget = %q, want budget.per_deal", got)
	}
}
