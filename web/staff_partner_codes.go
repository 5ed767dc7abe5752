package web

import (
	"context"
	"net/http"
	"net/url"

	"frontdesk/staff"
)

// The partner codes page: the business's running deals with partners
// and their codes, and a button per deal that issues another code, for
// a partner who hands codes out rather than links (T9). Guests type a
// code in the booking form's code field; platforms pass it as
// _meta.orp.code.

// PartnerCodes is what the codes page needs from the ORP host. The
// staff screen's PartnerOffers provides it when the host issues codes.
type PartnerCodes interface {
	Deals(ctx context.Context) ([]PartnerDeal, error)
	// IssueCode issues a code for deal; refused says, safe to show,
	// why the host issued none (a deal that ended, the limit reached).
	IssueCode(ctx context.Context, deal string) (code, refused string, err error)
}

// PartnerDeal is one running deal of the business with a partner: its
// party id, and the name it gave when it joined ("" for none).
type PartnerDeal struct {
	Deal, Partner, PartnerName, Title, State string
	Codes                                    []string
}

type partnerCodesData struct {
	Deals   []PartnerDeal
	Issued  string
	Problem string
}

func (s *StaffScreen) partnerCodes() (PartnerCodes, bool) {
	c, ok := s.Partners.(PartnerCodes)
	return c, ok
}

// codes lists the partner deals and their codes; owners only.
func (s *StaffScreen) codes(w http.ResponseWriter, r *http.Request, v visit) {
	s.renderCodes(w, r, v, http.StatusOK, partnerCodesData{Issued: r.URL.Query().Get("issued")})
}

func (s *StaffScreen) renderCodes(w http.ResponseWriter, r *http.Request, v visit, status int, d partnerCodesData) {
	pc, ok := s.partnerCodes()
	if v.User.Role != staff.Owner || !ok {
		http.Error(w, "Only owners issue partner codes.", http.StatusForbidden)
		return
	}
	deals, err := pc.Deals(r.Context())
	if err != nil {
		s.fail(w, r, "read partner deals", err)
		return
	}
	d.Deals = deals
	s.render(w, r, v, status, "staff_partner_codes.html", d)
}

// issueCode issues another code for the deal the form names.
func (s *StaffScreen) issueCode(w http.ResponseWriter, r *http.Request, v visit) {
	pc, ok := s.partnerCodes()
	if v.User.Role != staff.Owner || !ok {
		http.Error(w, "Only owners issue partner codes.", http.StatusForbidden)
		return
	}
	code, refused, err := pc.IssueCode(r.Context(), r.PostForm.Get("deal"))
	if err != nil {
		s.fail(w, r, "issue partner code", err)
		return
	}
	if refused != "" {
		s.renderCodes(w, r, v, http.StatusUnprocessableEntity, partnerCodesData{Problem: "No code was issued: " + refused})
		return
	}
	http.Redirect(w, r, "/staff/partners/codes?issued="+url.QueryEscape(code), http.StatusSeeOther)
}
