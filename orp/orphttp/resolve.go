package orphttp

import (
	"net/http"

	"frontdesk/orp"
)

// resolvePage is what templates/resolve.html shows.
type resolvePage struct {
	Deal, Dispute string
	View          *orp.DisputeView
	Done          string
	Problem       string
}

// resolveShow shows the resolver's form. A GET records nothing.
func (s *Server) resolveShow(w http.ResponseWriter, r *http.Request) {
	s.renderResolve(w, r, http.StatusOK, resolvePage{Deal: r.URL.Query().Get("deal"), Dispute: r.URL.Query().Get("dispute")})
}

// resolveSubmit is the resolver named in the host's terms deciding a
// dispute (§15.2): with the resolver token, "view" shows the statements
// and evidence, and "resolve" records upheld, rejected or split. It is
// refused from another site's page.
func (s *Server) resolveSubmit(w http.ResponseWriter, r *http.Request) {
	p := resolvePage{}
	if !sameOrigin(r) {
		p.Problem = "This form can only be sent from this host's own page."
		s.renderResolve(w, r, http.StatusForbidden, p)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		p.Problem = "The form could not be read."
		s.renderResolve(w, r, http.StatusBadRequest, p)
		return
	}
	f := r.PostForm
	p.Deal, p.Dispute = f.Get("deal"), f.Get("dispute")
	token := f.Get("token")
	if f.Get("resolution") != "" {
		if err := s.Host.ResolveDispute(r.Context(), token, p.Deal, p.Dispute, f.Get("resolution")); err != nil {
			s.resolveFail(w, r, p, err)
			return
		}
		p.Done = f.Get("resolution")
	}
	v, err := s.Host.ViewDispute(r.Context(), token, p.Deal, p.Dispute)
	if err != nil {
		s.resolveFail(w, r, p, err)
		return
	}
	p.View = &v
	s.renderResolve(w, r, http.StatusOK, p)
}

func (s *Server) resolveFail(w http.ResponseWriter, r *http.Request, p resolvePage, err error) {
	e := orp.AsError(err)
	if e.Code == orp.Internal {
		s.pageFail(w, r, "resolve page", err)
		return
	}
	p.Problem = e.Message
	s.renderResolve(w, r, orp.Status(e.Code), p)
}

func (s *Server) renderResolve(w http.ResponseWriter, r *http.Request, status int, p resolvePage) {
	pages.Render(w, r, s.logger(), status, "resolve.html", s.Nav, p)
}
