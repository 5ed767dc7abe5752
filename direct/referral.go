package direct

import (
	"frontdesk/referral"
)

// UseReferrals makes the doors attribute new reservations to the partner
// who sent their guest. It is called once at wiring, before the first
// request; without it nothing is attributed.
func (s *Service) UseReferrals(l *referral.Ledger) {
	s.core.UseAttribution(l)
	l.Attach(s.desk, s.st)
}
