// Package web serves frontdesk's pages and probes: liveness, readiness,
// the privacy, policy and locations pages the config links to, and the
// signed booking form that every refusal of the booking tools points to,
// and the staff screen at /staff/ (staff*.go). Pages render through
// internal/page, in the layout every page of the server shares.
//
// It is an adapter and the guest site's and staff screen's door: it
// imports config, the reservation core and the staff domain packages,
// store contracts and internal helpers, never another adapter nor
// another door (direct booking's operations reach it through the Forms
// interface, which cmd/frontdesk wires). It exposes handlers;
// cmd/frontdesk mounts them on their routes.
package web

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/money"
	"frontdesk/internal/page"
	"frontdesk/payment"
	"frontdesk/reservation"
	"frontdesk/staff/office"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = page.Must(templateFS, "templates/*.html", template.FuncMap{"tel": Tel, "booklink": BookLink, "dayList": dayList, "money": orpMoney, "setting": office.SettingNamed,
	"card": card, "ref": groupReference, "title": roomTitle, "checkin": checkinTime, "plural": plural})

// roomCard is one room's card: the room and the property it is at.
type roomCard struct {
	room
	Slug, Where string
}

func card(l property, r room) roomCard { return roomCard{room: r, Slug: l.Slug, Where: l.Name} }

// Tel is the tel: link of a phone number as people write it, such as
// "+1 303 555 0100" → "tel:+13035550100".
func Tel(phone string) template.URL {
	var b strings.Builder
	b.WriteString("tel:")
	for i, r := range phone {
		if r >= '0' && r <= '9' || r == '+' && i == 0 {
			b.WriteRune(r)
		}
	}
	return template.URL(b.String())
}

// Readiness reports whether the store is reachable and migrated.
type Readiness interface {
	Ready(ctx context.Context) error
}

// Site serves the pages and probes.
type Site struct {
	Config Config
	Store  Readiness
	Logger *slog.Logger
	// Nav is the navigation every page shows.
	Nav []page.Link
	// Forms takes booking-form requests; nil serves the form without
	// taking requests.
	Forms Forms
	// Stays serves the guest's own page of a reservation and reads the
	// settings the policy page shows; nil serves neither page.
	Stays GuestPages
	// Clock gives today's date, from which the search and the room
	// links prefill a stay; nil prefills none.
	Clock clock.Clock
	// Payments takes the deposits and prepayments of units whose policy
	// asks for them; nil serves no payment pages.
	Payments *payment.Ledger
	// Rooms answers the availability search when set (a split hub
	// assembles it from its locations); nil leaves it to Forms.
	Rooms RoomSearcher
}

// RoomSearcher is the availability search.
type RoomSearcher interface {
	SearchRooms(ctx context.Context, q reservation.SearchRequest) (reservation.RoomSearch, error)
}

// Healthz answers while the process runs.
func (s *Site) Healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// Readyz answers 200 while the store is reachable and migrated, else 503.
func (s *Site) Readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err := s.Store.Ready(ctx); err != nil {
		s.Logger.WarnContext(ctx, "not ready", "err", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("store not ready\n"))
		return
	}
	w.Write([]byte("ready\n"))
}

type pageData struct {
	Config Config
	// Description is the page's summary for search engines.
	Description string
	// OfficeHours are the hours in force: the file's, or those the
	// owner saved on the staff screen.
	OfficeHours business.OfficeHours
	Properties  []property
	Search      searchForm
}

// property is one location as the guest pages show it.
type property struct {
	business.Location
	Rooms []room
}

// room is one night unit as the guest pages show it.
type room struct {
	business.Unit
	Title  string // "Double", or the name the business gave it
	Sleeps int
	From   string // "From $89.00 a night" or "$560.00 a week"
	// MinStay says the minimum stay where there is one, "At least 7
	// nights, by the week".
	MinStay string
	// Book is the room's booking form, prefilled with the first stay
	// it can be booked for from tomorrow.
	Book string
	// Lazy loads the photo only when it nears the screen: the rooms of
	// every property after the first.
	Lazy bool
}

// searchForm is the availability search as typed, kept on its page.
type searchForm struct {
	Checkin, Checkout, Guests, Location string
	Problems                            reservation.FormProblems
}

// Index is the home page: the search and every property's rooms.
func (s *Site) Index(w http.ResponseWriter, r *http.Request) { s.render(w, r, "index.html", s.data()) }

// Robots is robots.txt: the whole guest site may be crawled but the
// staff screen and the dev mailbox; a guest's own pages carry noindex.
func (s *Site) Robots(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("User-agent: *\nDisallow: /staff/\nDisallow: /dev/\n"))
}

// Privacy is the privacy page.
func (s *Site) Privacy(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "privacy.html", s.data())
}

// Policy is the cancellation policy, with the office hours in force.
func (s *Site) Policy(w http.ResponseWriter, r *http.Request) {
	d := s.data()
	if s.Stays != nil {
		set, err := s.Stays.Settings(r.Context())
		if err != nil {
			s.Logger.ErrorContext(r.Context(), "read settings", "err", err)
			http.Error(w, "The policy could not be shown just now. Try again in a minute, or call "+s.Config.Business.Phone+".", http.StatusServiceUnavailable)
			return
		}
		d.OfficeHours = set.Group.OfficeHours
	}
	s.render(w, r, "policy.html", d)
}

// Locations lists the properties and their rooms.
func (s *Site) Locations(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "locations.html", s.data())
}

func (s *Site) data() pageData {
	d := pageData{Config: s.Config, OfficeHours: s.Config.Business.OfficeHours, Search: searchForm{Guests: "1"},
		Description: s.Config.Business.Name + ": rooms at " + strconv.Itoa(len(s.Config.Locations)) + " " + plural(len(s.Config.Locations), "property", "properties") +
			". See free nights and prices, and ask for a stay: staff confirm every request in writing, and nothing is charged online."}
	tomorrow, ok := s.tomorrow()
	if ok {
		d.Search.Checkin, d.Search.Checkout = tomorrow.String(), tomorrow.AddDays(1).String()
	}
	cur := s.Config.Business.Currency
	for _, l := range s.Config.Locations {
		p := property{Location: l}
		for _, u := range l.NightUnits() {
			rm := room{Unit: u, Title: roomTitle(u), Sleeps: s.Config.Sleeps(u), Lazy: len(d.Properties) > 0}
			if n, err := money.Parse(u.NightlyRate, cur); err == nil && u.NightlyRate != "" {
				rm.From = "From " + money.Display(n, cur) + " a night"
			} else if n, err := money.Parse(u.WeeklyRate, cur); err == nil && u.WeeklyRate != "" {
				rm.From = money.Display(n, cur) + " a week"
			}
			switch {
			case u.WeeklyOnly():
				rm.MinStay = "Let by the week: at least " + strconv.Itoa(max(7, u.MinNights)) + " nights."
			case u.MinNights > 1:
				rm.MinStay = "At least " + strconv.Itoa(u.MinNights) + " nights."
			}
			v := url.Values{"roomtype": {u.Type}}
			if ok {
				nights := max(1, u.MinNights)
				if u.WeeklyOnly() {
					nights = max(7, nights)
				}
				v.Set("checkin", tomorrow.String())
				v.Set("checkout", tomorrow.AddDays(nights).String())
			}
			rm.Book = "/book/" + url.PathEscape(l.Slug) + "?" + v.Encode()
			p.Rooms = append(p.Rooms, rm)
		}
		d.Properties = append(d.Properties, p)
	}
	return d
}

// tomorrow is tomorrow's date at the first property, in its zone (the
// business's unless it names its own).
func (s *Site) tomorrow() (civil.Date, bool) {
	if s.Clock == nil || len(s.Config.Locations) == 0 {
		return civil.Date{}, false
	}
	now := s.Clock.Now().In(s.Config.Locations[0].Zone())
	today, err := civil.Parse(now.Format(time.DateOnly))
	return today.AddDays(1), err == nil
}

// plural is one or many, by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// searchPage is what search.html shows.
type searchPage struct {
	pageData
	Result *reservation.RoomSearch
	// Offers are the free room types with their prices broken down;
	// NotOffered say why each other room type is not.
	Offers     []offer
	NotOffered []string
	// Stay words the stay searched, "Mon, Dec 7, 2026 to …".
	Stay string
}

// offer is one free room type as the search shows it.
type offer struct {
	reservation.Offer
	Title string
	Price *priceLines
	Book  template.URL
}

// Search answers the availability search with what is free and its
// price, each linking into the prefilled booking form.
func (s *Site) Search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := searchPage{pageData: s.data()}
	p.Search = searchForm{Checkin: q.Get("checkin"), Checkout: q.Get("checkout"), Guests: q.Get("guests"), Location: q.Get("location")}
	if s.Forms == nil {
		http.NotFound(w, r)
		return
	}
	var rooms RoomSearcher = s.Forms
	if s.Rooms != nil {
		rooms = s.Rooms
	}
	res, err := rooms.SearchRooms(r.Context(), reservation.SearchRequest{Checkin: p.Search.Checkin, Checkout: p.Search.Checkout, Guests: p.Search.Guests, Location: p.Search.Location})
	if problems, ok := errors.AsType[reservation.FormProblems](err); ok {
		p.Search.Problems = problems
		s.renderStatus(w, r, http.StatusUnprocessableEntity, "search.html", p)
		return
	}
	if err != nil {
		s.Logger.ErrorContext(r.Context(), "search rooms", "err", err)
		http.Error(w, "The search could not be answered just now. Try again in a minute, or call "+s.Config.Business.Phone+".", http.StatusServiceUnavailable)
		return
	}
	p.Result = &res
	p.Stay = s.longDate(res.Checkin) + " to " + s.longDate(res.Checkout)
	offered := map[string]bool{}
	for _, o := range res.Offers {
		offered[o.Location.Slug+"/"+o.Unit.Type] = true
		p.Offers = append(p.Offers, offer{Offer: o, Title: roomTitle(o.Unit), Price: s.breakdown(o.Unit, o.Quote.Nights, res.Guests, o.Quote.Total), Book: BookLink(o, res.Guests)})
	}
	for _, l := range s.Config.Locations {
		if (p.Search.Location != "" && l.Slug != p.Search.Location) || slices.ContainsFunc(res.Unread, func(u business.Location) bool { return u.Slug == l.Slug }) {
			continue // an unread property is named as such, not given a reason
		}
		for _, u := range l.NightUnits() {
			if !offered[l.Slug+"/"+u.Type] {
				p.NotOffered = append(p.NotOffered, roomTitle(u)+" at "+l.Name+": "+s.whyNot(l, u, res))
			}
		}
	}
	s.render(w, r, "search.html", p)
}

// whyNot words why the search does not offer u at l for the stay
// searched: the party is too large for it, the property is closed on a
// night of the stay, the stay is under its minimum, or no unit of it is
// free on every night.
func (s *Site) whyNot(l business.Location, u business.Unit, res reservation.RoomSearch) string {
	closed, isClosed := res.Closed[l.Slug]
	switch min := max(u.MinNights, 1); {
	case s.Config.Sleeps(u) < res.Guests:
		return "sleeps at most " + strconv.Itoa(s.Config.Sleeps(u)) + "."
	case isClosed:
		return "closed on " + s.longDate(closed) + "."
	case u.WeeklyOnly() && res.Nights < max(7, min):
		return "let by the week, for stays of " + strconv.Itoa(max(7, min)) + " nights or more."
	case res.Nights < min:
		return "for stays of " + strconv.Itoa(min) + " nights or more."
	}
	return "full on at least one of these nights."
}

// BookLink is the prefilled booking form of one offer.
func BookLink(o reservation.Offer, guests int) template.URL {
	v := url.Values{"roomtype": {o.Unit.Type}, "checkin": {o.Quote.Checkin.String()}, "checkout": {o.Quote.Checkout.String()}, "guests": {strconv.Itoa(guests)}}
	return template.URL("/book/" + url.PathEscape(o.Location.Slug) + "?" + v.Encode())
}

func (s *Site) render(w http.ResponseWriter, r *http.Request, name string, data any) {
	s.renderStatus(w, r, http.StatusOK, name, data)
}

func (s *Site) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	pages.WithBrand(Brand(s.Config.Business)).Render(w, r, s.Logger, status, name, s.Nav, data)
}

// Brand is how the business's settings dress the pages; the server's
// Content-Security-Policy must be page.Policy of it.
func Brand(b business.Business) page.Brand {
	lang := b.Locale
	if lang == "" {
		lang = business.LocaleUS
	}
	return page.Brand{Accent: b.AccentColor, Logo: b.Logo, Lang: lang}
}
