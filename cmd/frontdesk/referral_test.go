package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/random"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/reservation"
	"frontdesk/store"
	"frontdesk/usp/usptest"
)

// referralOrigin is the public origin of the referral tests' server, so
// party ids, links and messages are the same in every run whatever port
// the server listens on.
const referralOrigin = "https://riverside.example"

// referralTerms is the business's standing referral offer: a partner
// places a tracked link and a code to the booking form, and the business
// pays 10% of each stay booked through them within 30 days of a click,
// on its own word (attestation), held one day.
var referralTerms = map[string]any{
	"title": "Riverside Inn: 10% of every stay you send us", "kind": "affiliate",
	"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
	"obligations": []any{
		map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true, "code": true},
			"destination": referralOrigin + "/book/riverside", "proof": []string{"link"}},
		map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 1000, "window": "P30D",
			"hold": "P1D", "rail": "manual", "proof": []string{"attestation"}},
	},
}

// referralWorld is a server whose business is a party of its ORP host
// with a standing referral offer accepted by one partner.
type referralWorld struct {
	*orpServer
	tt                *testing.T
	business, partner *orpParty
	deal, link, code  string
	platform          map[string]string // a USP platform's headers
	slot              string            // the USP slot booked last
	// restart stops the server and starts it again on the same store, as
	// the business's configured party.
	restart func()
	// restartWith is restart with change made to the config as well.
	restartWith func(change func(*config.Config))
}

// startReferral starts the server twice on one store: once to join the
// business's party, then with that party configured as the business, as
// an owner does. Random draws are seeded, so two worlds built alike are
// alike byte for byte.
// Each of with changes every Main before it runs.
func startReferral(t *testing.T, database string, with ...func(*Main)) *referralWorld {
	t.Helper()
	dir, clk := t.TempDir(), clock.NewFixed(testNow)
	plat := usptest.NewPlatforms(t, map[string]string{"/demo-platform.json": e2eProfile})
	start := func(seed uint64, change func(*config.Config)) *orpServer {
		// Partners are paid for what is booked; what the guest pays and
		// when is the payment tests' own.
		c := usptest.Unpaid(config.Demo())
		c.Store.DataDir, c.Store.Database = dir, database
		c.Deployment.PublicURL = referralOrigin
		if change != nil {
			change(&c)
		}
		m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clk, Out: io.Discard,
			ready: make(chan struct{}), Rand: random.Seeded([32]byte{byte(seed)}), USPRootCAs: plat.Roots()}
		for _, f := range with {
			f(m)
		}
		stop := runMain(t, m)
		return &orpServer{t: t, url: m.URL, clock: clk, main: m, stop: stop}
	}
	first := start(1, nil)
	business := first.join("{}")
	first.stop()
	asBusiness := func(c *config.Config) { c.ORP.BusinessParty = business.id }
	s := start(2, asBusiness)
	w := &referralWorld{orpServer: s, tt: t, business: business, platform: map[string]string{
		"Authorization": "Bearer " + demoPlatformKey, "USP-Agent": `profile="` + plat.URL + `/demo-platform.json"`, "Content-Type": "application/json"}}
	seed := uint64(2)
	w.restartWith = func(change func(*config.Config)) {
		w.stop()
		seed++
		w.orpServer = start(seed, func(c *config.Config) {
			asBusiness(c)
			if change != nil {
				change(c)
			}
		})
	}
	w.restart = func() { w.restartWith(nil) }

	code, m := s.send(business, s.msg(business, "offer", nil, map[string]any{"terms": referralTerms}))
	if code != 200 {
		t.Fatalf("offer = %d %v", code, m)
	}
	hash := obody(m)["terms_hash"]
	listed := s.approve(business, local(obody(m)["waiting"].(map[string]any)["url"].(string)))
	w.partner = s.join(`{"agent": {"name": "Riverbend Travel", "version": "1.0"}}`)
	_, m = s.send(w.partner, s.msg(w.partner, "accept", nil, map[string]any{"offer": obody(listed)["id"], "terms_hash": hash}))
	w.deal = m["deal"].(string)
	if active := s.approve(w.partner, local(obody(m)["waiting"].(map[string]any)["url"].(string))); obody(active)["state"] != "active" {
		t.Fatalf("deal = %v, want active", active)
	}
	snap := s.deal(w.partner, w.deal)
	for _, tr := range snap["tracking"].([]any) {
		tr := tr.(map[string]any)
		w.link, _ = tr["link"].(string)
		w.code, _ = tr["code"].(string)
	}
	if w.link == "" || w.code == "" {
		t.Fatalf("tracking = %v", snap["tracking"])
	}
	addStaff(t, s.main)
	return w
}

// local is a URL of the public origin as a path on the test's server.
func local(u string) string { return strings.TrimPrefix(u, referralOrigin) }

// follow is a guest's browser following the partner's tracked link: it
// returns the click id the form's address carries, once stored.
func (w *referralWorld) follow() string {
	w.t.Helper()
	path := local(w.link)
	status, loc := w.click("GET", path, map[string]string{"User-Agent": browserUA})
	if status != http.StatusFound || !strings.HasPrefix(loc, referralOrigin+"/book/riverside?") {
		w.t.Fatalf("tracked link = %d %s", status, loc)
	}
	w.storedClicks(path)
	return via(w.tt, loc)
}

// guest is one guest's private facts.
type guest struct{ name, email, phone, notes string }

var (
	grace = guest{"Grace Hopper", "grace@example.com", "(303) 555-0142", "Late train."}
	alan  = guest{"Alan Turing", "alan@example.org", "(720) 555-0199", "Ground floor, please."}
)

// bookForm books through the form, the way the browser sends it: the
// page from the tracked link keeps the click id in a hidden field, a
// first send without a signature comes back with it kept, and the signed
// send saves the request. It returns the reference.
func (w *referralWorld) bookForm(g guest, click, code string) string {
	w.t.Helper()
	q := ""
	if click != "" {
		q = "?via=" + click + "&ref=" + click
	}
	_, _, page := send(w.tt, "GET", w.url+"/book/riverside"+q, nil, nil)
	hidden := fmt.Sprintf(`<input type="hidden" id="via" name="via" value="%s">`, click)
	if click != "" && !strings.Contains(page, hidden) {
		w.t.Fatalf("the form does not carry the click id: %s", page)
	}
	form := w.stayForm(g, code)
	token := formTokenField.FindStringSubmatch(page)
	if token == nil {
		w.t.Fatalf("no form token in %s", page)
	}
	form.Set("token", token[1])
	if click != "" {
		form.Set("via", click)
	}
	status, body := postForm(w.tt, w.url+"/book/riverside", form, nil)
	if status != http.StatusUnprocessableEntity || click != "" && !strings.Contains(body, hidden) {
		w.t.Fatalf("unsigned form = %d, the click id kept: %v", status, strings.Contains(body, hidden))
	}
	form.Set("signature", signaturetest.Drawn(w.t))
	status, body = postForm(w.tt, w.url+"/book/riverside", form, nil)
	ref := findSent(body)
	if status != http.StatusOK || ref == nil {
		w.t.Fatalf("form post = %d: %s", status, body)
	}
	return ref[1]
}

// bookUSP books the shuttle through the platform, passing the partner's
// code in _meta.orp, and returns the booking's id.
func (w *referralWorld) bookUSP(code string) string {
	w.t.Helper()
	day := w.clock.Now().AddDate(0, 0, 3).Format("2006-01-02")
	_, _, body := post(w.tt, w.url+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q}`, day, day))
	w.slot = decodeJSON(w.t, body)["slots"].([]any)[0].(map[string]any)["id"].(string)
	status, body := w.createUSP(w.slot, code)
	if status != 201 {
		w.t.Fatalf("USP booking = %d %s", status, body)
	}
	return decodeJSON(w.t, body)["booking"].(map[string]any)["id"].(string)
}

func (w *referralWorld) createUSP(slot, code string) (int, string) {
	w.t.Helper()
	status, _, body := post(w.tt, w.url+"/usp/bookings", w.platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"},"_meta":{"orp":{"code":%q}}}`, slot, code))
	return status, body
}

// payouts are the distinct payouts the partner was told of.
func (w *referralWorld) payouts() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, m := range w.inbox(w.partner) {
		if m["type"] == "payout" {
			out[obody(m)["payout"].(string)] = obody(m)
		}
	}
	return out
}

// stayForm is the form's fields for three nights a month ahead, unsigned.
func (w *referralWorld) stayForm(g guest, code string) url.Values {
	checkin := w.clock.Now().AddDate(0, 0, 30)
	return url.Values{
		"roomtype": {"double"}, "checkin": {checkin.Format("2006-01-02")}, "checkout": {checkin.AddDate(0, 0, 3).Format("2006-01-02")}, "guests": {"2"},
		"name": {g.name}, "email": {g.email}, "phone": {g.phone}, "notes": {g.notes}, "code": {code},
	}
}

// guestCancels is the guest cancelling in chat, with the code the
// business mails them.
func (w *referralWorld) guestCancels(ref string, g guest) {
	w.t.Helper()
	cs := connect(w.t, w.url+"/mcp", "2025-11-25")
	w.clock.Advance(time.Minute) // the cancellation code is the newest mail
	res, out := callTool(w.tt, cs, "cancel_booking", map[string]any{"reservation_number": ref, "phone_last4": g.phone[len(g.phone)-4:]})
	if res.IsError {
		w.t.Fatalf("cancel_booking: %s", text(res))
	}
	if res, _ = callTool(w.tt, cs, "cancel_booking", map[string]any{"cancel_id": out["cancel_id"], "code": latestCode(w.tt, w.url, g.email)}); res.IsError {
		w.t.Fatalf("cancel_booking step 2: %s", text(res))
	}
	w.relay()
}

// relay waits for the server's outbox relay, woken by each commit, to
// deliver every committed event to the referral ledger, so every end is
// settled. It waits rather than relays itself: a second relay racing the
// server's would draw the host's random ids a varying number of times.
func (w *referralWorld) relay() {
	w.t.Helper()
	ctx := context.Background()
	position := func(kind, key string) string {
		rec, err := w.main.store.Get(ctx, kind, key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			w.t.Fatal(err)
		}
		return string(rec.Value)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		pending, err := w.main.store.List(ctx, "reservation-event-pending", "", "", 1)
		if err != nil {
			w.t.Fatal(err)
		}
		if len(pending) == 0 && position("reservation-event-head", "head") == position("reservation-event-cursor", "referral") {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatal("the outbox relay did not deliver to the referral ledger within 10s")
		}
	}
}

// decide applies a staff decision on the staff screen.
func (w *referralWorld) decide(ref string, to reservation.State) {
	w.t.Helper()
	olga := signIn(w.tt, w.main, "olga")
	if status, _, body := olga.do("POST", "/staff/reservations/"+ref, url.Values{"csrf": {olga.csrf}, "to": {string(to)}}); status != http.StatusSeeOther {
		w.t.Fatalf("staff %s = %d %s", to, status, body)
	}
	w.relay()
}

func (w *referralWorld) total(ref string) int64 {
	w.t.Helper()
	r, err := reservation.Get(context.Background(), w.main.store, ref)
	if err != nil {
		w.t.Fatal(err)
	}
	return r.Total
}

// outcomes are the outcome rows the partner received, oldest first.
func (w *referralWorld) outcomes() []map[string]any {
	var out []map[string]any
	for _, m := range w.inbox(w.partner) {
		if m["type"] == "outcome" {
			out = append(out, obody(m))
		}
	}
	return out
}

// week lets a week pass and runs the scheduled work.
func (w *referralWorld) week() {
	w.clock.Advance(7*24*time.Hour + time.Minute)
	w.sweep()
}

// onlyMoney fails unless an outcome's rows say counts and money only:
// no guest, reference, stay date, property or room.
func onlyMoney(t *testing.T, body map[string]any, g guest, ref string, stay time.Time) {
	t.Helper()
	b, _ := json.Marshal(body["rows"])
	for _, private := range []string{g.name, g.email, g.phone, g.notes, ref, stay.Format("2006-01-02"), stay.Format("01-02"), "riverside", "double", "Riverside"} {
		if bytes.Contains(b, []byte(private)) {
			t.Fatalf("the partner's outcome names %q: %s", private, b)
		}
	}
	for _, row := range body["rows"].([]any) {
		for k := range row.(map[string]any) {
			switch k {
			case "obligation", "clicks", "conversions", "refunds", "revenue", "earned", "attested_conversions", "sources":
			default:
				t.Fatalf("outcome row has %q: %s", k, b)
			}
		}
	}
}

// TestReferralConversions is the life of a booking a partner sent, end
// to end on both engines: through the form after the tracked link, then
// through a USP platform with the partner's code; outside the window and
// after revocation nothing is attributed.
func TestReferralConversions(t *testing.T) { onReferralEngines(t, runReferral) }

// onReferralEngines runs run on a SQLite store ("") and on a fresh
// PostgreSQL schema.
func onReferralEngines(t *testing.T, run func(t *testing.T, database string)) {
	t.Run("sqlite", func(t *testing.T) { run(t, "") })
	t.Run("postgres", func(t *testing.T) {
		pgtest.DSN(t)
		run(t, pgtest.Schema(t))
	})
}

func runReferral(t *testing.T, database string) {
	w := startReferral(t, database)
	click := w.follow()
	ref := w.bookForm(grace, click, "")
	w.decide(ref, reservation.Confirmed)
	total := w.total(ref)
	p := w.payout(w.partner, "")
	if p["state"] != "held" || p["amount"].(map[string]any)["amount_minor"] != float64(total/10) || p["basis"] != "attestation" || p["rail"] != "manual" {
		t.Fatalf("payout = %v, want held %d", p, total/10)
	}
	// One booking alone would describe one guest: its outcome waits (§14.1).
	w.week()
	if o := w.outcomes(); len(o) != 0 {
		t.Fatalf("an outcome of one booking was sent: %v", o)
	}
	// The guest cancels before the stay, in chat with the code mailed to
	// them: the sale is refunded and its payout reversed; the outcome now
	// holds two events.
	w.guestCancels(ref, grace)
	if p := w.payout(w.partner, p["payout"].(string)); p["state"] != "reversed" {
		t.Fatalf("payout after the cancellation = %v", p)
	}
	w.week()
	o := w.outcomes()
	if len(o) != 1 {
		t.Fatalf("outcomes = %v", o)
	}
	row := o[0]["rows"].([]any)[0].(map[string]any)
	if row["conversions"] != float64(1) || row["refunds"] != float64(1) || row["revenue"].(map[string]any)["amount_minor"] != float64(0) {
		t.Fatalf("outcome row = %v", row)
	}
	onlyMoney(t, o[0], grace, ref, testNow.AddDate(0, 0, 30))
	runReferralSettle(t, w)
	runReferralElsewhere(t, w)
}

// runReferralSettle: a stay the partner sent is kept; once its hold has
// passed the owner sees the payout to settle on the dashboard, marks it
// sent with the rail's reference, the partner confirms it paid, and the
// completed stay is final.
func runReferralSettle(t *testing.T, w *referralWorld) {
	ref := w.bookForm(alan, w.follow(), "")
	w.decide(ref, reservation.Confirmed)
	w.clock.Advance(25 * time.Hour)
	w.sweep()
	var payable map[string]any
	for _, p := range w.payouts() {
		if p["state"] == "payable" {
			payable = p
		}
	}
	if payable == nil || payable["amount"].(map[string]any)["amount_minor"] != float64(w.total(ref)/10) {
		t.Fatalf("payouts after the hold = %v", w.payouts())
	}
	id := payable["payout"].(string)
	olga := signIn(t, w.main, "olga")
	_, _, page := olga.do("GET", "/staff/", nil)
	for _, want := range []string{`<section id="partners">`, `<span class="door">form 2</span>`, `<h3>Deal ` + w.deal + `</h3><p>Partner <span class="partner"><strong class="partner-name">Riverbend Travel</strong> <small class="party-id">` + w.partner.id + `</small></span>`,
		`<span class="booked">2</span> booked</li><li><span class="refunded">1</span> refunded</li><li><span class="stayed">0</span> stayed`,
		`<dd class="held">$0.00</dd>`, `<dd class="payable">` + dollars(w.total(ref)/10) + `</dd>`, `<dd class="paid">$0.00</dd>`,
		`name="payout" value="` + id + `"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("dashboard lacks %q: %s", want, page)
		}
	}
	carl := signIn(t, w.main, "carl")
	if _, _, page := carl.do("GET", "/staff/", nil); strings.Contains(page, `id="partners"`) {
		t.Fatal("a clerk sees what partners are owed")
	}
	if status, _, _ := carl.do("POST", "/staff/referrals/settle", url.Values{"csrf": {carl.csrf}, "deal": {w.deal}, "payout": {id}, "ref": {"bank-0001"}}); status != http.StatusForbidden {
		t.Fatalf("a clerk settles: %d", status)
	}
	if status, _, body := olga.do("POST", "/staff/referrals/settle", url.Values{"csrf": {olga.csrf}, "deal": {w.deal}, "payout": {id}, "ref": {"bank-0001"}}); status != http.StatusSeeOther {
		t.Fatalf("settle = %d %s", status, body)
	}
	if p := w.payout(w.partner, id); p["state"] != "sent" || p["ref"] != "bank-0001" {
		t.Fatalf("payout after settle = %v", p)
	}
	if status, _, _ := olga.do("POST", "/staff/referrals/settle", url.Values{"csrf": {olga.csrf}, "deal": {w.deal}, "payout": {id}, "ref": {"bank-0002"}}); status != http.StatusConflict {
		t.Fatalf("settling twice = %d", status)
	}
	w.step(w.partner, w.msg(w.partner, "payout", map[string]any{"deal": w.deal}, map[string]any{"payout": id, "answer": "confirm"}))
	if p := w.payout(w.partner, id); p["state"] != "paid" {
		t.Fatalf("payout after the partner's confirm = %v", p)
	}
	// Staff complete a stay once it has begun.
	w.clock.Advance(31 * 24 * time.Hour)
	w.decide(ref, reservation.Completed)
	olga = signIn(w.tt, w.main, "olga") // the earlier session has ended
	_, _, page = olga.do("GET", "/staff/", nil)
	for _, want := range []string{`<span class="stayed">1</span> stayed</li></ul>`, `<dd class="payable">$0.00</dd>`, `<dd class="paid">` + dollars(w.total(ref)/10) + `</dd>`, `<span class="owed">$0.00</span>`} {
		if !strings.Contains(page, want) {
			t.Fatalf("dashboard after the stay lacks %q: %s", want, page)
		}
	}
}

// dollars writes minor units of USD as the staff screen does, for
// amounts under a thousand dollars.
func dollars(minor int64) string { return fmt.Sprintf("$%d.%02d", minor/100, minor%100) }

// runReferralElsewhere continues on the world of runReferral: a USP
// booking with the partner's code pays the partner and its cancellation
// by the platform reverses it; a booking more than 30 days after the
// click, and one with the code after the deal was revoked, attribute
// nothing.
func runReferralElsewhere(t *testing.T, w *referralWorld) {
	before := len(w.payouts())
	id := w.bookUSP(w.code)
	total := w.total(id)
	ps := w.payouts()
	if len(ps) != before+1 || total == 0 {
		t.Fatalf("payouts after the USP booking = %v (total %d)", ps, total)
	}
	var usp map[string]any
	for _, p := range ps {
		if p["state"] == "held" {
			usp = p
		}
	}
	if usp == nil || usp["amount"].(map[string]any)["amount_minor"] != float64(total/10) {
		t.Fatalf("USP booking's payout = %v, want %d held", ps, total/10)
	}
	// The attribution commits with the reservation or not at all: a
	// second booking of the full slot with the code records nothing.
	if status, body := w.createUSP(w.slot, w.code); status == 201 || !strings.Contains(body, "slot_unavailable") {
		t.Fatalf("booking a full slot = %d %s", status, body)
	}
	if n := len(w.payouts()); n != before+1 {
		t.Fatalf("a booking that failed earned a payout: %d payouts", n)
	}
	// A code of the wrong shape is refused and books nothing.
	if status, body := w.createUSP(w.slot, "no"); status != 422 || !strings.Contains(body, "_meta.orp.code") {
		t.Fatalf("a malformed code = %d %s", status, body)
	}
	if status, _, body := post(t, w.url+"/usp/bookings/"+id+"/cancel", w.platform, `{"reason":"plans changed"}`); status != 200 {
		t.Fatalf("platform cancel = %d %s", status, body)
	}
	w.relay()
	if p := w.payout(w.partner, usp["payout"].(string)); p["state"] != "reversed" {
		t.Fatalf("USP payout after the cancellation = %v", p)
	}

	// Through the USP MCP binding the code rides in _meta beside
	// _meta.usp.
	profile := strings.TrimSuffix(strings.TrimPrefix(w.platform["USP-Agent"], `profile="`), `"`)
	cs := connect(t, w.url+"/usp/mcp", "2025-11-25")
	res, out := callTool(t, cs, "usp_bookings_create", map[string]any{
		"service_id": "svc_airport_shuttle", "slot_id": w.slot,
		"buyer": map[string]any{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"},
		"_meta": map[string]any{"orp": map[string]any{"code": w.code}, "usp": map[string]any{"profile": profile, "idempotency_key": "7d3c1f0a-2b4e-4c6d-8e9f-a0b1c2d3e4f5",
			"authorization": map[string]any{"mechanism": "api_key", "credential": demoPlatformKey}}},
	})
	if res.IsError || out["booking"] == nil {
		t.Fatalf("usp_bookings_create = %v", out)
	}
	if n := len(w.payouts()); n != before+2 {
		t.Fatalf("a USP MCP booking with the code: %d payouts, want %d", n, before+2)
	}
	before++

	// A hold is not a booking and earns nothing; the booking it becomes
	// with the code does.
	day := w.clock.Now().AddDate(0, 0, 3).Format("2006-01-02")
	_, _, body := post(t, w.url+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q}`, day, day))
	slot := decodeJSON(t, body)["slots"].([]any)[1].(map[string]any)["id"].(string)
	status, _, body := post(t, w.url+"/usp/availability/holds", w.platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q}`, slot))
	if status != 201 || len(w.payouts()) != before+1 {
		t.Fatalf("hold = %d %s, %d payouts", status, body, len(w.payouts()))
	}
	hold := decodeJSON(t, body)["hold"].(map[string]any)["id"].(string)
	status, _, body = post(t, w.url+"/usp/bookings", w.platform, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,"hold_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"},"_meta":{"orp":{"code":%q}}}`, slot, hold, w.code))
	if status != 201 || len(w.payouts()) != before+2 {
		t.Fatalf("the hold's booking = %d %s, %d payouts", status, body, len(w.payouts()))
	}
	before++

	// Outside the window: a click, then a booking 31 days later.
	click := w.follow()
	w.clock.Advance(31 * 24 * time.Hour)
	late := w.bookForm(alan, click, "")
	w.decide(late, reservation.Confirmed)
	if n := len(w.payouts()); n != before+1 {
		t.Fatalf("a booking outside the window earned a payout: %d payouts", n)
	}

	// A code of the wrong shape on the form is a problem to fix, with
	// what the guest typed kept; nothing is saved.
	bad := w.stayForm(grace, "no!")
	bad.Set("signature", signaturetest.Drawn(t))
	bad.Set("token", formToken(t, w.url+"/book/riverside"))
	if status, body := postForm(t, w.url+"/book/riverside", bad, nil); status != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "A partner code is 4 to 32 letters or digits") || !strings.Contains(body, `value="no!"`) {
		t.Fatalf("a malformed code on the form = %d %s", status, body)
	}
	// A code typed on the form is attributed without any click.
	seen := w.payouts()
	typed := w.bookForm(grace, "", w.code)
	ps = w.payouts()
	if len(ps) != before+2 {
		t.Fatalf("a code typed on the form: %d payouts, want %d", len(ps), before+2)
	}
	before++
	w.decide(typed, reservation.Declined)
	for id := range ps {
		if seen[id] == nil {
			if p := w.payout(w.partner, id); p["state"] != "reversed" || p["amount"].(map[string]any)["amount_minor"] != float64(w.total(typed)/10) {
				t.Fatalf("payout after the decline = %v", p)
			}
		}
	}

	// A staff decision from the command line settles an attributed
	// booking as the staff screen does: the decline refunds it.
	seen = w.payouts()
	byCLI := w.bookForm(alan, "", w.code)
	demo, err := os.ReadFile("../../config/demo.toml")
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "frontdesk.toml")
	os.WriteFile(conf, bytes.Replace(demo, []byte("\n[orp]\n"), []byte("\n[orp]\nbusiness_party = \""+w.business.id+"\"\n"), 1), 0o600)
	store := []string{"--data", w.main.Config.Store.DataDir}
	if w.main.Config.Store.Database != "" {
		store = []string{"--database", w.main.Config.Store.Database}
	}
	if out, errOut, err := runCmd(t, append([]string{"staff", "decline", "--config", conf, byCLI}, store...)...); err != nil {
		t.Fatalf("staff decline = %v %s %s", err, out, errOut)
	}
	reversed := 0
	for id, p := range w.payouts() {
		if seen[id] == nil && p["state"] == "reversed" {
			reversed++
		}
	}
	if reversed != 1 {
		t.Fatalf("after a decline from the command line: %v", w.payouts())
	}
	before++

	// After revocation the code is plain: nothing is attributed.
	if m := w.step(w.business, w.msg(w.business, "revoke", map[string]any{"deal": w.deal}, map[string]any{"scope": "deal", "reason": "owner_request"})); m["type"] == "error" {
		t.Fatalf("revoke = %v", m)
	}
	w.sweep()
	if d := w.orpServer.deal(w.partner, w.deal); d["state"] != "revoked" {
		t.Fatalf("deal after revoke = %v", d["state"])
	}
	w.bookUSP(w.code)
	if n := len(w.payouts()); n != before+1 {
		t.Fatalf("a booking after revocation earned a payout: %d payouts", n)
	}
	// The revoked deal's final outcome is sent whatever it holds, and
	// still says counts and money only.
	o := w.outcomes()
	if last := o[len(o)-1]; last["final"] != true {
		t.Fatalf("no final outcome: %v", o)
	} else {
		onlyMoney(t, last, alan, id, w.clock.Now())
	}
}

// TestReferralPairedWorlds runs one referral's life in two worlds that
// differ only in the guest's private facts (name, email, phone, notes):
// everything the partner receives is the same byte for byte.
func TestReferralPairedWorlds(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) { runPairedWorlds(t, func(*testing.T) string { return "" }) })
	t.Run("postgres", func(t *testing.T) {
		pgtest.DSN(t)
		runPairedWorlds(t, func(t *testing.T) string { return pgtest.Schema(t) })
	})
}

func runPairedWorlds(t *testing.T, fresh func(*testing.T) string) {
	world := func(g guest) []byte {
		w := startReferral(t, fresh(t))
		ref := w.bookForm(g, w.follow(), "")
		w.decide(ref, reservation.Confirmed)
		w.week()
		w.guestCancels(ref, g)
		w.week()
		if len(w.outcomes()) != 1 || len(w.payouts()) != 1 {
			t.Fatalf("outcomes %v, payouts %v", w.outcomes(), w.payouts())
		}
		b, err := json.Marshal(w.inbox(w.partner))
		if err != nil {
			t.Fatal(err)
		}
		w.stop()
		return b
	}
	a, b := world(grace), world(alan)
	if !bytes.Equal(a, b) {
		t.Fatalf("the partner's view differs with the guest:\n%s\n%s", a, b)
	}
	for _, private := range []string{grace.name, grace.email, alan.name, alan.email} {
		if bytes.Contains(a, []byte(private)) {
			t.Fatalf("the partner's inbox names %q", private)
		}
	}
}

// TestReferralSettlesAfterACrash: two attributed bookings' cancellations
// commit and the process stops before any relay ran. The server started
// again on the same store, its desk and ledger built anew, settles both
// ends from the outbox: each refund conversion is stored once, however
// often the server restarts and relays again. Both refunds change the
// same deal's records, so they commit one after the other: one relay
// transaction for both would swap the versions read before either.
func TestReferralSettlesAfterACrash(t *testing.T) { onReferralEngines(t, runReferralCrash) }

func runReferralCrash(t *testing.T, database string) {
	ctx := context.Background()
	w := startReferral(t, database)
	refs := []string{w.bookForm(grace, "", w.code), w.bookForm(alan, "", w.code)}
	for _, ref := range refs {
		w.decide(ref, reservation.Confirmed)
	}
	if n := len(w.payouts()); n != 2 {
		t.Fatalf("%d payouts, want 2", n)
	}
	w.stop()
	// A desk with no relay commits the cancellation, as a process killed
	// right after the commit leaves it.
	st, err := openStore(ctx, w.main.Config.Store)
	if err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Minute)
	for _, ref := range refs {
		r, err := reservation.Get(ctx, st, ref)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := reservation.NewDesk(st).Cancel(ctx, reservation.Change{Read: r, By: "guest", At: w.clock.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		// The host keys its records by the clock: a restart at the very
		// instant of the last write would reuse a key.
		w.clock.Advance(time.Minute)
		w.restart()
		w.relay() // the restarted server's first pass
		if err := w.main.bookings.Desk().Relay(ctx); err != nil {
			t.Fatal(err)
		}
		for id, p := range w.payouts() {
			if p["state"] != "reversed" {
				t.Fatalf("payout %s after the restart = %v", id, p)
			}
		}
		if n := refundsStored(t, w.main.store); n != 2 {
			t.Fatalf("%d refund conversions stored, want 2", n)
		}
	}
}

// refundsStored counts the refund conversions the host stored.
func refundsStored(t *testing.T, st store.Records) int {
	t.Helper()
	recs, err := st.List(context.Background(), "orp.conv", "", "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range recs {
		var c struct{ Refund bool }
		if err := json.Unmarshal(rec.Value, &c); err != nil {
			t.Fatal(err)
		}
		if c.Refund {
			n++
		}
	}
	return n
}
