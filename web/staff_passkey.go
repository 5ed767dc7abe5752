package web

import (
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"

	"frontdesk/staff"
)

// Staff passkeys: the sign-in page offers a passkey sign-in beside the
// password form, and a signed-in member adds passkeys at
// /staff/passkey. Both run the same script as the ORP owner pages
// (navigator.credentials, then a plain form post), and work only under a
// domain name.

// relyingParty is the passkey relying party of the request's host: the
// public URL's origin when the request came to its host (a proxy may
// have ended TLS), else the request's own; ok is false on an address,
// where browsers make no passkeys.
func (s *StaffScreen) relyingParty(r *http.Request) (rp staff.RP, ok bool) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if u, err := url.Parse(s.Config.PublicURL); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		scheme = u.Scheme
	}
	host := r.Host
	id := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		id = h
	}
	id = strings.Trim(id, "[]")
	if net.ParseIP(id) != nil || id == "" {
		return staff.RP{}, false
	}
	return staff.RP{ID: id, Origin: scheme + "://" + host}, true
}

// passkeyOptions readies a passkey sign-in on the sign-in page, when the
// host allows one.
func (s *StaffScreen) passkeyOptions(r *http.Request, d *signInData) {
	rp, ok := s.relyingParty(r)
	if !ok {
		return
	}
	options, token, err := s.Logins.BeginPasskeySignIn(r.Context(), rp)
	if err != nil {
		s.Logger.WarnContext(r.Context(), "staff passkey options", "err", err)
		return
	}
	d.Options, d.Ceremony = template.JS(options), token
}

// passkeySignIn finishes a passkey sign-in and opens the session.
func (s *StaffScreen) passkeySignIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, maxStaffBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	d := signInData{Next: safeNext(r.PostForm.Get("next")), At: s.SplitLocation}
	rp, ok := s.relyingParty(r)
	if !ok {
		http.Error(w, "Passkeys work only when the staff screen is opened under its domain name.", http.StatusBadRequest)
		return
	}
	in, err := s.Logins.FinishPasskeySignIn(r.Context(), rp, r.PostForm.Get("ceremony"), []byte(r.PostForm.Get("credential")), deviceCookie.Value(r))
	if err != nil {
		status := http.StatusUnauthorized
		d.Problem = "The passkey did not sign you in. Try again, or sign in with your password."
		if staff.ErrorCode(err) == staff.CodeInternal {
			s.Logger.ErrorContext(r.Context(), "staff passkey sign-in", "err", err)
			status, d.Problem = http.StatusServiceUnavailable, "Sign-in is not possible right now."
		}
		s.passkeyOptions(r, &d)
		s.render(w, r, visit{}, status, "staff_signin.html", d)
		return
	}
	s.setSession(w, r, in)
	http.Redirect(w, r, d.Next, http.StatusSeeOther)
}

type passkeyData struct {
	Options  template.JS
	Ceremony string
	Count    int
	Problem  string
	Added    bool
}

// passkeyPage offers to add a passkey to the signed-in login.
func (s *StaffScreen) passkeyPage(w http.ResponseWriter, r *http.Request, v visit) {
	s.renderPasskeyPage(w, r, v, http.StatusOK, passkeyData{Added: r.URL.Query().Get("added") == "1"})
}

func (s *StaffScreen) renderPasskeyPage(w http.ResponseWriter, r *http.Request, v visit, status int, d passkeyData) {
	d.Count = len(v.User.Passkeys)
	if rp, ok := s.relyingParty(r); ok {
		options, token, err := s.Logins.BeginPasskeyRegistration(r.Context(), rp, v.User.Username)
		if err != nil {
			s.fail(w, r, "staff passkey registration", err)
			return
		}
		d.Options, d.Ceremony = template.JS(options), token
	}
	s.render(w, r, v, status, "staff_passkey.html", d)
}

// addPasskey finishes adding a passkey.
func (s *StaffScreen) addPasskey(w http.ResponseWriter, r *http.Request, v visit) {
	rp, ok := s.relyingParty(r)
	if !ok {
		http.Error(w, "Passkeys work only when the staff screen is opened under its domain name.", http.StatusBadRequest)
		return
	}
	err := s.Logins.FinishPasskeyRegistration(r.Context(), rp, v.User.Username, r.PostForm.Get("ceremony"), []byte(r.PostForm.Get("credential")))
	if err != nil {
		if staff.ErrorCode(err) == staff.CodeInternal {
			s.fail(w, r, "staff passkey registration", err)
			return
		}
		s.renderPasskeyPage(w, r, v, http.StatusUnprocessableEntity, passkeyData{Problem: "The passkey was not added. Try again."})
		return
	}
	http.Redirect(w, r, "/staff/passkey?added=1", http.StatusSeeOther)
}
