package web

import (
	"net/http"

	"frontdesk/referral"
)

// The referral cookie keeps a partner's click id on the guest's browser,
// first-party and for the booking form only, so a guest who followed a
// partner's link, browsed away and came back within the attribution
// window still counts for the partner. It holds the click id and nothing
// else; the business turns it off with orp.referral_cookie = false.

const referralCookie = "frontdesk_ref"

// rememberVia returns the click id the form carries: via from the
// address, which it also keeps in the cookie, else the one the cookie
// kept. Off, it returns via alone and sets nothing.
func (s *Site) rememberVia(w http.ResponseWriter, r *http.Request, via string) string {
	if !s.Config.RemembersReferrals {
		return via
	}
	if via != "" {
		http.SetCookie(w, &http.Cookie{Name: referralCookie, Value: via, Path: "/book/", MaxAge: ReferralCookieDays * 24 * 3600,
			HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
		return via
	}
	return s.rememberedVia(r, "")
}

// rememberedVia is via, else the click id the referral cookie kept.
func (s *Site) rememberedVia(r *http.Request, via string) string {
	if via != "" || !s.Config.RemembersReferrals {
		return via
	}
	if c, err := r.Cookie(referralCookie); err == nil && referral.ValidClick(c.Value) {
		return c.Value
	}
	return ""
}
