package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"frontdesk/internal/browsertest"
	"frontdesk/internal/clock"
)

// virtualAuthenticator gives the browser a platform authenticator that
// holds passkeys and verifies its user at once, through Chromium's
// WebAuthn domain.
func virtualAuthenticator() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
		return err
	})
}

// TestORP_PasskeyClaimInABrowser claims a party the way its owner would:
// the agent's claim link opened in headless Chromium, a passkey made on
// the page through a virtual authenticator, the owner then on the owner
// page; after signing out, the same passkey signs the owner in again.
// Passkeys need a domain name, so the browser uses localhost.
func TestORP_PasskeyClaimInABrowser(t *testing.T) {
	s := startORP(t, t.TempDir(), "", clock.NewFixed(testNow))
	j := s.joinUnclaimed()
	local := strings.Replace(s.url, "127.0.0.1", "localhost", 1)
	ctx := browsertest.New(t, browsertest.Desktop)
	browsertest.Do(t, ctx, virtualAuthenticator(),
		chromedp.Navigate(strings.Replace(j.Claim, "127.0.0.1", "localhost", 1)),
		chromedp.WaitVisible(`#passkey-form button`),
	)
	browsertest.Submit(t, ctx, `#passkey-form button`)
	page := browsertest.Get(t, ctx, chromedp.Text("body"))
	if !strings.Contains(page, "Your ORP parties") || !strings.Contains(page, j.Party) {
		t.Fatalf("after the passkey claim the page says %q", page)
	}
	if _, b := s.do("GET", j.Claim, "", nil, nil); !strings.Contains(string(b), "already been claimed") {
		t.Fatalf("claim page after the passkey claim = %s", b)
	}
	browsertest.Submit(t, ctx, `form[action="/owner/signout"] button`)
	browsertest.Do(t, ctx, chromedp.Navigate(local+"/owner/signin"), chromedp.WaitVisible(`#passkey-form button`))
	browsertest.Submit(t, ctx, `#passkey-form button`)
	if page := browsertest.Get(t, ctx, chromedp.Text("body")); !strings.Contains(page, j.Party) {
		t.Fatalf("after the passkey sign-in the page says %q", page)
	}
}
