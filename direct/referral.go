package direct

import (
	"context"

	"frontdesk/referral"
	"frontdesk/reservation"
)

// UseReferrals makes the doors attribute new reservations to the partner
// who sent their guest. It is called once at wiring, before the first
// request; without it nothing is attributed.
func (s *Service) UseReferrals(l *referral.Ledger) {
	s.referrals = l
	l.Attach(s.desk, s.st)
}

// Attribution is the addition that records where a new reservation's
// guest came from, in the reservation's transaction: none without a
// mark or a ledger, or when the mark attributes nothing. It is drawn
// again for each reference the reservation tries. A door that makes a
// booking of a hold (USP) asks for it with the booking's reference,
// total and source.
func (s *Service) Attribution(ctx context.Context, m referral.Mark, n reservation.New) ([]reservation.Addition, error) {
	add, err := s.referrals.Addition(ctx, m, n.Reference, n.Total, n.Source, n.At)
	if err != nil || add.Build == nil {
		return nil, err
	}
	return []reservation.Addition{add}, nil
}
