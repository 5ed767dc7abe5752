package orp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Partner codes (T9): besides the code a deal's terms ask for at
// activation, the party that pays for a deal's tracked traffic (its
// offerer, such as the business behind a referral offer) may issue more
// codes for the deal, on its owner's screen or over ORP (POST
// {endpoint}/deals/<deal>/codes). Each names the same tracking entry as
// the deal's link, so a guest who types it, or a platform that passes
// it, is attributed as one who followed the link, while the entry lives.

// maxCodes bounds the codes issued for one deal.
const maxCodes = 20

// codeAlphabet leaves out letters and digits read alike (0/O, 1/I).
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// IssuedCode is a partner code issued for a deal.
type IssuedCode struct {
	Deal       string `json:"deal"`
	Obligation string `json:"obligation"`
	Code       string `json:"code"`
}

// IssueCode issues a new partner code for a running deal of the party
// holding token, which must be the deal's offerer (§10, T9).
func (h *Host) IssueCode(ctx context.Context, token, deal string) (IssuedCode, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return IssuedCode{}, err
	}
	return h.issueCode(ctx, p.ID, deal)
}

// IssuePartyCode is IssueCode for party, a party of this host, from Go
// code in the process: the business's staff screen for the business's
// party.
func (h *Host) IssuePartyCode(ctx context.Context, party, deal string) (IssuedCode, error) {
	return h.issueCode(ctx, party, deal)
}

func (h *Host) issueCode(ctx context.Context, party, deal string) (IssuedCode, error) {
	var out IssuedCode
	err := h.retry(ctx, func() error {
		d, r, err := h.loadDeal(ctx, deal)
		if err != nil {
			return err
		}
		if !d.hasParty(party) {
			return refuse(NotFound, "No such deal for this sender.")
		}
		if d.Offerer != party {
			return refuse(Forbidden, "Only the deal's offerer issues its codes.")
		}
		if !d.running() {
			return refuse(StateConflict, "The deal is in the wrong state.")
		}
		if len(d.Codes) >= maxCodes {
			return refuse(StateConflict, fmt.Sprintf("A deal has at most %d issued codes.", maxCodes))
		}
		var ref *trackRef
		for i := range d.Tracking {
			l, err := h.loadLink(ctx, d.Tracking[i].Token)
			if err != nil {
				return err
			}
			if l.live(h.clock.Now()) {
				ref = &d.Tracking[i]
				break
			}
		}
		if ref == nil {
			return refuse(StateConflict, "The deal has no live tracking entry to issue a code for.")
		}
		o := &op{h: h, now: h.clock.Now()}
		code := h.randomString(10, codeAlphabet)
		d.Codes = append(d.Codes, issuedRef{Code: code, Obligation: ref.Obligation, At: o.now})
		// A collision fails the Apply with ErrExists, and retry draws again.
		o.writes = append(o.writes, create(kindCode, code, codeRef{Token: ref.Token}, o.now))
		o.saveDeal(d, r, false)
		if err := o.commit(ctx, nil); err != nil {
			return err
		}
		out = IssuedCode{Deal: d.ID, Obligation: ref.Obligation, Code: code}
		return nil
	})
	return out, err
}

// issuedRef is a code issued for a deal after activation.
type issuedRef struct {
	Code       string    `json:"code"`
	Obligation string    `json:"obligation"`
	At         time.Time `json:"at"`
}

// PartnerDeal is one running deal of the business with a partner, as the
// staff screen lists it: of the partner, its id and the name it gave.
type PartnerDeal struct {
	Deal    string
	Partner string
	// PartnerName is the name the partner gave when it joined, or "".
	PartnerName string
	Title       string
	State       string
	Codes       []string // the terms' code, then the issued ones
}

// OfferedDeals lists the deals party offers (the business's, for its
// staff screen), by deal id, with their codes.
func (h *Host) OfferedDeals(ctx context.Context, party string) ([]PartnerDeal, error) {
	var out []PartnerDeal
	after := ""
	for {
		recs, err := h.store.List(ctx, kindDeal, "", after, 200)
		if err != nil {
			return nil, fmt.Errorf("list deals: %w", err)
		}
		for _, r := range recs {
			var d dealRecord
			if err := json.Unmarshal(r.Value, &d); err != nil {
				return nil, fmt.Errorf("decode deal %s: %w", r.Key, err)
			}
			if d.Offerer != party {
				continue
			}
			t, err := decodeTerms(d.Terms)
			if err != nil {
				return nil, fmt.Errorf("decode terms of deal %s: %w", d.ID, err)
			}
			pd := PartnerDeal{Deal: d.ID, Partner: d.Acceptor, Title: t.Title, State: d.State}
			if pd.PartnerName, err = h.PartyName(ctx, d.Acceptor); err != nil {
				return nil, err
			}
			for _, tr := range d.Tracking {
				if tr.Code != "" {
					pd.Codes = append(pd.Codes, tr.Code)
				}
			}
			for _, c := range d.Codes {
				pd.Codes = append(pd.Codes, c.Code)
			}
			out = append(out, pd)
		}
		if len(recs) < 200 {
			break
		}
		after = recs[len(recs)-1].Key
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Deal < out[j].Deal })
	return out, nil
}
