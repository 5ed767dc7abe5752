package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/internal/jwk"
	"frontdesk/usp/usptest"
)

// headersOf is the one value of each of r's headers, as send takes them.
func headersOf(r *http.Request) map[string]string {
	h := map[string]string{}
	for k := range r.Header {
		h[k] = r.Header.Get(k)
	}
	return h
}

// TestSplitUSP: a platform calls the hub's USP endpoints alone. The hub
// answers the profile and the catalog from its config; a query, a hold
// and a booking naming Riverside Inn's room go to Riverside Inn, which
// checks the platform's key and fetches its profile itself, and the
// booking lands in its store alone; the booking is read back through the
// hub by its reference.
func TestSplitUSP(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitUSP(t, engine) })
	}
}

func testSplitUSP(t *testing.T, engine string) {
	// A second platform signs its requests (RFC 9421) with the key its
	// profile publishes, over the authority it calls: the hub's.
	signer, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := jwk.FromPublic(&signer.PublicKey, "split-2026")
	if err != nil {
		t.Fatal(err)
	}
	pk := pub.Publish()
	pk.Use, pk.Alg = "sig", "ES256"
	keys, _ := json.Marshal([]jwk.Public{pk})
	plat := usptest.NewPlatforms(t, map[string]string{"/demo-platform.json": e2eProfile, "/demo-waitlist.json": e2eWaitlistProfile,
		"/signed.json": strings.TrimSuffix(e2eProfile, "}") + `,"keys":` + string(keys) + `}`})
	// The locations fetch the platform's profile over TLS: they trust the
	// test server's certificate as a system root.
	roots := filepath.Join(t.TempDir(), "roots.pem")
	if err := os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: plat.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startSplit(t, engine, "SSL_CERT_FILE="+roots)
	platform := map[string]string{"Authorization": "Bearer " + demoPlatformKey, "USP-Agent": `profile="` + plat.URL + `/demo-platform.json"`}

	// The hub's profile names both bindings at its own address.
	status, _, body := send(t, "GET", d.hub+"/.well-known/usp", nil, nil)
	if status != http.StatusOK || !strings.Contains(body, `"`+d.hub+`/usp"`) || !strings.Contains(body, `"`+d.hub+`/usp/mcp"`) {
		t.Fatalf("the hub's profile = %d\n%s", status, body)
	}
	if status, _, body = post(t, d.hub+"/usp/services/list", nil, `{}`); status != http.StatusOK ||
		!strings.Contains(body, `"svc_riverside_double"`) || !strings.Contains(body, `"svc_airport_shuttle"`) {
		t.Fatalf("the hub's catalog = %d\n%s", status, body)
	}
	day := time.Now().AddDate(0, 0, 40).Format(time.DateOnly)
	status, _, body = post(t, d.hub+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_riverside_double","start_date":%q,"end_date":%q}`, day, day))
	var query struct {
		Slots []struct {
			ID string `json:"id"`
		} `json:"slots"`
	}
	if json.Unmarshal([]byte(body), &query); status != http.StatusOK || len(query.Slots) == 0 {
		t.Fatalf("query through the hub = %d\n%s", status, body)
	}
	slot := query.Slots[0].ID
	status, _, body = post(t, d.hub+"/usp/availability/holds", platform, fmt.Sprintf(`{"service_id":"svc_riverside_double","slot_id":%q}`, slot))
	var held struct {
		Hold struct {
			ID string `json:"id"`
		} `json:"hold"`
	}
	if json.Unmarshal([]byte(body), &held); status != http.StatusCreated || !strings.HasPrefix(held.Hold.ID, "hold_RIV-") {
		t.Fatalf("hold through the hub = %d\n%s", status, body)
	}
	status, _, body = post(t, d.hub+"/usp/bookings", platform, fmt.Sprintf(`{"service_id":"svc_riverside_double","slot_id":%q,"hold_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada.usp@example.com","phone_number":"+13035550199"}}`, slot, held.Hold.ID))
	var booked struct {
		Booking struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"booking"`
	}
	if json.Unmarshal([]byte(body), &booked); status != http.StatusCreated || !strings.HasPrefix(booked.Booking.ID, "RIV-") {
		t.Fatalf("booking through the hub = %d\n%s", status, body)
	}
	ref := booked.Booking.ID
	if !strings.Contains(d.staffList(t, "riverside"), ref) {
		t.Fatalf("riverside's store does not hold %s", ref)
	}
	for _, other := range []string{"hub", "oldtown", "airport"} {
		if strings.Contains(d.staffList(t, other), ref) {
			t.Fatalf("%s's store holds %s", other, ref)
		}
	}
	if status, _, body = send(t, "GET", d.hub+"/usp/bookings/"+ref, platform, nil); status != http.StatusOK || !strings.Contains(body, `"id":"`+ref+`"`) {
		t.Fatalf("the booking read through the hub = %d\n%s", status, body)
	}
	// A signed hold: the location checks the signature over the hub's
	// authority, which the hub forwards as the Host it was called at.
	signedHold := fmt.Sprintf(`{"service_id":"svc_riverside_double","slot_id":%q}`, query.Slots[len(query.Slots)-1].ID)
	req, _ := http.NewRequest(http.MethodPost, d.hub+"/usp/availability/holds", strings.NewReader(signedHold))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("USP-Agent", `profile="`+plat.URL+`/signed.json"`)
	digest, _ := httpsig.ContentDigest([]byte(signedHold), httpsig.SHA256)
	req.Header.Set("Content-Digest", digest)
	var cs []httpsig.Component
	for _, c := range []string{"@method", "@authority", "@path", "usp-agent", "content-digest", "content-type"} {
		cs = append(cs, httpsig.C(c))
	}
	sig, err := httpsig.Sign(httpsig.Request(req), httpsig.SignOptions{Components: cs}, httpsig.SigningKey{ID: "split-2026", Algorithm: httpsig.ECDSAP256SHA256, Key: signer}, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sig.SetHeaders(req.Header)
	if status, _, body = send(t, req.Method, req.URL.String(), headersOf(req), strings.NewReader(signedHold)); status != http.StatusCreated || !strings.Contains(body, `"hold_RIV-`) {
		t.Fatalf("a signed hold through the hub = %d\n%s", status, body)
	}
	// A wrong key is refused by the location, as in one process, and
	// books nothing.
	wrong := map[string]string{"Authorization": "Bearer wrong-key", "USP-Agent": platform["USP-Agent"]}
	if status, _, body = post(t, d.hub+"/usp/bookings", wrong, fmt.Sprintf(`{"service_id":"svc_riverside_double","slot_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada.usp2@example.com"}}`, slot)); status != http.StatusUnauthorized {
		t.Fatalf("a wrong key through the hub = %d\n%s", status, body)
	}
	// A waitlist entry's own calls go to the location of its service.
	status, _, body = post(t, d.hub+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","start_date":%q,"end_date":%q}`, day, day))
	if json.Unmarshal([]byte(body), &query); status != http.StatusOK || len(query.Slots) == 0 {
		t.Fatalf("shuttle query through the hub = %d\n%s", status, body)
	}
	shuttle := query.Slots[0].ID
	waiting := map[string]string{"Authorization": platform["Authorization"], "USP-Agent": `profile="` + plat.URL + `/demo-waitlist.json"`}
	status, _, body = post(t, d.hub+"/usp/bookings", waiting, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
		"buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada.seat@example.com"}}`, shuttle))
	var seat struct {
		Booking struct {
			Actions []struct {
				ContinueURL string `json:"continue_url"`
			} `json:"actions"`
		} `json:"booking"`
	}
	if json.Unmarshal([]byte(body), &seat); status != http.StatusCreated || len(seat.Booking.Actions) != 1 {
		t.Fatalf("the shuttle's one seat through the hub = %d\n%s", status, body)
	}
	// The seat is paid when booking: its payment page, at the hub's
	// address under a token naming Airport Suites, is that location's.
	pay := seat.Booking.Actions[0].ContinueURL
	if !strings.HasPrefix(pay, d.hub+"/usp/pay/APS.") {
		t.Fatalf("continue_url %q", pay)
	}
	// Airport Suites knows the token and takes no payment online here (the
	// test gives it no provider); the hub would not know the token (404).
	if status, _, body = send(t, "GET", pay, nil, nil); status != http.StatusServiceUnavailable || !strings.Contains(body, "Payment unavailable") {
		t.Fatalf("the seat's payment page through the hub = %d\n%s", status, body)
	}
	status, _, body = post(t, d.hub+"/usp/waitlist", waiting, fmt.Sprintf(`{"service_id":"svc_airport_shuttle","slot_id":%q,
		"buyer":{"first_name":"Dan","last_name":"Waits","email":"dan.waits@example.com"}}`, shuttle))
	var joined struct {
		Entry struct {
			ID string `json:"id"`
		} `json:"entry"`
	}
	if json.Unmarshal([]byte(body), &joined); status != http.StatusCreated || joined.Entry.ID == "" {
		t.Fatalf("waitlist join through the hub = %d\n%s", status, body)
	}
	for _, method := range []string{"GET", "DELETE"} {
		if status, _, body = send(t, method, d.hub+"/usp/waitlist/"+joined.Entry.ID, waiting, nil); status != http.StatusOK {
			t.Fatalf("%s of the waitlist entry through the hub = %d\n%s", method, status, body)
		}
	}
	// A stopped location's calls get USP's service_unavailable problem;
	// another location's are answered.
	d.stop("riverside")
	status, h, body := post(t, d.hub+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_riverside_double","start_date":%q,"end_date":%q}`, day, day))
	if status != http.StatusServiceUnavailable || h.Get("Content-Type") != "application/problem+json" || h.Get("Retry-After") == "" ||
		!strings.Contains(body, `"type":"https://usp-protocol.dev/errors/service-unavailable"`) || !strings.Contains(body, "Riverside Inn cannot be reached just now.") {
		t.Fatalf("a query for a stopped location = %d %v\n%s", status, h, body)
	}
	if status, _, body = post(t, d.hub+"/usp/availability/query", nil, fmt.Sprintf(`{"service_id":"svc_oldtown_single","start_date":%q,"end_date":%q}`, day, day)); status != http.StatusOK {
		t.Fatalf("a query for Old Town Lodge with Riverside Inn stopped = %d\n%s", status, body)
	}
}

// TestSplitGuestSearch: the guest site's search at the hub counts each
// location's free rooms from that location's store (a stay booked at
// Riverside Inn leaves one room fewer there), and a stopped location is
// named as unread while the others' rooms are still offered.
func TestSplitGuestSearch(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitGuestSearch(t, engine) })
	}
}

func testSplitGuestSearch(t *testing.T, engine string) {
	d := startSplit(t, engine)
	in := time.Now().AddDate(0, 0, 30).Format(time.DateOnly)
	out := time.Now().AddDate(0, 0, 32).Format(time.DateOnly)
	search := func() string {
		t.Helper()
		status, _, body := send(t, "GET", d.hub+"/search?checkin="+in+"&checkout="+out+"&guests=1", nil, nil)
		if status != http.StatusOK {
			t.Fatalf("GET /search at the hub = %d\n%s", status, body)
		}
		return body
	}
	free := func(page, id string) int {
		t.Helper()
		m := regexp.MustCompile(`(\d+) rooms? of this kind free\.</p>\s*<p class="go"><a href="[^"]*" class="button" id="` + id + `"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the search offers no %s:\n%s", id, page)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	before := free(search(), "offer-riverside-double")

	cs := connect(t, d.hub+"/mcp", "2025-11-25")
	res, started := callTool(t, cs, "start_booking", map[string]any{"property": "riverside", "roomtype": "double", "checkin": in, "checkout": out,
		"guest_name": "Ada Lovelace", "email": "ada.search@example.com", "phone": "+1 303 555 0199"})
	if res.IsError {
		t.Fatalf("start: %s", text(res))
	}
	code := latestCode(t, d.origins["riverside"], "ada.search@example.com")
	if res, _ = callTool(t, cs, "confirm_booking", map[string]any{"booking_id": started["booking_id"], "code": code}); res.IsError {
		t.Fatalf("confirm: %s", text(res))
	}
	page := search()
	if after := free(page, "offer-riverside-double"); after != before-1 {
		t.Fatalf("riverside's doubles free at the hub: %d before the booking, %d after", before, after)
	}
	if strings.Contains(page, "could not be read") {
		t.Fatalf("every location answered, yet the search names one unread:\n%s", page)
	}

	d.stop("oldtown")
	page = search()
	unread := "Old Town Lodge could not be read just now: call "
	if !strings.Contains(page, unread) || strings.Contains(page, `id="offer-oldtown-`) || free(page, "offer-riverside-double") != before-1 {
		t.Fatalf("the search with Old Town Lodge stopped names it unread, offers none of its rooms and the others':\n%s", page)
	}
	if strings.Contains(page, "Old Town Lodge:") || strings.Contains(page, `id="none"`) {
		t.Fatalf("an unread location's rooms are given a reason, or nothing is said free:\n%s", page)
	}
}

// TestSplitORP: the hub forwards every ORP door to the location its
// config names (split.orp_location, Riverside Inn in the demo): partners
// join, offer, accept and approve through the hub and meet Riverside
// Inn's host, whose store keeps them, and the deal's tracked link, at
// the hub's /go/, sends a browser to the property's form on its own site
// with its click id.
func TestSplitORP(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitORP(t, engine) })
	}
}

func testSplitORP(t *testing.T, engine string) {
	const riversideSite = "https://riverside.samplestays.example" // the demo's domain for Riverside Inn
	d := startSplit(t, engine)
	s := &orpServer{t: t, url: d.hub, clock: clock.NewFixed(time.Now())}
	business := s.join("{}")
	terms := map[string]any{
		"title": "Riverside Inn: 10% of every stay you send us", "kind": "affiliate",
		"disclosure": map[string]any{"label": "Affiliate link", "lang": "en"},
		"obligations": []any{
			map[string]any{"id": "place", "by": "acceptor", "action": "place", "content": map[string]any{"link": true, "code": true},
				"destination": riversideSite + "/book/riverside", "proof": []string{"link"}},
			map[string]any{"id": "commission", "by": "offerer", "action": "pay", "per": "conversion", "rate_bps": 1000, "window": "P30D",
				"hold": "P1D", "rail": "manual", "proof": []string{"attestation"}},
		},
	}
	code, m := s.send(business, s.msg(business, "offer", nil, map[string]any{"terms": terms}))
	if code != http.StatusOK {
		t.Fatalf("offer through the hub = %d %v", code, m)
	}
	listed := s.approve(business, obody(m)["waiting"].(map[string]any)["url"].(string))
	partner := s.join(`{"agent": {"name": "Riverbend Travel", "version": "1.0"}}`)
	_, m = s.send(partner, s.msg(partner, "accept", nil, map[string]any{"offer": obody(listed)["id"], "terms_hash": obody(m)["terms_hash"]}))
	deal, _ := m["deal"].(string)
	if active := s.approve(partner, obody(m)["waiting"].(map[string]any)["url"].(string)); obody(active)["state"] != "active" {
		t.Fatalf("deal through the hub = %v, want active", active)
	}
	link := trackedLink(s.deal(partner, deal), "place")
	if !strings.HasPrefix(link, d.hub+"/go/") {
		t.Fatalf("tracked link %q is not the hub's", link)
	}
	status, loc := s.click("GET", link, map[string]string{"User-Agent": browserUA})
	if status != http.StatusFound || !strings.HasPrefix(loc, riversideSite+"/book/riverside?") || !strings.Contains(loc, "via=") {
		t.Fatalf("the tracked link at the hub = %d %s", status, loc)
	}
	// The partner is Riverside Inn's party: its own origin knows the
	// token, another location's does not.
	for slug, want := range map[string]int{"riverside": http.StatusOK, "oldtown": http.StatusUnauthorized} {
		at := &orpServer{t: t, url: d.origins[slug], clock: s.clock}
		if resp, b := at.do("GET", "/orp/inbox", partner.token, nil, nil); resp.StatusCode != want {
			t.Errorf("the partner's inbox at %s = %d, want %d\n%s", slug, resp.StatusCode, want, b)
		}
	}
}

// TestSplitStaffScreen: staff reach their property's staff screen
// through the hub. The hub's page without a session lists where to sign
// in; a sign-in sent at the hub for Riverside Inn opens a session of
// Riverside Inn's logins, whose token names it, and every page and form
// of that session is Riverside Inn's, with its reservations alone; Old
// Town Lodge's staff see theirs. A stopped location's staff get its 502
// page.
func TestSplitStaffScreen(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { testSplitStaffScreen(t, engine) })
	}
}

func testSplitStaffScreen(t *testing.T, engine string) {
	d := startSplit(t, engine)
	d.addOwner(t, "riverside", "olga")
	d.addOwner(t, "oldtown", "otto")
	in := time.Now().AddDate(0, 0, 20).Format(time.DateOnly)
	out := time.Now().AddDate(0, 0, 22).Format(time.DateOnly)
	cs := connect(t, d.hub+"/mcp", "2025-11-25")
	res, started := callTool(t, cs, "start_booking", map[string]any{"property": "riverside", "roomtype": "double", "checkin": in, "checkout": out,
		"guest_name": "Ada Lovelace", "email": "ada.staff@example.com", "phone": "+1 303 555 0199"})
	if res.IsError {
		t.Fatalf("start: %s", text(res))
	}
	res, confirmed := callTool(t, cs, "confirm_booking", map[string]any{"booking_id": started["booking_id"], "code": latestCode(t, d.origins["riverside"], "ada.staff@example.com")})
	if res.IsError {
		t.Fatalf("confirm: %s", text(res))
	}
	ref := confirmed["reservation_number"].(string)

	anyone := &staffClient{t: t, base: d.hub}
	status, _, body := anyone.do("GET", "/staff/today", nil)
	if status != http.StatusOK || !strings.Contains(body, `<a href="/staff/signin?location=riverside">Riverside Inn</a>`) || !strings.Contains(body, `?location=airport">Airport Suites</a>`) {
		t.Fatalf("the hub's staff page without a session = %d\n%s", status, body)
	}
	if status, _, body = anyone.do("POST", "/staff/signout", url.Values{}); status != http.StatusForbidden {
		t.Fatalf("a staff form with no session at the hub = %d %s", status, body)
	}
	signIn := func(slug, user string) *staffClient {
		t.Helper()
		c := &staffClient{t: t, base: d.hub}
		status, _, page := c.do("GET", "/staff/signin?location="+slug, nil)
		action := `action="/staff/signin?location=` + slug + `"`
		if status != http.StatusOK || !strings.Contains(page, action) {
			t.Fatalf("%s's sign-in page at the hub = %d, want its form's %s\n%s", slug, status, action, page)
		}
		status, h, page := c.do("POST", "/staff/signin?location="+slug, url.Values{"username": {user}, "password": {staffPassword}})
		for _, ck := range (&http.Response{Header: h}).Cookies() {
			if ck.Name == "frontdesk_staff" {
				c.cookie = ck.Value
			}
		}
		if status != http.StatusSeeOther || !regexp.MustCompile(`^[A-Z]{3}\.`).MatchString(c.cookie) {
			t.Fatalf("sign-in of %s at %s through the hub = %d, session %q\n%s", user, slug, status, c.cookie, page)
		}
		_, _, page = c.do("GET", "/staff/signout", nil)
		if m := csrfField.FindStringSubmatch(page); m != nil {
			c.csrf = m[1]
		}
		return c
	}
	olga, otto := signIn("riverside", "olga"), signIn("oldtown", "otto")
	if !strings.HasPrefix(olga.cookie, "RIV.") || !strings.HasPrefix(otto.cookie, "OTL.") || olga.csrf == "" {
		t.Fatalf("sessions %q and %q, csrf %q", olga.cookie, otto.cookie, olga.csrf)
	}
	for _, path := range []string{"/staff/reservations", "/staff/reservations/" + ref} {
		if status, _, body = olga.do("GET", path, nil); status != http.StatusOK || !strings.Contains(body, ref) {
			t.Errorf("GET %s at the hub as Riverside Inn's owner = %d, without %s\n%s", path, status, ref, body)
		}
	}
	if status, _, body = olga.do("GET", "/staff/today", nil); status != http.StatusOK || !strings.Contains(body, "<title>Today at Riverside Inn</title>") {
		t.Fatalf("Riverside Inn's day at the hub = %d\n%s", status, body)
	}
	if status, _, body = otto.do("GET", "/staff/reservations", nil); status != http.StatusOK || strings.Contains(body, ref) {
		t.Fatalf("Old Town Lodge's list at the hub = %d, with Riverside Inn's %s: %v", status, ref, strings.Contains(body, ref))
	}
	// A form of the session, sent at the hub, acts at its location.
	if status, h, _ := olga.do("POST", "/staff/signout", url.Values{"csrf": {olga.csrf}}); status != http.StatusSeeOther || h.Get("Location") != "/staff/signin" {
		t.Fatalf("sign-out at the hub = %d %s", status, h.Get("Location"))
	}
	if status, _, _ := olga.do("GET", "/staff/reservations", nil); status != http.StatusSeeOther {
		t.Fatalf("the ended session's list at the hub = %d, want the sign-in redirect", status)
	}
	d.stop("oldtown")
	if status, _, body = otto.do("GET", "/staff/today", nil); status != http.StatusBadGateway || !strings.Contains(body, "Old Town Lodge cannot be reached just now") {
		t.Fatalf("Old Town Lodge's staff page with it stopped = %d\n%s", status, body)
	}
}
