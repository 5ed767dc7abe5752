package orphttp

import (
	"embed"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"frontdesk/internal/page"
	"frontdesk/orp"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = page.Must(templateFS, "templates/*.html", nil)

// claimPage is what templates/claim.html shows.
type claimPage struct {
	Party, Claim, Action string
	Claimed              bool
	OpenDeals            int
	OwnerKey             string
	Problem              string
}

// maxForm bounds the claim form: two short fields.
const maxForm = 4 << 10

// claimShow shows the claim page (§9.3). A GET records nothing: link
// previews and prefetchers open it too.
func (s *Server) claimShow(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	v, err := s.Host.ViewClaim(r.Context(), claim)
	if err != nil {
		s.pageFail(w, r, "claim page", err)
		return
	}
	s.renderClaim(w, r, http.StatusOK, claimPage{Party: v.Party, Claim: claim, Action: r.URL.Path, Claimed: v.Claimed, OpenDeals: v.OpenDeals})
}

// claimSubmit claims the party. The proof is the claim id, submitted in
// the form body from a page of this host: the form must carry the claim
// id of its URL and the confirmation, and a cross-site post is refused, so
// a link or a page elsewhere cannot claim by making a browser post.
func (s *Server) claimSubmit(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	v, err := s.Host.ViewClaim(r.Context(), claim)
	if err != nil {
		s.pageFail(w, r, "claim page", err)
		return
	}
	page := claimPage{Party: v.Party, Claim: claim, Action: r.URL.Path, Claimed: v.Claimed, OpenDeals: v.OpenDeals}
	if !sameOrigin(r) {
		page.Problem = "This form can only be sent from this host's own claim page."
		s.renderClaim(w, r, http.StatusForbidden, page)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		page.Problem = "The form could not be read."
		s.renderClaim(w, r, http.StatusBadRequest, page)
		return
	}
	if r.PostForm.Get("claim") != claim || r.PostForm.Get("confirm") != "yes" {
		page.Problem = "Tick the box to confirm, then send the form on this page."
		s.renderClaim(w, r, http.StatusBadRequest, page)
		return
	}
	key, err := s.Host.Claim(r.Context(), claim)
	if err != nil {
		var e *orp.Error
		if errors.As(err, &e) && e.Code == orp.StateConflict {
			page.Claimed = true
			s.renderClaim(w, r, http.StatusConflict, page)
			return
		}
		s.pageFail(w, r, "claim page", err)
		return
	}
	page.OwnerKey = key
	s.renderClaim(w, r, http.StatusOK, page)
}

// sameOrigin accepts a post whose Origin (or, without one, Sec-Fetch-Site)
// says it came from this host. A client that sends neither, such as curl,
// is not a browser that another site could drive.
func sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		return err == nil && strings.EqualFold(u.Host, r.Host)
	}
	site := r.Header.Get("Sec-Fetch-Site")
	return site == "" || site == "same-origin" || site == "none"
}

// pageFail answers a page (the claim or approval page, named by page for
// the log) that could not be shown: 404 for an id the host does not know,
// else a logged 500 that says nothing of the cause.
func (s *Server) pageFail(w http.ResponseWriter, r *http.Request, page string, err error) {
	var e *orp.Error
	if errors.As(err, &e) && e.Code == orp.NotFound {
		http.NotFound(w, r)
		return
	}
	s.logger().Error(page, "err", err)
	http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
}

// renderClaim renders the claim page. The claim id is in its URL, which
// the site-wide Referrer-Policy (same-origin) keeps from other sites. The
// page must not set no-referrer itself: under it a browser sends the
// page's own form with "Origin: null", which the host check refuses, and
// the owner could never claim.
func (s *Server) renderClaim(w http.ResponseWriter, r *http.Request, status int, p claimPage) {
	pages.Render(w, r, s.logger(), status, "claim.html", s.Nav, p)
}
