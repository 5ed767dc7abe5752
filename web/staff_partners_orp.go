package web

import (
	"context"

	"frontdesk/orp"
)

// ORPPartners gives the staff screen the business's standing offers and
// partner codes from the ORP host. Party names the business's own party
// in the host's deals; List lists its referral offer paying bps basis
// points.
type ORPPartners struct {
	Host  *orp.Host
	Party func(ctx context.Context) (string, error)
	List  func(ctx context.Context, bps int) error
}

var (
	_ PartnerOffers = ORPPartners{}
	_ PartnerCodes  = ORPPartners{}
)

func (p ORPPartners) Offers(ctx context.Context) ([]PartnerOffer, error) {
	listed, err := p.Host.BusinessOffers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PartnerOffer, 0, len(listed))
	for _, l := range listed {
		out = append(out, PartnerOffer{ID: l.ID, Title: l.Title, Status: l.Status})
	}
	return out, nil
}

func (p ORPPartners) ListReferral(ctx context.Context, bps int) error { return p.List(ctx, bps) }

func (p ORPPartners) Deals(ctx context.Context) ([]PartnerDeal, error) {
	party, err := p.Party(ctx)
	if err != nil {
		return nil, err
	}
	deals, err := p.Host.OfferedDeals(ctx, party)
	if err != nil {
		return nil, err
	}
	out := make([]PartnerDeal, 0, len(deals))
	for _, d := range deals {
		out = append(out, PartnerDeal{Deal: d.Deal, Partner: d.Partner, PartnerName: d.PartnerName, Title: d.Title, State: d.State, Codes: d.Codes})
	}
	return out, nil
}

func (p ORPPartners) IssueCode(ctx context.Context, deal string) (string, string, error) {
	party, err := p.Party(ctx)
	if err != nil {
		return "", "", err
	}
	c, err := p.Host.IssuePartyCode(ctx, party, deal)
	if e, ok := orp.Refusal(err); ok && e.Code != orp.Internal {
		return "", e.Message, nil // a refusal, safe to show the owner
	}
	if err != nil {
		return "", "", err
	}
	return c.Code, "", nil
}
