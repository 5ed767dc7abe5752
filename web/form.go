package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/clientip"
	"frontdesk/internal/fault"
	"frontdesk/internal/money"
	"frontdesk/internal/signature"
	"frontdesk/pricing"
	"frontdesk/referral"
	"frontdesk/reservation"
)

// Forms is what the booking form, the search and the availability
// calendar need from the reservation core (reservation.Core).
type Forms interface {
	NewGuestToken(l business.Location) (string, error)
	SearchRooms(ctx context.Context, q reservation.SearchRequest) (reservation.RoomSearch, error)
	Availability(ctx context.Context, slug string, days int) (reservation.Availability, error)
	FormQuote(ctx context.Context, f reservation.FormRequest) (pricing.Quote, error)
	Submit(ctx context.Context, f reservation.FormRequest) (reservation.FormResult, error)
}

// GuestPages is what the guest's own page and the policy page need from
// the door that keeps a reservation's cancellation rules and settings.
type GuestPages interface {
	Settings(ctx context.Context) (reservation.Settings, error)
	GuestStay(ctx context.Context, token string) (reservation.GuestStay, error)
	GuestCancel(ctx context.Context, c reservation.Caller, token string) (*reservation.CancelResult, error)
	GuestCancelFinish(ctx context.Context, c reservation.Caller, token, cancelID, code string) (*reservation.CancelResult, error)
	GuestWithdraw(ctx context.Context, token string) (reservation.Reservation, error)
	// RefusalCode is the code of the refusal in err's chain, for the
	// guest's page to word it.
	RefusalCode(err error) (fault.Code, bool)
}

// maxFormBody bounds a posted form: the fields and a signature PNG of at
// most 200 KB in base64.
const maxFormBody = 320 << 10

// formValues are the form's fields as the guest typed them, shown again
// when something needs fixing. The signature comes back too once it
// passed its check, and the pad draws it again.
type formValues struct {
	RoomType, Checkin, Checkout, Guests, Name, Email, Phone, Notes, Signature string
	// Via is a partner link's click id, kept in a hidden field through
	// every round of the form; Code is a partner code the guest typed.
	Via, Code string
}

// Stay is the stay's fields by name: the booking form carries them
// again, hidden, beside the guest's details, as the fields the guest
// sees belong to the price step's own form.
func (v formValues) Stay() map[string]string {
	return map[string]string{"roomtype": v.RoomType, "checkin": v.Checkin, "checkout": v.Checkout, "guests": v.Guests}
}

// stayQuery is the price step's address for a stay: the form again, by
// GET, with the stay and its price.
func stayQuery(l business.Location, v formValues) string {
	q := url.Values{"step": {"quote"}}
	for k, x := range v.Stay() {
		if x != "" {
			q.Set(k, x)
		}
	}
	if v.Via != "" {
		q.Set("via", v.Via)
	}
	return "/book/" + url.PathEscape(l.Slug) + "?" + q.Encode()
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
	Location     business.Location
	Units        []business.Unit
	Values       formValues
	Token        string // the form's one-time token
	Quote        *pricing.Quote
	Total        string // the quote's total as people read it
	Price        *priceLines
	Stay         string // the quoted stay's dates, as the locale writes them
	Problems     reservation.FormProblems
	Limited      string
	MaxGuests    int
	MinAge       int
	ConfirmHours int
	Currency     string
	// RemembersPartner says the referral cookie is on, which the code
	// field's note discloses.
	RemembersPartner bool
}

func (s *Site) formPage(l business.Location) formPage {
	p := formPage{RemembersPartner: s.Config.RemembersReferrals, Location: l, MaxGuests: s.Config.Limits.MaxGuests, MinAge: s.Config.Business.MinAge,
		ConfirmHours: s.Config.Business.ConfirmHours, Currency: s.Config.Business.Currency}
	for _, u := range l.Units {
		if u.Kind != business.KindTimed {
			p.Units = append(p.Units, u)
		}
	}
	return p
}

func (s *Site) location(slug string) (business.Location, bool) {
	for _, l := range s.Config.Locations {
		if l.Slug == slug {
			return l, true
		}
	}
	return business.Location{}, false
}

// Book shows the location's booking form with a fresh one-time token,
// prefilled from the query with only what checks out: a room type the
// location sells, real dates and a guest count. Nothing else from the
// query reaches the page. A prefilled stay shows its price. The price
// step is this same read, asked for with step=quote: a stay that cannot
// be priced then shows its problems beside the fields, answered 422.
func (s *Site) Book(w http.ResponseWriter, r *http.Request) {
	l, ok := s.location(r.PathValue("slug"))
	if !ok {
		s.NotFound(w, r)
		return
	}
	p := s.formPage(l)
	q := r.URL.Query()
	if u, ok := l.Unit(q.Get("roomtype")); ok && u.Kind != business.KindTimed {
		p.Values.RoomType = u.Type
	}
	p.Values.Via = s.rememberVia(w, r, clickID(q))
	in, inErr := civil.Parse(q.Get("checkin"))
	out, outErr := civil.Parse(q.Get("checkout"))
	if inErr == nil {
		p.Values.Checkin = in.String()
		if outErr == nil && in.Before(out) {
			p.Values.Checkout = out.String()
		}
	}
	p.Values.Guests = "1"
	if g, err := strconv.Atoi(q.Get("guests")); err == nil && g >= 1 && g <= s.Config.Limits.MaxGuests {
		p.Values.Guests = strconv.Itoa(g)
	}
	if s.Forms != nil {
		token, err := s.Forms.NewGuestToken(l)
		if err != nil {
			s.Logger.ErrorContext(r.Context(), "form token", "err", err)
			http.Error(w, "The form could not be shown just now. Try again in a minute, or call "+l.Phone+".", http.StatusServiceUnavailable)
			return
		}
		p.Token = token
		if q.Get("step") == "quote" {
			// The dates as given, so a problem names what is wrong with
			// them; the page still shows only the checked values.
			v := p.Values
			v.RoomType, v.Checkin, v.Checkout = q.Get("roomtype"), q.Get("checkin"), q.Get("checkout")
			quote, err := s.Forms.FormQuote(r.Context(), s.formRequest(r, l, v, ""))
			if err == nil {
				s.showQuote(&p, quote)
			}
			s.formAnswer(w, r, l, p, err)
			return
		}
		if p.Values.RoomType != "" && p.Values.Checkout != "" {
			if quote, err := s.Forms.FormQuote(r.Context(), s.formRequest(r, l, p.Values, "")); err == nil {
				s.showQuote(&p, quote)
			}
		}
	}
	s.render(w, r, "book.html", p)
}

func (s *Site) showQuote(p *formPage, q pricing.Quote) {
	p.Quote = &q
	p.Total = money.Display(q.Total, s.Config.Business.Currency)
	p.Stay = s.longDate(q.Checkin) + " to " + s.longDate(q.Checkout)
	if u, ok := p.Location.Unit(q.RoomType); ok {
		p.Price = s.breakdown(u, q.Nights, guestCount(p.Values.Guests), q.Total)
	}
}

func (s *Site) formRequest(r *http.Request, l business.Location, v formValues, token string) reservation.FormRequest {
	return reservation.FormRequest{
		Location: l.Slug, RoomType: v.RoomType, Checkin: v.Checkin, Checkout: v.Checkout,
		Name: v.Name, Email: v.Email, Phone: v.Phone, Guests: v.Guests, Notes: v.Notes,
		Signature: v.Signature, Via: v.Via, Code: v.Code, Address: clientip.Host(r), Token: token,
	}
}

// BookSubmit takes a posted form. The price step is a GET of its own
// form; a post that still asks for it (a page from before) is sent
// there, 303. Sending saves the request
// once per form token and redirects to the request's own page (Post,
// Redirect, Get), so a refresh or a post sent again, from the back
// button or a double click, shows the first request instead of filing
// another. Problems come back beside their fields with the guest's
// input and signature kept.
func (s *Site) BookSubmit(w http.ResponseWriter, r *http.Request) {
	l, ok := s.location(r.PathValue("slug"))
	if !ok || s.Forms == nil {
		s.NotFound(w, r)
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
		Name: f.Get("name"), Email: f.Get("email"), Phone: f.Get("phone"), Notes: f.Get("notes"), Signature: f.Get("signature"),
		Via: s.rememberedVia(r, clickID(f)), Code: f.Get("code")}
	p.Token = f.Get("token")
	if !reservation.GuestTokenFor(p.Token, l) {
		p.Token = "" // drawn again below, with the problem the core words
	}
	req := s.formRequest(r, l, p.Values, p.Token)
	req.Trap = f.Get("homepage")
	if _, err := signature.Check(p.Values.Signature); err != nil {
		p.Values.Signature = "" // only a signature that passes is drawn again
	}
	if f.Get("step") == "quote" {
		http.Redirect(w, r, stayQuery(l, p.Values), http.StatusSeeOther)
		return
	}
	if msg := s.paymentMissing(l, p.Values.RoomType); msg != "" {
		p.Problems = reservation.FormProblems{"roomtype": msg}
		s.renderForm(w, r, http.StatusUnprocessableEntity, p)
		return
	}
	res, err := s.Forms.Submit(r.Context(), req)
	if err == nil {
		http.Redirect(w, r, "/stay/"+url.PathEscape(p.Token)+"?sent="+sentWord(res), http.StatusSeeOther)
		return
	}
	if quote, qErr := s.Forms.FormQuote(r.Context(), req); qErr == nil {
		s.showQuote(&p, quote)
	}
	s.formAnswer(w, r, l, p, err)
}

// sentWord names, in the redirect, how the request was taken; the page
// words it.
func sentWord(res reservation.FormResult) string {
	switch {
	case res.Again:
		return "again"
	case res.Mailed:
		return "mailed"
	}
	return "saved"
}

// formAnswer shows the form again after a quote or a refusal.
func (s *Site) formAnswer(w http.ResponseWriter, r *http.Request, l business.Location, p formPage, err error) {
	var problems reservation.FormProblems
	var limited *reservation.FormLimited
	switch {
	case err == nil:
		s.renderForm(w, r, http.StatusOK, p)
	case errors.As(err, &problems):
		if _, expired := problems["token"]; expired {
			p.Limited = problems["token"]
		}
		p.Problems = problems
		s.renderForm(w, r, http.StatusUnprocessableEntity, p)
	case errors.As(err, &limited):
		p.Limited = "Too many requests were sent from here or for this email address. Try again after " +
			limited.Until.In(l.Zone()).Format("3:04 PM MST on Jan 2") + ", or call " + l.Phone + "."
		s.renderForm(w, r, http.StatusTooManyRequests, p)
	default:
		s.Logger.ErrorContext(r.Context(), "form request failed", "location", l.Slug, "err", err)
		p.Limited = "The request could not be saved just now. Try again in a few minutes, or call " + l.Phone + "."
		s.renderForm(w, r, http.StatusServiceUnavailable, p)
	}
}

// renderForm shows the form, with a fresh token if the posted one was
// missing or malformed.
func (s *Site) renderForm(w http.ResponseWriter, r *http.Request, status int, p formPage) {
	if p.Token == "" {
		token, err := s.Forms.NewGuestToken(p.Location)
		if err != nil {
			s.Logger.ErrorContext(r.Context(), "form token", "err", err)
			http.Error(w, "The form could not be shown just now. Try again in a minute, or call "+p.Location.Phone+".", http.StatusServiceUnavailable)
			return
		}
		p.Token = token
	}
	s.renderStatus(w, r, status, "book.html", p)
}
