package orp

import (
	"context"
	"regexp"
	"strings"
	"time"

	"frontdesk/store"
)

// The claims check (§6, §11.1). An offer's listing claims (the figures
// in its title and briefs: "30%", "€50") are what partners repeat to
// their audiences, so a host may compare them with the destination page
// before it lists the offer or lets anyone auto-place it. The host says
// in checks.claims which check it runs:
//
//   - ClaimsReal reads each link destination of the offer and lists the
//     offer once every figure of its claims appears on those pages; until
//     then, or if a figure is missing, the offer waits with
//     claims_unchecked;
//   - ClaimsStub has the check but always holds a standing offer for
//     review (claims_unchecked on its list step);
//   - ClaimsNone checks nothing.
//
// Below real, accepting a standing offer always escalates with
// claims_unchecked, whatever the acceptor's own auto (§11.1).

// Claims check modes.
const (
	ClaimsReal = "real"
	ClaimsStub = "stub"
	ClaimsNone = "none"
)

// Claims check results of one offer.
const (
	claimsChecked    = "checked"
	claimsNotChecked = "not_checked"
	claimsFailed     = "failed"
)

// claimsResult is an offer's claims check.
type claimsResult struct {
	State string     `json:"state,omitempty"` // "" is not_checked
	At    *time.Time `json:"at,omitempty"`
}

// view is the check as results and suggest items show it.
func (c claimsResult) view() map[string]any {
	v := map[string]any{"claims": claimsNotChecked}
	if c.State != "" {
		v["claims"] = c.State
	}
	if c.At != nil {
		v["at"] = stamp(*c.At)
	}
	return v
}

// claimsMode is the host's check, ClaimsNone unless configured.
func (h *Host) claimsMode() string {
	if h.opts.Claims == "" {
		return ClaimsNone
	}
	return h.opts.Claims
}

// figure is one checkable claim: a percentage or an amount of money.
var figure = regexp.MustCompile(`(?:[€$£]\s?\d[\d,.]*|\d[\d,.]*\s?(?:%|€|eur|usd|gbp))`)

// claimFigures are the figures an offer's listing claims.
func claimFigures(t *terms) []string {
	text := t.Title
	for _, ob := range t.Obligations {
		if ob.Content != nil {
			text += "\n" + ob.Content.Brief + "\n" + ob.Content.Copy
		}
	}
	var out []string
	for _, f := range figure.FindAllString(strings.ToLower(text), -1) {
		out = append(out, strings.TrimRight(strings.ReplaceAll(f, " ", ""), ".,"))
	}
	return out
}

// checkClaims reads the offer's destinations and reports whether every
// figure it claims appears on them. A destination that cannot be read
// fails the check.
func (h *Host) checkClaims(ctx context.Context, t *terms) bool {
	var pages []string
	for _, ob := range t.Obligations {
		if ob.Destination == "" {
			continue
		}
		page, err := h.fetcher.fetch(ctx, ob.Destination)
		if err != nil {
			return false
		}
		pages = append(pages, strings.ReplaceAll(page, " ", ""))
	}
	if len(pages) == 0 {
		return false
	}
	all := strings.Join(pages, "\n")
	for _, f := range claimFigures(t) {
		if !strings.Contains(all, f) {
			return false
		}
	}
	return true
}

// recheckOfferClaims runs the real check of a listed-or-waiting offer
// after it was stored, and lists it when the check was all that held it.
func (h *Host) recheckOfferClaims(ctx context.Context, id string) error {
	of, _, err := h.loadOffer(ctx, id)
	if err != nil {
		return err
	}
	ok := h.checkClaims(ctx, &of.t)
	return h.retry(ctx, func() error {
		of, r, err := h.loadOffer(ctx, id)
		if err != nil {
			return err
		}
		now := h.clock.Now()
		of.Claims = claimsResult{State: claimsFailed, At: &now}
		if ok {
			of.Claims.State = claimsChecked
		}
		var writes = []swapWrite{{r, of}}
		if ok && of.Status == statusWaiting && of.Waiting != nil && len(of.Waiting.Reasons) == 1 && of.Waiting.Reasons[0] == "claims_unchecked" {
			var e escalation
			er, err := h.get(ctx, kindEscalate, of.Waiting.Escalation, &e)
			if err != nil {
				return err
			}
			e.Done = true
			of.Status, of.Waiting, of.ListedAt = statusListed, nil, now
			writes = append(writes, swapWrite{er, e})
		}
		o := &op{h: h, now: now}
		for _, w := range writes {
			o.writes = append(o.writes, swap(w.r, w.v, now))
		}
		return o.commit(ctx, nil)
	})
}

type swapWrite struct {
	r store.Record
	v any
}
