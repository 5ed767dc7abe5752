package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/reservation"
)

// TestStayCalendarAndNotFound: the guest's page links its stay as an
// .ics file, one all-day event over the stay's nights, tentative while
// staff have not answered; a mistyped stay or form link and an unknown
// page answer 404 with the site's page and a way back; the stay page
// and the 404 page are kept out of search engines.
func TestStayCalendarAndNotFound(t *testing.T) {
	m := startMain(t, "")
	form := url.Values{
		"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
		"name": {"Grace Hopper"}, "email": {"grace@example.com"}, "phone": {"(303) 555-0142"},
		"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/riverside")},
	}
	status, body := postForm(t, m.URL+"/book/riverside", form, nil)
	ref := findSent(body)
	link := stayLink.FindString(body)
	if status != http.StatusOK || ref == nil || link == "" {
		t.Fatalf("form post = %d: %s", status, body)
	}
	if !strings.Contains(body, `href="`+link+`/stay.ics"`) || !strings.Contains(body, `<meta name="robots" content="noindex">`) {
		t.Fatalf("the sent page lacks the calendar link or noindex: %s", body)
	}
	res, err := http.Get(m.URL + link + "/stay.ics")
	if err != nil {
		t.Fatal(err)
	}
	ics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/calendar; charset=utf-8" {
		t.Fatalf("stay.ics = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, want := range []string{"BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:" + strings.ToLower(ref[1]) + "@riverside",
		"DTSTART;VALUE=DATE:20261230", "DTEND;VALUE=DATE:20270102", "SUMMARY:Stay at Riverside Inn", "STATUS:TENTATIVE", "END:VCALENDAR"} {
		if !strings.Contains(string(ics), want+"\r\n") {
			t.Errorf("stay.ics lacks %q:\n%q", want, ics)
		}
	}

	for _, path := range []string{"/stay/" + strings.Repeat("A", 43), "/stay/short", "/stay/" + strings.Repeat("A", 43) + "/stay.ics", "/book/nowhere", "/no-such-page"} {
		res, err := http.Get(m.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound || !strings.Contains(string(page), "This page is not here") || !strings.Contains(string(page), `<a href="/" id="home">`) {
			t.Errorf("GET %s = %d: %.300s", path, res.StatusCode, page)
		}
	}
}

// TestGuestWithdrawsARequest: the guest's page of a request staff have
// not answered offers to withdraw it; the POST answers 303 and the page
// says it is withdrawn, with the request cancelled and its audit naming
// the guest. A request staff confirmed meanwhile is refused with 422
// and stays confirmed.
func TestGuestWithdrawsARequest(t *testing.T) {
	m := startMain(t, "")
	send := func(email string) (ref []string, page string) {
		t.Helper()
		form := url.Values{
			"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
			"name": {"Grace Hopper"}, "email": {email}, "phone": {"(303) 555-0142"},
			"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/riverside")},
		}
		status, body := postForm(t, m.URL+"/book/riverside", form, nil)
		ref, page = findSent(body), stayLink.FindString(body)
		if status != http.StatusOK || ref == nil || !strings.Contains(body, `action="`+page+`/withdraw"`) {
			t.Fatalf("form post = %d: %s", status, body)
		}
		return ref, page
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	withdraw := func(page string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, m.URL+page+"/withdraw", strings.NewReader(""))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Location"), string(body)
	}

	ref, page := send("grace@example.com")
	status, where, _ := withdraw(page)
	if status != http.StatusSeeOther || where != page+"?done=withdrawn" {
		t.Fatalf("withdraw = %d to %q", status, where)
	}
	_, _, body := get(t, m.URL+where, "", nil)
	if !strings.Contains(body, "Your request is withdrawn") || !strings.Contains(body, `<dd id="state">Cancelled</dd>`) || strings.Contains(body, "/withdraw") {
		t.Fatalf("the page after withdrawing: %s", body)
	}
	view, err := m.office.StaffView(context.Background(), ref[1], func(string) bool { return true })
	if err != nil || view.State != reservation.Cancelled || len(view.Audit) == 0 || view.Audit[len(view.Audit)-1].By != "guest" {
		t.Fatalf("the withdrawn request = %+v, %v", view.Reservation, err)
	}

	ref, page = send("ada@example.com")
	if _, _, err := m.bookings.Core().Decide(context.Background(), reservation.Decision{Reference: ref[1], To: reservation.Confirmed, By: "olga"}); err != nil {
		t.Fatal(err)
	}
	status, _, body = withdraw(page)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "Staff answered this request meanwhile") || !strings.Contains(body, `<dd id="state">Confirmed</dd>`) {
		t.Fatalf("withdrawing a confirmed stay = %d: %s", status, body)
	}
}

// TestGuestCancelsOutsideOfficeHours: the guest's own page takes a
// cancellation until the notice period at any hour, on a Sunday when
// the office is closed too; asking for the code and giving it each
// answer 303. The chat tools keep the office-hours condition.
func TestGuestCancelsOutsideOfficeHours(t *testing.T) {
	m := startMain(t, "")
	form := url.Values{
		"roomtype": {"double"}, "checkin": {"2026-12-30"}, "checkout": {"2027-01-02"}, "guests": {"2"},
		"name": {"Grace Hopper"}, "email": {"grace@example.com"}, "phone": {"(303) 555-0142"},
		"signature": {signaturetest.Drawn(t)}, "token": {formToken(t, m.URL+"/book/riverside")},
	}
	_, body := postForm(t, m.URL+"/book/riverside", form, nil)
	ref := findSent(body)
	if ref == nil {
		t.Fatalf("form post: %s", body)
	}
	if _, _, err := m.bookings.Core().Decide(context.Background(), reservation.Decision{Reference: ref[1], To: reservation.Confirmed, By: "olga"}); err != nil {
		t.Fatal(err)
	}
	page := stayLink.FindString(mailWithSubject(t, m, "Reservation "+ref[1]+" is confirmed").Text)
	// Sunday noon in Denver: the office is closed all day.
	m.Clock.(*clock.Fixed).Set(time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC))
	_, _, body = get(t, m.URL+page, "", nil)
	if !strings.Contains(body, `id="cancel-start"`) {
		t.Fatalf("the page on a Sunday offers no cancellation: %s", body)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(form url.Values) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, m.URL+page+"/cancel", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("Location")
	}
	status, where := post(url.Values{})
	cancelID := regexp.MustCompile(`cancel=(RIV_c_[0-9a-f]{48})`).FindStringSubmatch(where)
	if status != http.StatusSeeOther || cancelID == nil {
		t.Fatalf("asking for the code = %d to %q", status, where)
	}
	m.Clock.(*clock.Fixed).Advance(time.Minute)
	code := latestCode(t, m.URL, "grace@example.com")
	wrong := code[:5] + string('0'+(code[5]-'0'+1)%10)
	if status, _ := post(url.Values{"cancel_id": {cancelID[1]}, "code": {wrong}}); status != http.StatusUnprocessableEntity {
		t.Fatalf("a wrong code = %d, want the core's refusal worded on the page", status)
	}
	status, where = post(url.Values{"cancel_id": {cancelID[1]}, "code": {code}})
	if status != http.StatusSeeOther || where != page+"?done=cancelled" {
		t.Fatalf("giving the code = %d to %q", status, where)
	}
	_, _, body = get(t, m.URL+where, "", nil)
	if !strings.Contains(body, `<dd id="state">Cancelled</dd>`) {
		t.Fatalf("after cancelling: %s", body)
	}
}
