package web

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"frontdesk/channel"
	"frontdesk/internal/page"
	"frontdesk/staff"
)

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

// TestSplitHubKeepsNoChannels: a split hub imports no listing site's
// calendar (each location does, into its own inventory), so its screen
// links no channels page and answers one with where they are kept.
func TestSplitHubKeepsNoChannels(t *testing.T) {
	owner := visit{User: staff.User{Username: "gina", Role: staff.Owner}}
	for _, tt := range []struct {
		name string
		core StaffCore
		hub  bool
	}{{"a split hub", remoteCore{}, true}, {"one process", struct{ StaffCore }{}, false}} {
		t.Run(tt.name, func(t *testing.T) {
			s := &StaffScreen{Core: tt.core, Channels: &channel.Service{}}
			linked := slices.ContainsFunc(s.nav(owner.User), func(l page.Link) bool { return l.Href == "/staff/channels" })
			if linked == tt.hub {
				t.Errorf("channels linked = %v at %s", linked, tt.name)
			}
			if !tt.hub {
				return
			}
			for _, serve := range []func(http.ResponseWriter){
				func(w http.ResponseWriter) { s.channels(w, httptest.NewRequest("GET", "/staff/channels", nil), owner) },
				func(w http.ResponseWriter) {
					s.channelAction(w, httptest.NewRequest("POST", "/staff/channels", nil), owner)
				},
			} {
				w := httptest.NewRecorder()
				serve(w)
				if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "kept at each property") {
					t.Errorf("channels at a split hub = %d %q; want 404 saying where they are kept", w.Code, w.Body.String())
				}
			}
		})
	}
}
