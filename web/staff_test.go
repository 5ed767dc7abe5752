package web

import "testing"

// remoteCore is a split hub's core: its reservations are the locations'.
type remoteCore struct{ StaffCore }

func (remoteCore) Remote() bool { return true }

// TestSplitHubScreenShowsNoLedgerOfItsOwn: a split hub's staff screen
// shows no payments, partner bookings or offers from the hub's own
// store, which holds none, and one process's keeps them.
func TestSplitHubScreenShowsNoLedgerOfItsOwn(t *testing.T) {
	for _, tt := range []struct {
		name string
		core StaffCore
		kept bool
	}{{"a split hub", remoteCore{}, false}, {"one process", struct{ StaffCore }{}, true}} {
		t.Run(tt.name, func(t *testing.T) {
			s := &StaffScreen{Core: tt.core, Payments: struct{ StaffPayments }{}, Referrals: struct{ StaffReferrals }{}, Partners: struct{ PartnerOffers }{}}
			s.Routes()
			if kept := s.Payments != nil && s.Referrals != nil && s.Partners != nil; kept != tt.kept {
				t.Fatalf("payments %v, referrals %v, partners %v; want kept %v", s.Payments, s.Referrals, s.Partners, tt.kept)
			}
		})
	}
}
