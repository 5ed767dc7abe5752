package orphttp

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"frontdesk/internal/page"
	"frontdesk/internal/session"
	"frontdesk/message"
	"frontdesk/orp"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = page.Must(templateFS, "templates/*.html", template.FuncMap{"has": slices.Contains[[]string]})

// Owner pages: claiming a party, signing in, the owner's parties. A party
// is claimed by a person only (§9.3): with a passkey made on the claim
// page, or with a one-time link mailed to an address the person gives on
// the page beside it. A form that merely carries the claim id claims
// nothing, so a script holding the claim URL cannot make itself owner.
//
// The owner's session is an HttpOnly, SameSite=Lax cookie, Secure over
// HTTPS (directly or through a trusted proxy), kept by internal/session
// as the staff screen's is and ended in the store at sign-out; every form carries the session's
// CSRF token and must come from this host's own pages, as on the staff
// screen.

// ownerCookie holds an owner's session token.
var ownerCookie = session.Cookie{Name: "frontdesk_owner", Path: "/"}

// maxForm bounds an owner form: a passkey answer is the largest field.
const maxForm = 16 << 10

// claimPage is what templates/claim.html shows.
type claimPage struct {
	Party, Claim, Action string
	Claimed              bool
	OpenDeals            int
	// Options are the passkey ceremony's options: JSON the host encoded,
	// with <, > and & escaped, so it is safe raw in its script element.
	Options template.JS

	Ceremony string
	Problem  string
}

// rp is the relying party of a passkey ceremony for this request: the
// host's public origin when the request came under its name, else the
// host the browser used (the hosts the server answers are configured).
func (s *Server) rp(r *http.Request) orp.RP {
	if u, err := url.Parse(s.Host.Origin()); err == nil && strings.EqualFold(u.Host, r.Host) {
		return orp.RP{ID: u.Hostname(), Origin: u.Scheme + "://" + u.Host}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if h, _, ok := strings.Cut(host, ":"); ok && !strings.Contains(h, "]") {
		return orp.RP{ID: h, Origin: scheme + "://" + host}
	}
	return orp.RP{ID: strings.Trim(host, "[]"), Origin: scheme + "://" + host}
}

// passkeys reports whether a browser can make a passkey for rp: only
// under a domain name, never an address.
func passkeys(rp orp.RP) bool { return net.ParseIP(rp.ID) == nil }

// claimShow shows the claim page with a passkey ceremony ready (§9.3). A
// GET records nothing: link previews and prefetchers open it too.
func (s *Server) claimShow(w http.ResponseWriter, r *http.Request) {
	s.renderClaimPage(w, r, http.StatusOK, "")
}

func (s *Server) renderClaimPage(w http.ResponseWriter, r *http.Request, status int, problem string) {
	claim := r.PathValue("claim")
	v, err := s.Host.ViewClaim(r.Context(), claim)
	if err != nil {
		s.pageFail(w, r, "claim page", err)
		return
	}
	p := claimPage{Party: v.Party, Claim: claim, Action: "/claim/" + claim, Claimed: v.Claimed, OpenDeals: v.OpenDeals, Problem: problem}
	if !v.Claimed && passkeys(s.rp(r)) {
		opts, id, err := s.Host.BeginPasskeyClaim(r.Context(), s.rp(r), claim)
		if err != nil {
			s.pageFail(w, r, "claim page", err)
			return
		}
		p.Options, p.Ceremony = template.JS(opts), id
	}
	pages.Render(w, r, s.logger(), status, "claim.html", s.Nav, p)
}

// claimSubmit finishes the passkey ceremony the claim page began, and
// with it claims the party for the new owner, who is then signed in.
func (s *Server) claimSubmit(w http.ResponseWriter, r *http.Request) {
	claim := r.PathValue("claim")
	if !s.readOwnerForm(w, r) {
		return
	}
	answer := r.PostForm.Get("credential")
	if answer == "" {
		s.renderClaimPage(w, r, http.StatusBadRequest, "Claiming a party needs a passkey made on this page, or a sign-in link by email. Nothing was claimed.")
		return
	}
	token, err := s.Host.FinishPasskeyClaim(r.Context(), s.rp(r), claim, r.PostForm.Get("ceremony"), []byte(answer))
	if err != nil {
		s.ownerFail(w, r, "claim", err, func(msg string, status int) { s.renderClaimPage(w, r, status, msg) })
		return
	}
	s.signedInAs(w, r, token)
}

// readOwnerForm reads a posted owner form from this host's own pages.
func (s *Server) readOwnerForm(w http.ResponseWriter, r *http.Request) bool {
	if !sameOrigin(r) {
		http.Error(w, "This form can only be sent from this host's own pages.", http.StatusForbidden)
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read.", http.StatusBadRequest)
		return false
	}
	return true
}

// ownerFail words a refusal on an owner page, or logs an internal fault.
func (s *Server) ownerFail(w http.ResponseWriter, r *http.Request, what string, err error, show func(msg string, status int)) {
	if e := orp.AsError(err); e.Code != orp.Internal {
		show(e.Message, orp.Status(e.Code))
		return
	}
	s.logger().Error(what, "err", err)
	http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
}

// signedInAs sets the session cookie and goes to the owner's page. The
// session the browser held before, if any, ends: a sign-in always
// leaves exactly one new session behind.
func (s *Server) signedInAs(w http.ResponseWriter, r *http.Request, token string) {
	if old := ownerCookie.Value(r); old != "" && old != token {
		if err := s.Host.SignOutOwner(r.Context(), old); err != nil {
			s.logger().Warn("end replaced owner session", "err", err)
		}
	}
	ownerCookie.Set(w, r, token, orp.OwnerSessionTTL())
	http.Redirect(w, r, "/owner/", http.StatusSeeOther)
}

// mailPage is what templates/owner_mail.html shows: the form asking for
// an address to mail a sign-in link to, or what happened.
type mailPage struct {
	Action, Problem, Email string
	Sent                   bool
}

// claimMailShow asks for the address the claim link goes to.
func (s *Server) claimMailShow(w http.ResponseWriter, r *http.Request) {
	if _, err := s.Host.ViewClaim(r.Context(), r.PathValue("claim")); err != nil {
		s.pageFail(w, r, "claim by email", err)
		return
	}
	pages.Render(w, r, s.logger(), http.StatusOK, "owner_mail.html", s.Nav, mailPage{Action: r.URL.Path})
}

// claimMailSubmit mails the one-time link that claims the party.
func (s *Server) claimMailSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.readOwnerForm(w, r) {
		return
	}
	p := mailPage{Action: r.URL.Path, Email: r.PostForm.Get("email")}
	token, err := s.Host.StartEmailClaim(r.Context(), r.PathValue("claim"), p.Email)
	if err == nil {
		err = s.mailLink(r, p.Email, "Claim your ORP party", token)
	}
	if err != nil {
		s.ownerFail(w, r, "claim by email", err, func(msg string, status int) {
			p.Problem = msg
			pages.Render(w, r, s.logger(), status, "owner_mail.html", s.Nav, p)
		})
		return
	}
	p.Sent = true
	pages.Render(w, r, s.logger(), http.StatusOK, "owner_mail.html", s.Nav, p)
}

// mailLink mails a one-time sign-in link. The address is the person's
// own, typed on this host's page; it is neither logged nor shown to any
// party.
func (s *Server) mailLink(r *http.Request, to, subject, token string) error {
	if s.Mail == nil {
		return &orp.Error{Code: orp.Internal, Message: "This host cannot send mail.", Err: errors.New("no mail sender configured")}
	}
	link := s.Host.Origin() + "/owner/link/" + token
	text := fmt.Sprintf("Someone, we hope you, asked %s for a sign-in link.\n\nOpen this link within 30 minutes and press the button on the page:\n%s\n\nIf it was not you, ignore this mail; nothing happens without the button.\n", s.Host.Discovery().Name, link)
	return s.Mail.Send(r.Context(), message.Email{ID: "orp-link-" + token[len(token)-12:], From: s.MailFrom, To: []string{to}, Subject: subject, Text: text, Date: s.Now()})
}

// linkShow shows what a mailed link does; opening it (a mail scanner
// may) records nothing.
func (s *Server) linkShow(w http.ResponseWriter, r *http.Request) {
	kind, err := s.Host.ViewMailLink(r.Context(), r.PathValue("token"))
	if err != nil {
		s.pageFail(w, r, "sign-in link", err)
		return
	}
	pages.Render(w, r, s.logger(), http.StatusOK, "owner_link.html", s.Nav, map[string]any{"Kind": kind, "Action": r.URL.Path})
}

// linkUse uses the link, once, and signs the owner in.
func (s *Server) linkUse(w http.ResponseWriter, r *http.Request) {
	if !s.readOwnerForm(w, r) {
		return
	}
	token, err := s.Host.UseMailLink(r.Context(), r.PathValue("token"))
	if err != nil {
		s.pageFail(w, r, "sign-in link", err)
		return
	}
	s.signedInAs(w, r, token)
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

// pageFail answers a page (named by page for the log) that could not be
// shown: 404 for an id the host does not know, else a logged 500 that
// says nothing of the cause.
func (s *Server) pageFail(w http.ResponseWriter, r *http.Request, page string, err error) {
	if orp.AsError(err).Code == orp.NotFound {
		http.NotFound(w, r)
		return
	}
	s.logger().Error(page, "err", err)
	http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
}
