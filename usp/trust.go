package usp

import (
	"context"
	"io"
	"strings"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/store"
	"frontdesk/usp/credential"
	"frontdesk/usp/pop"
)

// Trust is what the trust mechanisms need: the store, randomness, the
// clock, whether a proof must carry a nonce this server issued, and how
// to build the profile fetcher when the options have none.
type Trust struct {
	Store interface {
		store.Records
		store.Reservations
	}
	Rand              io.Reader
	Clock             clock.Clock
	RequireProofNonce bool
	Profiles          func() (*Profiles, error)
}

// proofNonceLife is how long an issued proof nonce is accepted: long
// enough for a platform to sign and send, short beside the jti window.
const proofNonceLife = 5 * time.Minute

// Install puts the trust mechanisms in front of the authenticators opts
// already has, in the order they must be tried: a presented
// booking-scoped credential first, so that one bound to a key is never
// taken for anything but itself; then a bare proof of possession and a
// request signature by a key of the caller's profile; then the API keys
// of registered platforms and staff sessions. It returns the credentials,
// which serve also sweeps.
func (t Trust) Install(ctx context.Context, opts *Options) (*BookingCredentials, error) {
	origin := strings.TrimSuffix(opts.Origin, "/")
	t.Rand = random.Locked(t.Rand)
	verifier := &pop.Verifier{
		Audiences: []string{origin + ProfilePath},
		Replay:    pop.StoreReplay{Records: t.Store},
	}
	if t.RequireProofNonce {
		// Every instance shares the secret, so a nonce one issued is
		// good at all of them.
		secret, err := pop.NonceSecret(ctx, t.Store, t.Rand, t.Clock.Now())
		if err != nil {
			return nil, err
		}
		verifier.Nonces = pop.MACNonces{Secret: secret, Rand: t.Rand, Lifetime: proofNonceLife}
	}
	creds := &BookingCredentials{
		Issuer:   credential.Issuer{Records: t.Store, Rand: t.Rand},
		Verifier: verifier, Reservations: t.Store, Origin: origin, Clock: t.Clock,
	}
	if opts.Profiles == nil {
		// One fetcher for negotiation and signature keys, so a profile
		// is fetched once for both.
		p, err := t.Profiles()
		if err != nil {
			return nil, err
		}
		opts.Profiles = p
	}
	chain := Chain{
		creds,
		&KeyProofs{Verifier: verifier, Origin: origin, Clock: t.Clock},
		&RequestSignatures{Profiles: opts.Profiles, Clock: t.Clock},
	}
	// The API keys of registered platforms and staff sessions come after.
	switch a := opts.Authenticator.(type) {
	case Chain:
		chain = append(chain, a...)
	case nil:
	default:
		chain = append(chain, a)
	}
	opts.Authenticator, opts.Credentials = chain, creds
	return creds, nil
}
