package main

import (
	"strings"

	"frontdesk/usp"
	"frontdesk/usp/credential"
	"frontdesk/usp/pop"
)

// uspAuth sets the authenticators of privileged USP calls on opts, in the
// order they must be tried: a presented booking-scoped credential first,
// so that one bound to a key is never taken for anything but itself; then
// a bare proof of possession, a request signature by a key of the caller's
// profile, and the API keys of registered platforms.
func (m *Main) uspAuth(opts *usp.Options) {
	origin := strings.TrimSuffix(opts.Origin, "/")
	verifier := &pop.Verifier{
		Audiences: []string{origin + usp.ProfilePath},
		Replay:    pop.StoreReplay{Records: m.store},
	}
	creds := &usp.BookingCredentials{
		Issuer:   credential.Issuer{Records: m.store, Rand: m.Rand},
		Verifier: verifier, Reservations: m.store, Origin: origin, Clock: m.Clock,
	}
	chain := usp.Chain{
		creds,
		&usp.KeyProofs{Verifier: verifier, Origin: origin, Clock: m.Clock},
		&usp.RequestSignatures{Profiles: opts.Profiles, Clock: m.Clock},
	}
	if keys := usp.NewAPIKeys(m.Config.USP.Platforms); keys != nil {
		chain = append(chain, keys)
	}
	opts.Authenticator, opts.Credentials = chain, creds
	m.uspCredentials = creds
}
