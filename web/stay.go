package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"frontdesk/internal/fault"
	"frontdesk/reservation"
)

// The guest's own page, /stay/{token}: the booking form redirects there
// once a request is saved, and the guest's mails link to it. The token
// is the only key; an unknown one answers 404 like a missing page. A
// cancellation from it takes the notice period and emailed code of the
// chat tools' cancel_booking, at any hour; a request staff have not
// answered is withdrawn without a code.

// stayPage is what stay.html shows.
type stayPage struct {
	Stay    reservation.GuestStay
	Token   string
	State   string // the state in the guest's words
	Next    string // what happens next
	Sent    string // the form's result, after its redirect
	Done    string // the cancellation's result, after its redirect
	Problem string
	// CancelID is set while a cancellation waits for its emailed code.
	CancelID string
	Expires  string
	// CancelHours is the notice a cancellation here needs.
	CancelHours int
	// Reference is the reservation's reference in groups of four.
	Reference string
	// Arrival, Departure and Zone are the stay's dates as the business's
	// locale writes them, and the property's time zone.
	Arrival, Departure, Zone string
	Price                    *priceLines
	Title                    string // the room type as the business names it
	// Pay is what a stay that takes money when booking owes now and
	// later; PayResult words the provider's return.
	Pay       *payLines
	PayResult string
}

// stateWords says a reservation's state, and what comes next, to its
// guest.
func stateWords(g reservation.GuestStay, confirmHours int) (state, next string) {
	phone := g.Location.Phone
	switch g.Reservation.State {
	case reservation.Requested:
		return "Requested: waiting for our staff", "No room is held yet. Staff read every request and answer by email within " +
			strconv.Itoa(confirmHours) + " hours: they accept it, which holds the room, or say why they cannot. Nothing is charged now."
	case reservation.Reserved:
		return "Reserved: the room is held", "Staff confirm the reservation in writing. Bring photo ID to check-in."
	case reservation.Confirmed:
		return "Confirmed", "Your room is held. Check-in is from " + g.CheckinAt + "; bring photo ID. The total is paid at the property."
	case reservation.Declined:
		return "Declined", "Staff could not take this request. Call " + phone + " and we will look for another stay with you."
	case reservation.Cancelled:
		return "Cancelled", "This reservation is cancelled and its room released. Nothing is owed."
	case reservation.Completed:
		return "Completed", "Thank you for staying with us."
	case reservation.NoShow:
		return "No-show", "The stay was not taken up. Questions: call " + phone + "."
	case reservation.Moved:
		return "Moved", "This stay was moved to another reservation; staff sent its details by email."
	}
	return string(g.Reservation.State), "Questions: call " + phone + "."
}

var sentResults = map[string]string{
	"mailed": "Your request was sent. We emailed you a copy with a link to this page.",
	"saved":  "Your request was sent. Our copy to your email address could not be sent yet: keep this page's address to come back to it.",
	"again":  "This request was sent already: it was not sent a second time.",
}

var cancelResults = map[string]string{
	"cancelled": "The reservation is cancelled and the room released. We emailed you a receipt.",
	"withdrawn": "Your request is withdrawn: staff will not act on it, nothing was held and nothing is owed.",
}

// StayWithdraw withdraws a request staff have not answered, and
// redirects to the page, which says so.
func (s *Site) StayWithdraw(w http.ResponseWriter, r *http.Request) {
	p, ok := s.stayPage(w, r)
	if !ok {
		return
	}
	_, err := s.Stays.GuestWithdraw(r.Context(), p.Token)
	if code, _ := s.Stays.RefusalCode(err); code == "answered" {
		if fresh, err := s.Stays.GuestStay(r.Context(), p.Token); err == nil {
			p.Stay = fresh
			p.State, p.Next = stateWords(fresh, s.Config.Business.ConfirmHours)
		}
		p.Problem = "Staff answered this request meanwhile, so it can no longer be withdrawn here; its state is shown below. Questions: call " + p.Stay.Location.Phone + "."
		s.renderStatus(w, r, http.StatusUnprocessableEntity, "stay.html", p)
		return
	}
	if errors.Is(err, reservation.ErrNoReservation) {
		s.NotFound(w, r)
		return
	}
	if err != nil {
		s.Logger.ErrorContext(r.Context(), "guest withdrawal", "err", err)
		p.Problem = "The request could not be withdrawn just now. Try again in a few minutes, or call " + p.Stay.Location.Phone + "."
		s.renderStatus(w, r, http.StatusServiceUnavailable, "stay.html", p)
		return
	}
	http.Redirect(w, r, "/stay/"+url.PathEscape(p.Token)+"?done=withdrawn", http.StatusSeeOther)
}

// Stay shows the guest's own page.
func (s *Site) Stay(w http.ResponseWriter, r *http.Request) {
	p, ok := s.stayPage(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	p.Sent = sentResults[q.Get("sent")]
	p.Done = cancelResults[q.Get("done")]
	p.PayResult = payResults[q.Get("paid")]
	if id := q.Get("cancel"); validCancelID(id, p.Stay.Location.Prefix) && p.Stay.Cancellable {
		p.CancelID = id
		if until, err := time.Parse(time.RFC3339, q.Get("until")); err == nil {
			p.Expires = until.In(p.Stay.Location.Zone()).Format("3:04 PM MST")
		}
	}
	s.render(w, r, "stay.html", p)
}

// validCancelID reports whether id has the shape of a cancellation id of
// the location with prefix: the prefix, "_c_" and 48 hex characters.
func validCancelID(id, prefix string) bool {
	hex, ok := strings.CutPrefix(id, prefix+"_c_")
	return ok && len(hex) == 48 && strings.Trim(hex, "0123456789abcdef") == ""
}

// StayCalendar is the stay as an .ics file, for the guest's calendar.
func (s *Site) StayCalendar(w http.ResponseWriter, r *http.Request) {
	p, ok := s.stayPage(w, r)
	if !ok {
		return
	}
	if p.Stay.Checkin.IsZero() {
		s.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+p.Stay.Reservation.Reference+`.ics"`)
	w.Write(stayICS(p.Stay, s.origin(r)+"/stay/"+url.PathEscape(p.Token), s.Config.Business.Name))
}

// origin is the site's public origin: the configured public URL, or
// the address this request came to.
func (s *Site) origin(r *http.Request) string {
	if u := strings.TrimSuffix(s.Config.PublicURL, "/"); u != "" {
		return u
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Site) stayPage(w http.ResponseWriter, r *http.Request) (stayPage, bool) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Robots-Tag", "noindex")
	token := r.PathValue("token")
	if s.Stays == nil {
		http.NotFound(w, r)
		return stayPage{}, false
	}
	g, err := s.Stays.GuestStay(r.Context(), token)
	if errors.Is(err, reservation.ErrNoReservation) {
		s.NotFound(w, r)
		return stayPage{}, false
	}
	if err != nil {
		s.Logger.ErrorContext(r.Context(), "read guest page", "err", err)
		http.Error(w, "This page could not be shown just now. Try again in a minute.", http.StatusServiceUnavailable)
		return stayPage{}, false
	}
	p := stayPage{Stay: g, Token: token, CancelHours: s.Config.Limits.CancelBeforeHours, Reference: groupReference(g.Reservation.Reference),
		Arrival: s.longDate(g.Checkin), Departure: s.longDate(g.Checkout), Zone: zoneName(g.Location, g.Checkin)}
	p.State, p.Next = stateWords(g, s.Config.Business.ConfirmHours)
	if u, ok := g.Location.Unit(g.Reservation.Unit); ok {
		p.Title = roomTitle(u)
		p.Price = s.stayPrice(g, u)
		p.Pay = s.payLines(r.Context(), g, u)
		if p.Pay != nil && p.Price != nil {
			// The payment section shows what is due, with what was paid.
			p.Price.Due = nil
		}
	}
	if p.Pay != nil {
		// The stay takes money when booking: only what the guest pays on
		// the provider's page is charged.
		p.Next = strings.Replace(p.Next, " Nothing is charged now.", " Nothing is charged unless you pay below.", 1)
		if c := p.Pay.Cancel; c != nil && c.Done {
			p.Next = c.cancelledNext()
		}
	}
	return p, true
}

// StayCancel takes either step of a cancellation from the guest's page:
// without a code it emails one; with the code it cancels and redirects.
func (s *Site) StayCancel(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	p, ok := s.stayPage(w, r)
	if !ok {
		return
	}
	caller := reservation.Caller{Host: r.Host}
	cancelID, code := r.PostForm.Get("cancel_id"), strings.TrimSpace(r.PostForm.Get("code"))
	if cancelID == "" {
		res, err := s.Stays.GuestCancel(r.Context(), caller, p.Token)
		if err != nil {
			s.cancelRefused(w, r, p, err)
			return
		}
		// Post, Redirect, Get: a refresh of the page that asks for the
		// code shows it again instead of mailing another code.
		v := url.Values{"cancel": {res.CancelID}, "until": {res.CodeExpiresAt}}
		http.Redirect(w, r, "/stay/"+url.PathEscape(p.Token)+"?"+v.Encode(), http.StatusSeeOther)
		return
	}
	if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
		p.CancelID, p.Problem = cancelID, "The code is the six digits in the email we just sent, such as 123456."
		s.renderStatus(w, r, http.StatusUnprocessableEntity, "stay.html", p)
		return
	}
	if _, err := s.Stays.GuestCancelFinish(r.Context(), caller, p.Token, cancelID, code); err != nil {
		if code, _ := s.Stays.RefusalCode(err); code == "wrong_code" {
			p.CancelID = cancelID
		}
		s.cancelRefused(w, r, p, err)
		return
	}
	http.Redirect(w, r, "/stay/"+url.PathEscape(p.Token)+"?done=cancelled", http.StatusSeeOther)
}

// cancelWords are the guest page's sentences for the cancellation
// refusals of the booking core.
var cancelWords = map[fault.Code]string{
	"wrong_code":         "That code is not the one we emailed. Check the latest email from us and type its six digits again.",
	"cancel_unknown":     "This cancellation code has expired or was used. Ask for a new code below.",
	"already_cancelled":  "This reservation is no longer open, so there is nothing to cancel.",
	"ended":              "This stay has ended, so it cannot be cancelled.",
	"moved":              "This stay was moved to another reservation.",
	"cancel_by_phone":    "Cancellations here close before check-in. Call the property to change or cancel this stay.",
	"cancel_not_in_chat": "The cancellation cannot be taken here just now. Call the property during office hours.",
	"cancel_maybe":       "We could not tell whether the cancellation went through. Reload this page to see the reservation's state.",
}

func (s *Site) cancelRefused(w http.ResponseWriter, r *http.Request, p stayPage, err error) {
	if code, ok := s.Stays.RefusalCode(err); ok {
		p.Problem = cancelWords[code]
		if p.Problem == "" {
			p.Problem = "The cancellation cannot be taken here just now. Call " + p.Stay.Location.Phone + "."
		}
		p.Problem += " Questions: call " + p.Stay.Location.Phone + "."
		s.renderStatus(w, r, http.StatusUnprocessableEntity, "stay.html", p)
		return
	}
	if errors.Is(err, reservation.ErrNoReservation) {
		s.NotFound(w, r)
		return
	}
	s.Logger.ErrorContext(r.Context(), "guest cancellation", "err", err)
	p.Problem = "The cancellation could not be taken just now. Try again in a few minutes, or call " + p.Stay.Location.Phone + "."
	s.renderStatus(w, r, http.StatusServiceUnavailable, "stay.html", p)
}
