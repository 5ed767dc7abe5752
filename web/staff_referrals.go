package web

import (
	"context"
	"net/http"

	"frontdesk/internal/money"
	"frontdesk/orp"
	"frontdesk/referral"
	"frontdesk/staff"
)

// StaffReferrals is what the staff screen shows owners of the bookings
// partners sent and the payouts the business owes them.
type StaffReferrals interface {
	Summary(ctx context.Context) (referral.Summary, error)
	// Settle records a payable payout as sent on its rail, with the
	// rail's reference (the owner's settle step).
	Settle(ctx context.Context, deal, payout, ref string) error
}

var _ StaffReferrals = (*referral.Ledger)(nil)

// orpMoney shows an ORP amount as the business's screens show money.
func orpMoney(m orp.Money) string { return money.Display(m.AmountMinor, m.Currency) }

// referralSummary is the owner's partner summary, or nil for a clerk, a
// business with no ORP host, or before any booking was attributed.
func (s *StaffScreen) referralSummary(ctx context.Context, u staff.User) (*referral.Summary, error) {
	if s.Referrals == nil || u.Role != staff.Owner {
		return nil, nil
	}
	sum, err := s.Referrals.Summary(ctx)
	if err != nil || len(sum.ByDoor) == 0 {
		return nil, err // nothing attributed yet: nothing to show
	}
	return &sum, nil
}

// settle takes an owner's settle of one payout: it was sent on the rail
// with the reference typed. A refusal is said in words; nothing changes.
func (s *StaffScreen) settle(w http.ResponseWriter, r *http.Request, v visit) {
	if s.Referrals == nil || v.User.Role != staff.Owner {
		http.Error(w, "Only an owner settles what partners are owed.", http.StatusForbidden)
		return
	}
	f := r.PostForm
	err := s.Referrals.Settle(r.Context(), f.Get("deal"), f.Get("payout"), f.Get("ref"))
	if e, ok := orp.Refusal(err); ok {
		http.Error(w, e.Message, http.StatusConflict)
		return
	}
	if err != nil {
		s.fail(w, r, "settle payout", err)
		return
	}
	http.Redirect(w, r, "/staff/#partners", http.StatusSeeOther)
}
