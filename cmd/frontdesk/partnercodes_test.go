package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/referral"
	"frontdesk/web"
)

var issuedCode = regexp.MustCompile(`Issued code <code>([A-Z0-9]+)</code>`)

// TestPartnerCodes: the owner issues a partner code for a partner's deal
// on the staff screen and the business's agent another over ORP; a guest
// typing one in the form's code field and a platform passing the other
// as _meta.orp.code are both attributed to the partner's deal, on both
// engines. A clerk cannot issue codes.
func TestPartnerCodes(t *testing.T) {
	onReferralEngines(t, func(t *testing.T, database string) {
		w := startReferral(t, database)
		olga := signIn(t, w.main, "olga")
		status, _, page := olga.do("GET", "/staff/partners/codes", nil)
		if status != 200 || !strings.Contains(page, w.deal) || !strings.Contains(page, w.code) || !strings.Contains(page, `<strong class="partner-name">Riverbend Travel</strong>`) {
			t.Fatalf("codes page = %d, want the deal %s, its code and the partner's name", status, w.deal)
		}
		status, h, _ := olga.do("POST", "/staff/partners/codes", url.Values{"csrf": {olga.csrf}, "deal": {w.deal}})
		if status != http.StatusSeeOther {
			t.Fatalf("issue on the staff screen = %d", status)
		}
		_, _, page = olga.do("GET", h.Get("Location"), nil)
		m := issuedCode.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no issued code shown: %s", page)
		}
		staffCode := m[1]
		carl := signIn(t, w.main, "carl")
		if status, _, _ := carl.do("POST", "/staff/partners/codes", url.Values{"csrf": {carl.csrf}, "deal": {w.deal}}); status != http.StatusForbidden {
			t.Fatalf("a clerk issuing = %d, want 403", status)
		}

		resp, body := w.do("POST", "/orp/deals/"+w.deal+"/codes", w.business.token, nil, nil)
		var issued map[string]string
		json.Unmarshal(body, &issued)
		if resp.StatusCode != 200 || issued["deal"] != w.deal || issued["code"] == "" {
			t.Fatalf("issue over ORP = %d %s", resp.StatusCode, body)
		}
		if resp, _ := w.do("POST", "/orp/deals/"+w.deal+"/codes", w.partner.token, nil, nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("the partner issuing = %d, want 403", resp.StatusCode)
		}

		ref := w.bookForm(grace, "", staffCode)
		uspRef := w.bookUSP(issued["code"])
		for _, r := range []string{ref, uspRef} {
			if !attributedTo(t, w, r) {
				t.Fatalf("booking %s with an issued code was not attributed to %s", r, w.deal)
			}
		}
	})
}

func attributedTo(t *testing.T, w *referralWorld, ref string) bool {
	t.Helper()
	bs, err := referral.Bookings(t.Context(), w.main.store)
	if err != nil {
		t.Fatal(err)
	}
	ref = strings.ReplaceAll(ref, " ", "") // the pages show references in groups of four
	for _, b := range bs {
		if b.Reference == ref {
			return b.Deal == w.deal
		}
	}
	return false
}

// TestReferralCookie: a guest who followed a partner's link and returns
// to the form later without it still books for the partner: the form
// kept the click id in a first-party cookie, disclosed beside the code
// field and on the privacy page. With orp.referral_cookie = false no
// cookie is set, a kept one is ignored, and nothing is disclosed.
func TestReferralCookie(t *testing.T) {
	w := startReferral(t, "")
	click := w.follow()
	req, _ := http.NewRequest("GET", w.url+"/book/riverside?via="+click, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var kept *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "frontdesk_ref" {
			kept = c
		}
	}
	if kept == nil || kept.Value != click || kept.Path != "/book/" || !kept.HttpOnly || kept.MaxAge != web.ReferralCookieDays*86400 {
		t.Fatalf("referral cookie = %+v", kept)
	}
	// Later, from a bookmark: no via in the address.
	page := formWithCookie(t, w.url+"/book/riverside", kept)
	hidden := fmt.Sprintf(`<input type="hidden" id="via" name="via" value="%s">`, click)
	if !strings.Contains(page, hidden) || !strings.Contains(page, `id="partner-cookie"`) {
		t.Fatalf("the returning guest's form does not carry the kept click id or its notice")
	}
	if _, _, privacy := send(t, "GET", w.url+"/privacy", nil, nil); !strings.Contains(privacy, `id="referral-cookie"`) {
		t.Fatal("the privacy page does not disclose the referral cookie")
	}
	ref := bookWithPage(t, w, page, alan)
	if !attributedTo(t, w, ref) {
		t.Fatal("the returning guest's booking was not attributed")
	}

	off := false
	w.restartWith(func(c *config.Config) { c.ORP.ReferralCookie = &off })
	resp, err = http.Get(w.url + "/book/riverside?via=" + click)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(resp.Cookies()) != 0 {
		t.Fatalf("cookie set while turned off: %v", resp.Cookies())
	}
	page = formWithCookie(t, w.url+"/book/riverside", kept)
	if strings.Contains(page, `value="`+click+`"`) || strings.Contains(page, `id="partner-cookie"`) {
		t.Fatal("a kept click id was used, or the notice shown, while the cookie is off")
	}
	if _, _, privacy := send(t, "GET", w.url+"/privacy", nil, nil); strings.Contains(privacy, `id="referral-cookie"`) {
		t.Fatal("the privacy page discloses a cookie that is off")
	}
}

func formWithCookie(t *testing.T, u string, c *http.Cookie) string {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}

// bookWithPage sends the form of page signed, with the click id its
// hidden field carries, and returns the reference.
func bookWithPage(t *testing.T, w *referralWorld, page string, g guest) string {
	t.Helper()
	form := w.stayForm(g, "")
	token := formTokenField.FindStringSubmatch(page)
	via := regexp.MustCompile(`name="via" value="([^"]*)"`).FindStringSubmatch(page)
	if token == nil || via == nil {
		t.Fatalf("no token or via field in %s", page)
	}
	form.Set("token", token[1])
	form.Set("via", via[1])
	form.Set("signature", signaturetest.Drawn(t))
	status, body := postForm(t, w.url+"/book/riverside", form, nil)
	ref := sentRef.FindStringSubmatch(body)
	if status != http.StatusOK || ref == nil {
		t.Fatalf("form post = %d: %s", status, body)
	}
	return ref[1]
}
