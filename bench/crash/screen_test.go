package crash

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"frontdesk/reservation"
)

// The staff screen's login, created with `frontdesk staff add-user`
// before the first server starts.
const (
	screenUser     = "screen"
	screenPassword = "crash-screen-password"
)

// screenClient is a browser at the desk: it talks to the server
// directly over loopback, where the staff screen accepts its cookie over
// plain HTTP, and reads each redirect rather than following it, since
// the redirect is the screen's answer.
var screenClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
	Timeout: 30 * time.Second,
}

var (
	csrfField  = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	screenDone = regexp.MustCompile(`^/staff/reservations/(RIV-[0-9A-F]{16})\?done=([a-z-]+)$`)
)

// screen is the staff member signed in at the staff screen. Its session
// and CSRF token are kept from one server run to the next, as a browser
// keeps its cookie and the page it has open: after a restart the first
// form posted carries them, and the screen signs in again only when the
// server refuses them.
type screen struct {
	cookie, csrf string
	carried      bool // the session is from a run before this one and has not been used since
	// signIns counts sign-ins (the first before the kills), kept and
	// lost the sessions carried across a restart by whether the server
	// took them, limited the sign-ins it refused for their number.
	signIns, kept, lost, limited int
	// signOuts and saves count sign-outs and settings saves answered
	// done; added are the logins the users page answered added.
	signOuts, saves int
	added           []string
}

// request is one request of the screen with its session cookie. A POST
// carries the server's own origin, as a browser sends it on a form.
func (sc *screen) request(ctx context.Context, method, base, path string, form url.Values) *http.Request {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequestWithContext(ctx, method, base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
	}
	if sc.cookie != "" {
		req.AddCookie(&http.Cookie{Name: "frontdesk_staff", Value: sc.cookie})
	}
	return req
}

// open signs in at the server at base and reads the new session's CSRF
// token. It reports false when no session came of it (the server died,
// or it refused the sign-in).
func (sc *screen) open(ctx context.Context, base string) bool {
	sc.cookie, sc.csrf, sc.carried = "", "", false
	form := url.Values{"username": {screenUser}, "password": {screenPassword}}
	resp, err := screenClient.Do(sc.request(ctx, http.MethodPost, base, "/staff/signin", form))
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the cookie and the redirect are the answer
	resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		sc.limited++
	}
	if resp.StatusCode != http.StatusSeeOther {
		return false
	}
	for _, c := range resp.Cookies() {
		if c.Name == "frontdesk_staff" {
			sc.cookie = c.Value
		}
	}
	if sc.cookie == "" {
		return false
	}
	sc.signIns++
	return sc.readCSRF(ctx, base) == http.StatusOK
}

// readCSRF opens the staff booking form with the session and reads the
// session's CSRF token from it; it returns the page's status, 0 when
// none came, and a redirect to the sign-in page when the session is
// unknown.
func (sc *screen) readCSRF(ctx context.Context, base string) int {
	resp, err := screenClient.Do(sc.request(ctx, http.MethodGet, base, "/staff/reservations/new", nil))
	if err != nil {
		return 0
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0
	}
	m := csrfField.FindSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil {
		return resp.StatusCode
	}
	sc.csrf = string(m[1])
	return http.StatusOK
}

// postFor sends one form of the screen and returns where its redirect
// points, its status, and answered false when no answer came or it was
// a fault.
func (sc *screen) postFor(ctx context.Context, base, path string, form url.Values) (location string, status int, answered bool) {
	form.Set("csrf", sc.csrf)
	resp, err := screenClient.Do(sc.request(ctx, http.MethodPost, base, path, form))
	if err != nil {
		return "", 0, false
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the status and the redirect are the answer
	resp.Body.Close()
	sc.carried = false
	return resp.Header.Get("Location"), resp.StatusCode, resp.StatusCode < 500
}

// post sends one form of the screen and reads its answer: the reference
// and result the redirect names, or answered false when no answer came
// or it was a fault, after which the write may have committed.
func (sc *screen) post(ctx context.Context, base, path string, form url.Values) (ref, done string, status int, answered bool) {
	form.Set("csrf", sc.csrf)
	resp, err := screenClient.Do(sc.request(ctx, http.MethodPost, base, path, form))
	if err != nil {
		return "", "", 0, false
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the status and the redirect are the answer
	resp.Body.Close()
	if sc.carried {
		sc.carried = false
		if refusedSession(resp.StatusCode) {
			sc.lost++
		} else {
			sc.kept++
		}
	}
	if resp.StatusCode >= 500 {
		return "", "", resp.StatusCode, false
	}
	if m := screenDone.FindStringSubmatch(resp.Header.Get("Location")); resp.StatusCode == http.StatusSeeOther && m != nil {
		return m[1], m[2], resp.StatusCode, true
	}
	return "", "", resp.StatusCode, true
}

// staffScreen is staff at the staff screen, racing the command-line
// staff and every other door: it decides references handed to staff
// from the same ledger (accepts or confirms each, declines one in six,
// and moves every third it confirmed) and now and then books a walk-in
// on the same nights. A session the server refuses (it forgot it, or
// the CSRF token no longer matches) is replaced by a new sign-in.
func (d *doors) staffScreen(ctx context.Context, s *server, r *rand.Rand) {
	sc := d.screen
	sc.carried = sc.cookie != ""
	if sc.cookie == "" && !sc.open(ctx, s.url) {
		return
	}
	for ctx.Err() == nil {
		var status int
		switch pick := r.IntN(16); {
		case pick == 0:
			status = d.screenSettings(ctx, s.url)
		case pick == 1:
			status = d.screenAddUser(ctx, s.url)
		case pick == 2:
			// Sign out and in again: the session's delete and a new
			// session's write, each a write a kill can cut.
			if d.screenSignOut(ctx, s.url) && !sc.open(ctx, s.url) {
				return
			}
		case pick < 6:
			status = d.screenBook(ctx, s.url, r)
		default:
			ref, ok := d.ledger.take(r)
			if !ok {
				break
			}
			to := reservation.Confirmed
			if r.IntN(6) == 0 {
				to = reservation.Declined
			}
			var done bool
			done, status = d.screenDecide(ctx, s.url, ref, to)
			if done && to == reservation.Confirmed && r.IntN(3) == 0 {
				_, status = d.screenDecide(ctx, s.url, ref, reservation.Moved)
			}
		}
		// A person at the screen takes a moment between actions; without
		// it the screen would take every reference before the command
		// line's processes start.
		pause(ctx, 50*time.Millisecond)
		if refusedSession(status) && !sc.open(ctx, s.url) {
			return
		}
	}
}

// screenSettings saves the riverside settings as they are (booking on,
// the demo's ceilings), so the save races the other doors without
// changing what they may do.
func (d *doors) screenSettings(ctx context.Context, base string) int {
	form := url.Values{"booking_enabled": {"on"}, "email_hourly": {"1000"}, "pending": {"1000"}, "closures": {""}}
	_, _, status, answered := d.screen.post(ctx, base, "/staff/settings/riverside", form)
	if answered && status == http.StatusSeeOther {
		d.screen.saves++
	}
	return status
}

// screenAddUser adds a clerk login at the users page; one answered added
// must be there at the end.
func (d *doors) screenAddUser(ctx context.Context, base string) int {
	name := fmt.Sprintf("clerk%d", d.next())
	form := url.Values{"username": {name}, "password": {"a long clerk password"}, "role": {"clerk"}, "location": {"riverside"}}
	loc, status, answered := d.screen.postFor(ctx, base, "/staff/users", form)
	if answered && status == http.StatusSeeOther && loc == "/staff/users?done=added" {
		d.screen.added = append(d.screen.added, name)
	}
	return status
}

// screenSignOut signs the screen out; it reports whether the server
// answered, after which the screen signs in again.
func (d *doors) screenSignOut(ctx context.Context, base string) bool {
	loc, status, answered := d.screen.postFor(ctx, base, "/staff/signout", url.Values{})
	if answered && status == http.StatusSeeOther && loc == "/staff/signin" {
		d.screen.signOuts++
	}
	return answered
}

// screenDecide takes one decision on the reservation's page and reports
// whether the screen answered it done, and the status it answered with.
// Done is a redirect back to the reservation naming the state reached;
// "noroom" (another door took the units) and "illegal" (its state moved
// on) are refusals, answered, with nothing changed.
func (d *doors) screenDecide(ctx context.Context, base, ref string, to reservation.State) (bool, int) {
	got, done, status, answered := d.screen.post(ctx, base, "/staff/reservations/"+ref, url.Values{"to": {string(to)}})
	switch {
	case !answered:
		d.ledger.unanswered(ref, to)
	case refusedSession(status):
		d.ledger.handOver(ref) // not acted on: staff decide it after signing in again
	case got == ref && strings.HasPrefix(done, string(to)+"-"):
		d.ledger.ack(ref, "screen "+verb(to), to)
		return true, status
	case got == ref && (done == "noroom" || done == "illegal"):
	case status == http.StatusSeeOther:
		d.ledger.lose(fmt.Sprintf("screen decision %s on %s answered %q", to, ref, done))
	}
	return false, status
}

// verb names a decision in the ledger's counts.
func verb(to reservation.State) string {
	switch to {
	case reservation.Confirmed:
		return "confirm"
	case reservation.Declined:
		return "decline"
	case reservation.Moved:
		return "move"
	}
	return string(to)
}

// screenBook books a walk-in on one of the round's windows with the
// screen's booking form: a redirect to the new reservation is the
// acknowledgement, the form shown again with no room free a refusal.
func (d *doors) screenBook(ctx context.Context, base string, r *rand.Rand) int {
	in, out := d.stay(r.IntN(roundWindows))
	form := url.Values{"location": {"riverside"}, "roomtype": {"double"}, "checkin": {in.Format(time.DateOnly)}, "checkout": {out.Format(time.DateOnly)},
		"name": {"Crash Walk-in"}, "email": {fmt.Sprintf("walkin%d@example.com", d.next())}, "phone": {"+1 303 555 0177"}, "guests": {"2"}}
	ref, done, status, answered := d.screen.post(ctx, base, "/staff/reservations/new", form)
	switch {
	case answered && ref != "" && done == "booked":
		d.ledger.ack(ref, "screen booking", reservation.Confirmed)
	case answered && status == http.StatusSeeOther:
		d.ledger.lose(fmt.Sprintf("screen booking answered %q", done))
	}
	return status
}

// refusedSession reports an answer that refused the session or its CSRF
// token before the form was acted on.
func refusedSession(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}
