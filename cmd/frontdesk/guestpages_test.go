package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"frontdesk/internal/signature/signaturetest"
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
