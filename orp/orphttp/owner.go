package orphttp

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
	"time"

	"frontdesk/orp"
)

// Now is the host's clock, for the dates of mails.
func (s *Server) Now() time.Time { return s.Host.Now() }

// ownerVisit is a request from a signed-in owner.
type ownerVisit struct {
	Session orp.OwnerSession
	token   string
}

// owner reads the session cookie; ok is false when nobody is signed in.
func (s *Server) owner(r *http.Request) (ownerVisit, bool, error) {
	token := ownerCookie.Value(r)
	if token == "" {
		return ownerVisit{}, false, nil
	}
	ses, err := s.Host.OwnerSession(r.Context(), token)
	if err != nil {
		if orp.AsError(err).Code == orp.Unauthorized {
			return ownerVisit{}, false, nil
		}
		return ownerVisit{}, false, err
	}
	return ownerVisit{Session: ses, token: token}, true, nil
}

// signedIn wraps an owner page: without a session a GET goes to the
// sign-in page and anything else is refused; a POST must come from this
// host's pages and carry the session's CSRF token.
func (s *Server) signedIn(h func(http.ResponseWriter, *http.Request, ownerVisit)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok, err := s.owner(r)
		if err != nil {
			s.logger().Error("read owner session", "err", err)
			http.Error(w, "Sessions cannot be read right now. Try again in a minute.", http.StatusServiceUnavailable)
			return
		}
		if !ok {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/owner/signin", http.StatusSeeOther)
				return
			}
			http.Error(w, "Your session has ended. Sign in again at /owner/signin.", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			if !s.readOwnerForm(w, r) {
				return
			}
			if !v.Session.CheckCSRF(r.PostForm.Get("csrf")) {
				http.Error(w, "This form is out of date or did not come from this host. Go back, reload the page and try again.", http.StatusForbidden)
				return
			}
		}
		h(w, r, v)
	}
}

// signInPage is what templates/owner_signin.html shows.
type signInPage struct {
	Options           template.JS // as claimPage.Options
	Ceremony, Problem string
}

func (s *Server) signInShow(w http.ResponseWriter, r *http.Request) {
	s.renderSignIn(w, r, http.StatusOK, "")
}

func (s *Server) renderSignIn(w http.ResponseWriter, r *http.Request, status int, problem string) {
	p := signInPage{Problem: problem}
	if passkeys(s.rp(r)) {
		opts, id, err := s.Host.BeginPasskeySignIn(r.Context(), s.rp(r))
		if err != nil {
			s.pageFail(w, r, "owner sign-in", err)
			return
		}
		p.Options, p.Ceremony = template.JS(opts), id
	}
	pages.Render(w, r, s.logger(), status, "owner_signin.html", s.Nav, p)
}

// signInSubmit finishes a passkey sign-in.
func (s *Server) signInSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.readOwnerForm(w, r) {
		return
	}
	token, err := s.Host.FinishPasskeySignIn(r.Context(), s.rp(r), r.PostForm.Get("ceremony"), []byte(r.PostForm.Get("credential")))
	if err != nil {
		s.ownerFail(w, r, "owner sign-in", err, func(msg string, status int) { s.renderSignIn(w, r, status, msg) })
		return
	}
	s.signedInAs(w, r, token)
}

func (s *Server) signInMailShow(w http.ResponseWriter, r *http.Request) {
	pages.Render(w, r, s.logger(), http.StatusOK, "owner_mail.html", s.Nav, mailPage{Action: r.URL.Path})
}

// signInMailSubmit mails a sign-in link when the address owns parties;
// the page reads the same either way.
func (s *Server) signInMailSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.readOwnerForm(w, r) {
		return
	}
	p := mailPage{Action: r.URL.Path, Email: r.PostForm.Get("email")}
	token, err := s.Host.StartEmailSignIn(r.Context(), p.Email)
	if err == nil && token != "" {
		err = s.mailLink(r, p.Email, "Sign in to your ORP parties", token)
	}
	if err != nil {
		s.ownerFail(w, r, "owner sign-in by email", err, func(msg string, status int) {
			p.Problem = msg
			pages.Render(w, r, s.logger(), status, "owner_mail.html", s.Nav, p)
		})
		return
	}
	p.Sent = true
	pages.Render(w, r, s.logger(), http.StatusOK, "owner_mail.html", s.Nav, p)
}

// ownerPage is what templates/owner.html shows.
type ownerPage struct {
	Visit   ownerVisit
	Parties []orp.OwnedParty
	Steps   []string
	// Token is a freshly rotated bearer token, shown this once, and the
	// party it belongs to.
	Token, TokenParty string
	Problem           string
}

// ownerSteps are the steps, in §11's order, for the human-approval boxes.
var ownerSteps = []string{"list", "negotiate", "accept", "execute", "amend", "settle", "share", "revoke"}

func (s *Server) ownerHome(w http.ResponseWriter, r *http.Request, v ownerVisit) {
	s.renderOwner(w, r, v, http.StatusOK, ownerPage{})
}

func (s *Server) renderOwner(w http.ResponseWriter, r *http.Request, v ownerVisit, status int, p ownerPage) {
	parties, err := s.Host.OwnerParties(r.Context(), v.Session.Owner)
	if err != nil {
		s.pageFail(w, r, "owner page", err)
		return
	}
	p.Visit, p.Parties, p.Steps = v, parties, ownerSteps
	pages.Render(w, r, s.logger(), status, "owner.html", s.Nav, p)
}

// rotate gives a party a new bearer token and revokes the old one (§18).
func (s *Server) rotate(w http.ResponseWriter, r *http.Request, v ownerVisit) {
	party := s.Host.PartyID(r.PathValue("opaque"))
	token, err := s.Host.RotateToken(r.Context(), v.Session.Owner, party)
	if err != nil {
		s.ownerFail(w, r, "rotate token", err, func(msg string, status int) { s.renderOwner(w, r, v, status, ownerPage{Problem: msg}) })
		return
	}
	s.renderOwner(w, r, v, http.StatusOK, ownerPage{Token: token, TokenParty: party})
}

// setConstraints saves a party's constraints document and its human
// approval steps: the owner's way to loosen them (H4).
func (s *Server) setConstraints(w http.ResponseWriter, r *http.Request, v ownerVisit) {
	party := s.Host.PartyID(r.PathValue("opaque"))
	fail := func(err error) {
		s.ownerFail(w, r, "set constraints", err, func(msg string, status int) { s.renderOwner(w, r, v, status, ownerPage{Problem: msg}) })
	}
	if _, err := s.Host.SetConstraints(r.Context(), v.Session.Owner, party, []byte(r.PostForm.Get("constraints"))); err != nil {
		fail(err)
		return
	}
	if err := s.Host.SetHumanSteps(r.Context(), v.Session.Owner, party, r.PostForm["human"]); err != nil {
		fail(err)
		return
	}
	http.Redirect(w, r, "/owner/", http.StatusSeeOther)
}

// signOut ends the session in the store, so a kept copy of the cookie
// opens nothing; with "everywhere" ticked, every session of the owner
// ends, in every browser.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request, v ownerVisit) {
	end := func() error { return s.Host.SignOutOwner(r.Context(), v.token) }
	if r.PostForm.Get("everywhere") != "" {
		end = func() error { return s.Host.SignOutOwnerEverywhere(r.Context(), v.Session.Owner) }
	}
	if err := end(); err != nil {
		s.pageFail(w, r, "owner sign-out", err)
		return
	}
	ownerCookie.Clear(w, r)
	http.Redirect(w, r, "/owner/signin", http.StatusSeeOther)
}

// approvalPage is what templates/approve.html shows: the exact terms
// behind the hash in words, the counterparty's text quoted, the JSON,
// and, for the signed-in owner of the waiting party, the form.
type approvalPage struct {
	orp.Escalation
	JSON     string
	Visit    *ownerVisit
	Done     bool
	Refused  bool // Done by the owner's refusal
	Problem  string
	Consent  string
	Assuring string
}

func (s *Server) approvalPage(w http.ResponseWriter, r *http.Request) {
	s.renderApproval(w, r, http.StatusOK, approvalPage{})
}

func (s *Server) renderApproval(w http.ResponseWriter, r *http.Request, status int, p approvalPage) {
	v, err := s.Host.ViewEscalation(r.Context(), r.PathValue("escalation"))
	if err != nil {
		s.pageFail(w, r, "approval page", err)
		return
	}
	var terms bytes.Buffer
	if len(v.Terms) > 0 {
		if err := json.Indent(&terms, v.Terms, "", "  "); err != nil {
			s.pageFail(w, r, "approval page", err)
			return
		}
	}
	p.Escalation, p.JSON = v, terms.String()
	if ov, ok, err := s.owner(r); err == nil && ok && v.Owner != "" && ov.Session.Owner == v.Owner {
		p.Visit = &ov
	}
	pages.Render(w, r, s.logger(), status, "approve.html", s.Nav, p)
}

// approve records an approval. Only POST approves; the page a GET shows
// records nothing (H1). With a bearer it is the waiting party's agent
// (refused on a step the owner approves in person); without one it is
// the signed-in owner submitting the page's form, which binds and makes
// a signed consent.
func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	if token := bearer(r); token != "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		b, err := s.Host.Approve(r.Context(), token, r.PathValue("escalation"))
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, b)
		return
	}
	s.signedIn(func(w http.ResponseWriter, r *http.Request, v ownerVisit) {
		consent, err := s.Host.ApproveAsOwner(r.Context(), v.Session, r.PathValue("escalation"))
		if err != nil {
			s.ownerFail(w, r, "owner approval", err, func(msg string, status int) { s.renderApproval(w, r, status, approvalPage{Problem: msg}) })
			return
		}
		s.renderApproval(w, r, http.StatusOK, approvalPage{Done: true, Consent: string(consent), Assuring: v.Session.Assurance})
	})(w, r)
}

// refuse records the signed-in owner refusing the escalation by the
// page's form; the step it held never takes effect and the host records
// the refusal as a signed consent. Only the owner refuses, so this has no
// bearer form.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, v ownerVisit) {
	consent, err := s.Host.RefuseAsOwner(r.Context(), v.Session, r.PathValue("escalation"))
	if err != nil {
		s.ownerFail(w, r, "owner refusal", err, func(msg string, status int) { s.renderApproval(w, r, status, approvalPage{Problem: msg}) })
		return
	}
	s.renderApproval(w, r, http.StatusOK, approvalPage{Done: true, Refused: true, Consent: string(consent), Assuring: v.Session.Assurance})
}
