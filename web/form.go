package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"frontdesk/booking"
	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/referral"
)

// Forms is what the booking form needs from the booking core.
type Forms interface {
	Submit(ctx context.Context, f booking.FormRequest) (booking.FormResult, error)
}

// maxFormBody bounds a posted form: the fields and a signature PNG of at
// most 200 KB in base64.
const maxFormBody = 320 << 10

// formValues are the form's fields as the guest typed them, shown again
// when something needs fixing. The signature is not: the pad starts
// empty, and the page says to sign again.
type formValues struct {
	RoomType, Checkin, Checkout, Guests, Name, Email, Phone, Notes string
	// Via is a partner link's click id, kept in a hidden field through
	// every round of the form; Code is a partner code the guest typed.
	Via, Code string
}

// clickID is the partner click id a query or a posted form carries, when
// it has the shape of one; anything else is dropped.
func clickID(v url.Values) string {
	for _, name := range referral.ClickParams {
		if c := v.Get(name); referral.ValidClick(c) {
			return c
		}
	}
	return ""
}

// formPage is what book.html shows.
type formPage struct {
	Location     config.Location
	Units        []config.Unit
	Values       formValues
	Problems     booking.FormProblems
	Limited      string
	Sent         *booking.FormResult
	MaxGuests    int
	MinAge       int
	ConfirmHours int
}

func (s *Site) formPage(l config.Location) formPage {
	p := formPage{Location: l, MaxGuests: s.Config.Limits.MaxGuests, MinAge: s.Config.Business.MinAge, ConfirmHours: s.Config.Business.ConfirmHours}
	for _, u := range l.Units {
		if u.Kind != config.KindTimed {
			p.Units = append(p.Units, u)
		}
	}
	return p
}

func (s *Site) location(slug string) (config.Location, bool) {
	for _, l := range s.Config.Locations {
		if l.Slug == slug {
			return l, true
		}
	}
	return config.Location{}, false
}

// Book shows the location's booking form, prefilled from the query with
// only what checks out: a room type the location sells and real dates.
// Nothing else from the query reaches the page.
func (s *Site) Book(w http.ResponseWriter, r *http.Request) {
	l, ok := s.location(r.PathValue("slug"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	p := s.formPage(l)
	q := r.URL.Query()
	if u, ok := l.Unit(q.Get("roomtype")); ok && u.Kind != config.KindTimed {
		p.Values.RoomType = u.Type
	}
	p.Values.Via = clickID(q)
	in, inErr := civil.Parse(q.Get("checkin"))
	out, outErr := civil.Parse(q.Get("checkout"))
	if inErr == nil {
		p.Values.Checkin = in.String()
		if outErr == nil && in.Before(out) {
			p.Values.Checkout = out.String()
		}
	}
	s.render(w, r, "book.html", p)
}

// BookSubmit takes a posted form request. Problems come back on the page
// with the guest's input kept; a saved request shows its reference.
func (s *Site) BookSubmit(w http.ResponseWriter, r *http.Request) {
	l, ok := s.location(r.PathValue("slug"))
	if !ok || s.Forms == nil {
		http.NotFound(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read; it may be too large. Clear the signature, sign again and send it once more.", http.StatusBadRequest)
		return
	}
	p := s.formPage(l)
	f := r.PostForm
	p.Values = formValues{RoomType: f.Get("roomtype"), Checkin: f.Get("checkin"), Checkout: f.Get("checkout"), Guests: f.Get("guests"),
		Name: f.Get("name"), Email: f.Get("email"), Phone: f.Get("phone"), Notes: f.Get("notes"),
		Via: clickID(f), Code: f.Get("code")}
	res, err := s.Forms.Submit(r.Context(), booking.FormRequest{
		Location: l.Slug, RoomType: p.Values.RoomType, Checkin: p.Values.Checkin, Checkout: p.Values.Checkout,
		Name: p.Values.Name, Email: p.Values.Email, Phone: p.Values.Phone, Guests: p.Values.Guests, Notes: p.Values.Notes,
		Via: p.Values.Via, Code: p.Values.Code,
		Signature: f.Get("signature"), Trap: f.Get("homepage"), Address: s.clientAddr(r),
	})
	var problems booking.FormProblems
	var limited *booking.FormLimited
	switch {
	case err == nil:
		p.Sent = &res
		s.render(w, r, "book.html", p)
		return
	case errors.As(err, &problems):
		p.Problems = problems
		if _, bad := problems["signature"]; !bad && len(problems) > 0 {
			problems["signature"] = "Sign again: the box starts empty each time the form comes back."
		}
		s.renderStatus(w, r, http.StatusUnprocessableEntity, "book.html", p)
	case errors.As(err, &limited):
		p.Limited = "Too many requests were sent from here or for this email address. Try again after " +
			limited.Until.In(l.Zone()).Format("3:04 PM MST on Jan 2") + ", or call " + l.Phone + "."
		s.renderStatus(w, r, http.StatusTooManyRequests, "book.html", p)
	default:
		s.Logger.ErrorContext(r.Context(), "form request failed", "location", l.Slug, "err", err)
		p.Limited = "The request could not be saved just now. Try again in a few minutes, or call " + l.Phone + "."
		s.renderStatus(w, r, http.StatusServiceUnavailable, "book.html", p)
	}
}

// clientAddr is the address form limits count by: the connection's, or
// what the configured proxy says when the site has a ClientAddr rule.
func (s *Site) clientAddr(r *http.Request) string {
	if s.ClientAddr != nil {
		return s.ClientAddr(r)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return strings.TrimSpace(r.RemoteAddr)
	}
	return host
}
