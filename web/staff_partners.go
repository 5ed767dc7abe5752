package web

import (
	"context"
	"net/http"
	"strconv"

	"frontdesk/staff"
)

// The partner offers page: the business's own standing offers on its ORP
// host, which owners list from here, such as a referral offer to the
// booking form that pays a share of each booking a partner's link brings.

// PartnerOffers is what the staff screen needs from the ORP host.
type PartnerOffers interface {
	Offers(ctx context.Context) ([]PartnerOffer, error)
	// ListReferral lists a referral offer paying bps basis points of each
	// booking it brings; listing the same terms again lists nothing new.
	ListReferral(ctx context.Context, bps int) error
}

// PartnerOffer is one standing offer of the business.
type PartnerOffer struct {
	ID, Title, Status string
}

type partnersData struct {
	Offers  []PartnerOffer
	Percent string
	Problem string
	Saved   bool
}

// partners shows the business's standing offers; owners only.
func (s *StaffScreen) partners(w http.ResponseWriter, r *http.Request, v visit) {
	s.renderPartners(w, r, v, http.StatusOK, partnersData{Saved: r.URL.Query().Get("saved") != ""})
}

func (s *StaffScreen) renderPartners(w http.ResponseWriter, r *http.Request, v visit, status int, d partnersData) {
	if v.User.Role != staff.Owner || s.Partners == nil {
		http.Error(w, "Only owners list partner offers.", http.StatusForbidden)
		return
	}
	offers, err := s.Partners.Offers(r.Context())
	if err != nil {
		s.fail(w, r, "read partner offers", err)
		return
	}
	d.Offers = offers
	s.render(w, r, v, status, "staff_partners.html", d)
}

// listReferral lists a referral offer at the percentage typed.
func (s *StaffScreen) listReferral(w http.ResponseWriter, r *http.Request, v visit) {
	if v.User.Role != staff.Owner || s.Partners == nil {
		http.Error(w, "Only owners list partner offers.", http.StatusForbidden)
		return
	}
	percent := r.PostForm.Get("percent")
	f, err := strconv.ParseFloat(percent, 64)
	if err != nil || f <= 0 || f > 100 {
		s.renderPartners(w, r, v, http.StatusUnprocessableEntity, partnersData{Percent: percent, Problem: "Give a share from 0.01 to 100 percent. Nothing was listed."})
		return
	}
	if err := s.Partners.ListReferral(r.Context(), int(f*100+0.5)); err != nil {
		s.fail(w, r, "list referral offer", err)
		return
	}
	http.Redirect(w, r, "/staff/partners?saved=1", http.StatusSeeOther)
}
