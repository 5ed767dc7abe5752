package web

import (
	"context"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/channel"
	"frontdesk/internal/clientip"
	"frontdesk/internal/clock"
	"frontdesk/internal/outbound"
	"frontdesk/internal/page"
	"frontdesk/internal/session"
	"frontdesk/reservation"
	"frontdesk/staff"
	"frontdesk/staff/office"
	"frontdesk/store"
)

// The staff screen (direct-booking.md §15): sign-in, the dashboard, the
// reservation list and detail with the staff actions, and the settings.
// Every page needs a session; every POST carries the session's CSRF
// token; every reservation is opened through the signed-in user's
// location scope, and one outside it answers 404 like an absent one.
// The screen works without JavaScript.

// StaffCore is what the staff screen needs from the booking core.
type StaffCore interface {
	Decide(ctx context.Context, d reservation.Decision) (reservation.Reservation, bool, error)
	// Refused is a door's refusal of the decision to on r, or nil: the
	// page offers only the actions it lets be.
	Refused(r reservation.Reservation, to reservation.State) error
	Reservations(ctx context.Context, f store.ReservationFilter) ([]reservation.Reservation, error)
	// Search finds reservations by reference, guest name, email or phone,
	// nearest to today first.
	Search(ctx context.Context, q, location string, limit int) ([]reservation.Reservation, error)
	StaffView(ctx context.Context, ref string, visible func(slug string) bool) (office.StaffView, error)
	Dashboard(ctx context.Context, slugs []string) (office.Dashboard, error)
	Settings(ctx context.Context) (reservation.Settings, error)
	SaveGroupSettings(ctx context.Context, by string, g reservation.GroupSettings) error
	SaveLocationSettings(ctx context.Context, by, slug string, l reservation.LocationSettings) error
	SettingsAudit(ctx context.Context, after string, limit int) ([]reservation.SettingsChange, string, error)
	// Book makes a reservation for a guest on the phone or at the desk.
	Book(ctx context.Context, b office.Booking) (reservation.Reservation, error)
}

// Logins is what the staff screen needs from the staff package.
type Logins interface {
	SignInFrom(ctx context.Context, a staff.Attempt) (staff.SignedIn, error)
	BeginPasskeySignIn(ctx context.Context, rp staff.RP) ([]byte, string, error)
	FinishPasskeySignIn(ctx context.Context, rp staff.RP, token string, answer []byte, device string) (staff.SignedIn, error)
	BeginPasskeyRegistration(ctx context.Context, rp staff.RP, username string) ([]byte, string, error)
	FinishPasskeyRegistration(ctx context.Context, rp staff.RP, username, token string, answer []byte) error
	Session(ctx context.Context, token string) (staff.Session, staff.User, error)
	SignOut(ctx context.Context, token string) error
	SignOutEverywhere(ctx context.Context, username string) error
}

var (
	_ StaffCore = (*office.Office)(nil)
	_ Logins    = (*staff.Service)(nil)
)

// StaffScreen serves /staff/.
type StaffScreen struct {
	Config Config
	Core   StaffCore
	Logins Logins
	// Admin manages the logins, for the owners' users page and the
	// sign-in page's first-login hint.
	Admin Admin
	// Clock gives today's date at each property.
	Clock  clock.Clock
	Logger *slog.Logger
	// Partners lists the business's own ORP standing offers; nil when the
	// ORP host is off.
	Partners PartnerOffers
	// Referrals, when set, shows owners the bookings partners sent and
	// what the business owes them, with the payouts to settle.
	Referrals StaffReferrals
	// Channels, when set, is the listing sites' calendar sync: the
	// owners' channels page, and the calendar's imported blocks.
	Channels *channel.Service
	// ChannelRule is the outbound address rule a feed added on the
	// channels page is checked under.
	ChannelRule outbound.Rule
	// Payments, when set, shows each reservation's payment and gives
	// owners the manual refund, the fee waiver and the money totals.
	Payments StaffPayments
	// SplitLocation is the slug of a split deployment's location process
	// serving this screen, "" in one process. Its sign-in forms name it,
	// for the hub to forward them before a session names the location.
	SplitLocation string
}

// Route is one pattern of the staff screen and its handler.
type Route struct {
	Pattern string
	Handler http.Handler
}

// sessionCookie holds the session token; its path keeps it to /staff/.
var sessionCookie = session.Cookie{Name: "frontdesk_staff", Path: "/staff/"}

// deviceCookie marks a browser that signed in before, for the logins it
// names (staff.SignedIn.Device); it outlives sessions, for a year.
var deviceCookie = session.Cookie{Name: "frontdesk_staff_device", Path: "/staff/", SameSite: http.SameSiteStrictMode}

const deviceCookieAge = 365 * 24 * time.Hour

// maxStaffBody bounds a posted staff form.
const maxStaffBody = 64 << 10

// Routes lists the staff screen's patterns, for cmd/frontdesk to mount.
func (s *StaffScreen) Routes() []Route {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.atSplitHub() {
		// A split hub's screen reads the reservations at the locations; a
		// payment, a partner's booking and the business's offers are kept
		// at a location too, so the hub's empty ledgers show nothing
		// rather than totals of zero.
		s.Payments, s.Referrals, s.Partners = nil, nil, nil
	}
	return []Route{
		{"GET /staff/signin", http.HandlerFunc(s.signInPage)},
		{"POST /staff/signin", http.HandlerFunc(s.signIn)},
		{"POST /staff/signin/passkey", http.HandlerFunc(s.passkeySignIn)},
		{"GET /staff/passkey", s.signedIn(s.passkeyPage)},
		{"POST /staff/passkey", s.signedIn(s.addPasskey)},
		{"GET /staff/signout", s.signedIn(s.signOutPage)},
		{"POST /staff/signout", s.signedIn(s.signOut)},
		{"GET /staff/{$}", s.signedIn(s.dashboard)},
		{"GET /staff/reservations", s.signedIn(s.list)},
		{"GET /staff/reservations/new", s.signedIn(s.bookPage)},
		{"POST /staff/reservations/new", s.signedIn(s.book)},
		{"GET /staff/reservations/{ref}", s.signedIn(s.detail)},
		{"POST /staff/reservations/{ref}", s.signedIn(s.act)},
		{"POST /staff/reservations/{ref}/refund", s.signedIn(s.refund)},
		{"POST /staff/reservations/{ref}/waive", s.signedIn(s.waive)},
		{"GET /staff/settings", s.signedIn(s.settings)},
		{"POST /staff/settings/{scope}", s.signedIn(s.saveSettings)},
		{"GET /staff/today", s.signedIn(s.deskDay)},
		{"GET /staff/calendar", s.signedIn(s.calendar)},
		{"GET /staff/users", s.signedIn(s.users)},
		{"POST /staff/users", s.signedIn(s.addUser)},
		{"POST /staff/users/{username}", s.signedIn(s.changeUser)},
		{"GET /staff/partners", s.signedIn(s.partners)},
		{"POST /staff/partners", s.signedIn(s.listReferral)},
		{"GET /staff/partners/codes", s.signedIn(s.codes)},
		{"POST /staff/partners/codes", s.signedIn(s.issueCode)},
		{"POST /staff/referrals/settle", s.signedIn(s.settle)},
		{"GET /staff/channels", s.signedIn(s.channels)},
		{"POST /staff/channels", s.signedIn(s.channelAction)},
	}
}

// atSplitHub says whether the screen is a split hub's, whose core reads
// the reservations at the locations (office.Office.Remote).
func (s *StaffScreen) atSplitHub() bool {
	c, ok := s.Core.(interface{ Remote() bool })
	return ok && c.Remote()
}

// visit is one signed-in request.
type visit struct {
	User    staff.User
	Session staff.Session
	token   string
}

// staffPage is what every staff template receives: the page's own data
// and the visit, for the CSRF token and the user's name.
type staffPage struct {
	Visit visit
	Data  any
}

// signedIn wraps a handler that needs a session: without one, a GET goes
// to the sign-in page and comes back after; anything else is refused. A
// POST must carry the session's CSRF token.
func (s *StaffScreen) signedIn(h func(http.ResponseWriter, *http.Request, visit)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		var v visit
		v.token = sessionCookie.Value(r)
		var err error
		if v.token == "" {
			err = &staff.Error{Code: staff.CodeSignedOut, Message: "sign in again"}
		} else {
			v.Session, v.User, err = s.Logins.Session(r.Context(), v.token)
		}
		if err != nil {
			if staff.ErrorCode(err) == staff.CodeInternal {
				s.Logger.ErrorContext(r.Context(), "read staff session", "err", err)
				http.Error(w, "The staff screen cannot read sessions right now. Try again in a minute.", http.StatusServiceUnavailable)
				return
			}
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/staff/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, "Your session has ended. Sign in again at /staff/signin.", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxStaffBody)
			if err := r.ParseForm(); err != nil {
				http.Error(w, "The form could not be read.", http.StatusBadRequest)
				return
			}
			if !staff.CheckCSRF(v.Session, r.PostForm.Get("csrf")) {
				http.Error(w, "This form is out of date or did not come from the staff screen. Go back, reload the page and try again.", http.StatusForbidden)
				return
			}
		}
		// The login travels with the request: a read across locations at
		// a split hub asks each location within its scope.
		h(w, r.WithContext(staff.WithUser(r.Context(), v.User)), v)
	})
}

// scope lists the locations the user may see, in config order.
func (s *StaffScreen) scope(u staff.User) []business.Location {
	var out []business.Location
	for _, l := range s.Config.Locations {
		if u.CanSee(l.Slug) {
			out = append(out, l)
		}
	}
	return out
}

func (s *StaffScreen) locationName(slug string) string {
	for _, l := range s.Config.Locations {
		if l.Slug == slug {
			return l.Name
		}
	}
	return slug
}

// nav is the staff screen's navigation for the user.
func (s *StaffScreen) nav(u staff.User) []page.Link {
	links := []page.Link{{Href: "/staff/", Text: "Dashboard"}, {Href: "/staff/today", Text: "Today"}, {Href: "/staff/reservations", Text: "Reservations"},
		{Href: "/staff/calendar", Text: "Calendar"}}
	if u.Role == staff.Owner {
		links = append(links, page.Link{Href: "/staff/settings", Text: "Settings"}, page.Link{Href: "/staff/users", Text: "Logins"})
		if s.Partners != nil {
			links = append(links, page.Link{Href: "/staff/partners", Text: "Partner offers"})
		}
		if s.Channels != nil && !s.atSplitHub() {
			links = append(links, page.Link{Href: "/staff/channels", Text: "Channels"})
		}
	}
	return append(links, page.Link{Href: "/staff/signout", Text: "Sign out " + u.Username})
}

func (s *StaffScreen) render(w http.ResponseWriter, r *http.Request, v visit, status int, name string, data any) {
	var nav []page.Link
	if v.User.Username != "" {
		nav = s.nav(v.User)
	}
	b := Brand(s.Config.Business)
	b.Wide = true
	pages.WithBrand(b).Render(w, r, s.Logger, status, name, nav, staffPage{Visit: v, Data: data})
}

// fail answers an internal error once, logged with its cause.
func (s *StaffScreen) fail(w http.ResponseWriter, r *http.Request, op string, err error) {
	s.Logger.ErrorContext(r.Context(), op, "err", err)
	http.Error(w, "The staff screen cannot read or write its data right now. Try again in a minute.", http.StatusServiceUnavailable)
}

// signInPage shows the sign-in form; on an install without logins it
// says how to create the first.
func (s *StaffScreen) signInPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	d := signInData{Next: safeNext(r.URL.Query().Get("next")), At: s.SplitLocation}
	if s.atSplitHub() {
		d.Properties = s.Config.Locations
	}
	s.passkeyOptions(r, &d)
	if s.Admin != nil {
		has, err := s.Admin.HasUsers(r.Context())
		if err != nil {
			s.Logger.ErrorContext(r.Context(), "count staff users", "err", err)
		}
		d.NoLogins = err == nil && !has
	}
	s.render(w, r, visit{}, http.StatusOK, "staff_signin.html", d)
}

type signInData struct {
	Next, Username, Problem string
	// NoLogins is set on an install with no login yet.
	NoLogins bool
	// Options and Ceremony are a passkey sign-in ready to run; empty
	// when the screen is opened by address, where passkeys cannot work.
	Options  template.JS
	Ceremony string
	// At is StaffScreen.SplitLocation: the sign-in forms post to
	// ?location= it, which a split hub forwards there.
	At string
	// Properties, at a split hub, are the properties whose own logins
	// sign in at their own sign-in pages.
	Properties []business.Location
}

// signIn checks the password and opens a session in an HttpOnly,
// SameSite=Lax cookie, Secure when the request came over TLS.
func (s *StaffScreen) signIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, maxStaffBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	d := signInData{Next: safeNext(r.PostForm.Get("next")), Username: r.PostForm.Get("username"), At: s.SplitLocation}
	a := staff.Attempt{Username: d.Username, Password: r.PostForm.Get("password"), Addr: clientip.Host(r)}
	a.Device = deviceCookie.Value(r)
	in, err := s.Logins.SignInFrom(r.Context(), a)
	if err != nil {
		status := http.StatusUnauthorized
		switch staff.ErrorCode(err) {
		case staff.CodeLimited:
			status = http.StatusTooManyRequests
		case staff.CodeInternal:
			s.Logger.ErrorContext(r.Context(), "staff sign-in", "err", err)
			status = http.StatusServiceUnavailable
		}
		se, _ := staff.AsError(err)
		d.Problem = "Sign-in is not possible right now."
		if se != nil {
			d.Problem = strings.ToUpper(se.Message[:1]) + se.Message[1:] + "."
		}
		if status == http.StatusTooManyRequests && se != nil && strings.HasPrefix(se.Message, "too many") {
			// The budget is this browser's at this login: another person's
			// wrong passwords never spend it.
			d.Problem += " Only sign-ins from this browser at this address are held; a browser you signed in with before still signs in."
		}
		s.passkeyOptions(r, &d)
		s.render(w, r, visit{}, status, "staff_signin.html", d)
		return
	}
	s.setSession(w, r, in)
	http.Redirect(w, r, d.Next, http.StatusSeeOther)
}

// setSession sets the session and device cookies of a sign-in. The
// session the browser held before, if any, ends: a sign-in always leaves
// exactly one new session behind.
func (s *StaffScreen) setSession(w http.ResponseWriter, r *http.Request, in staff.SignedIn) {
	if old := sessionCookie.Value(r); old != "" && old != in.Token {
		if err := s.Logins.SignOut(r.Context(), old); err != nil {
			s.Logger.WarnContext(r.Context(), "end replaced staff session", "err", err)
		}
	}
	ses := in.Session
	sessionCookie.Set(w, r, in.Token, ses.Expires.Sub(ses.CreatedAt))
	deviceCookie.Set(w, r, in.Device, deviceCookieAge)
}

// safeNext keeps a return address only when it is a staff page of this
// server, so the sign-in page cannot send anyone elsewhere.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/staff/") || strings.HasPrefix(next, "/staff/signin") || strings.ContainsAny(next, "\\\r\n") {
		return "/staff/"
	}
	return next
}

func (s *StaffScreen) signOutPage(w http.ResponseWriter, r *http.Request, v visit) {
	s.render(w, r, v, http.StatusOK, "staff_signout.html", nil)
}

// signOut ends the session in the store, so the cookie opens nothing
// even if a copy of it is kept; with "everywhere" ticked, every session
// of the login ends, in every browser.
func (s *StaffScreen) signOut(w http.ResponseWriter, r *http.Request, v visit) {
	end := func() error { return s.Logins.SignOut(r.Context(), v.token) }
	if r.PostForm.Get("everywhere") != "" {
		end = func() error { return s.Logins.SignOutEverywhere(r.Context(), v.User.Username) }
	}
	if err := end(); err != nil {
		s.fail(w, r, "staff sign-out", err)
		return
	}
	sessionCookie.Clear(w, r)
	http.Redirect(w, r, "/staff/signin", http.StatusSeeOther)
}
