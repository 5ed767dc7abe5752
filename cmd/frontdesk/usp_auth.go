package main

import (
	"context"
	"strings"
	"time"

	"frontdesk/usp"
	"frontdesk/usp/credential"
	"frontdesk/usp/pop"
	"frontdesk/usp/uspmcp"
)

// uspAuth puts the trust mechanisms in front of the authenticators opts
// already has, in the order they must be tried: a presented
// booking-scoped credential first, so that one bound to a key is never
// taken for anything but itself; then a bare proof of possession and a
// request signature by a key of the caller's profile; then the API keys
// of registered platforms and staff sessions.
func (m *Main) uspAuth(ctx context.Context, opts *usp.Options) error {
	origin := strings.TrimSuffix(opts.Origin, "/")
	verifier := &pop.Verifier{
		Audiences: []string{origin + usp.ProfilePath},
		Replay:    pop.StoreReplay{Records: m.store},
	}
	if m.Config.USP.RequireProofNonce {
		// Every instance shares the secret, so a nonce one issued is
		// good at all of them.
		secret, err := pop.NonceSecret(ctx, m.store, m.Rand, m.Clock.Now())
		if err != nil {
			return err
		}
		verifier.Nonces = pop.MACNonces{Secret: secret, Rand: m.Rand, Lifetime: proofNonceLife}
	}
	creds := &usp.BookingCredentials{
		Issuer:   credential.Issuer{Records: m.store, Rand: m.Rand},
		Verifier: verifier, Reservations: m.store, Origin: origin, Clock: m.Clock,
	}
	if opts.Profiles == nil {
		// One fetcher for negotiation and signature keys, so a profile
		// is fetched once for both.
		p, err := usp.ConfiguredProfiles(opts.Config.Profiles, opts.Config.AllowPrivate, m.Clock, opts.ProfileRootCAs, m.store)
		if err != nil {
			return err
		}
		opts.Profiles = p
	}
	chain := usp.Chain{
		creds,
		&usp.KeyProofs{Verifier: verifier, Origin: origin, Clock: m.Clock},
		&usp.RequestSignatures{Profiles: opts.Profiles, Clock: m.Clock},
	}
	// The API keys of registered platforms and staff sessions come after.
	switch a := opts.Authenticator.(type) {
	case usp.Chain:
		chain = append(chain, a...)
	case nil:
	default:
		chain = append(chain, a)
	}
	opts.Authenticator, opts.Credentials = chain, creds
	m.uspCredentials = creds
	// The MCP binding learns which platform each session acts for, to
	// offer it its webhooks as notifications.
	m.uspWebhooks = uspmcp.NewWebhooks()
	opts.Observe = m.uspWebhooks.Observe
	return nil
}

// proofNonceLife is how long an issued proof nonce is accepted: long
// enough for a platform to sign and send, short beside the jti window.
const proofNonceLife = 5 * time.Minute
