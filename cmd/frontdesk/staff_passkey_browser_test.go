package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
)

// TestStaffPasskeyInABrowser: a signed-in member adds a passkey on the
// staff screen in headless Chromium (a virtual authenticator), signs
// out, and signs in again with the passkey alone, with no password.
// Passkeys need a domain name, so the browser uses localhost.
func TestStaffPasskeyInABrowser(t *testing.T) {
	m := startMain(t, "")
	addStaff(t, m)
	local := strings.Replace(m.URL, "127.0.0.1", "localhost", 1)
	ctx := browsertest.New(t, browsertest.Desktop)
	browsertest.Do(t, ctx, virtualAuthenticator(), chromedp.Navigate(local+"/staff/signin"), chromedp.WaitVisible("#username"),
		chromedp.SendKeys("#username", "olga"), chromedp.SendKeys("#password", staffPassword))
	browsertest.Submit(t, ctx, `form[action="/staff/signin"] button`)
	browsertest.Do(t, ctx, chromedp.Navigate(local+"/staff/passkey"), chromedp.WaitVisible(`#passkey-form button`))
	browsertest.Submit(t, ctx, `#passkey-form button`)
	if page := browsertest.Get(t, ctx, chromedp.Text("body")); !strings.Contains(page, "The passkey was added.") || !strings.Contains(page, "This login has 1 passkey.") {
		t.Fatalf("after adding a passkey the page says %q", page)
	}
	browsertest.Do(t, ctx, chromedp.Navigate(local+"/staff/signout"), chromedp.WaitVisible(`form[action="/staff/signout"] button`))
	browsertest.Submit(t, ctx, `form[action="/staff/signout"] button`)
	browsertest.Do(t, ctx, chromedp.Navigate(local+"/staff/signin"), chromedp.WaitVisible(`#passkey-form button`))
	browsertest.Submit(t, ctx, `#passkey-form button`)
	if page := browsertest.Get(t, ctx, chromedp.Text("body")); !strings.Contains(page, "Sign out olga") {
		t.Fatalf("after the passkey sign-in the page says %q", page)
	}
}
