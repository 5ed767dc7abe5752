package session

import (
	"net/http"
	"time"

	"frontdesk/internal/clientip"
)

// Cookie is a cookie a door keeps a token in: a session's, or another
// credential of the browser (the staff screen's device cookie). Every
// such cookie is set here, so all of them carry the same protections.
type Cookie struct {
	Name string
	Path string // the pages it is sent to; "/" when empty
	// SameSite defaults to Lax: a link from elsewhere arrives signed in,
	// a form posted from elsewhere does not.
	SameSite http.SameSite
}

// Value returns the cookie's value in r, or "" without one.
func (c Cookie) Value(r *http.Request) string {
	k, err := r.Cookie(c.Name)
	if err != nil {
		return ""
	}
	return k.Value
}

// Set sets the cookie to value for maxAge. Max-Age rather than Expires:
// a lifetime, not an instant on the server's clock, so a browser whose
// clock disagrees keeps the cookie. It is HttpOnly, and Secure whenever
// the request came over HTTPS, directly or through a trusted proxy.
func (c Cookie) Set(w http.ResponseWriter, r *http.Request, value string, maxAge time.Duration) {
	http.SetCookie(w, c.cookie(r, value, int(maxAge/time.Second)))
}

// Clear tells the browser to drop the cookie.
func (c Cookie) Clear(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, c.cookie(r, "", -1))
}

func (c Cookie) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	path, same := c.Path, c.SameSite
	if path == "" {
		path = "/"
	}
	if same == 0 || same == http.SameSiteDefaultMode || same == http.SameSiteNoneMode {
		same = http.SameSiteLaxMode
	}
	return &http.Cookie{Name: c.Name, Value: value, Path: path, MaxAge: maxAge, HttpOnly: true, SameSite: same, Secure: clientip.HTTPS(r)}
}
