package usp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"frontdesk/internal/fault"
	"frontdesk/usp/pop"
)

// Credentials are what a caller presented for a privileged method, as the
// binding found them: HTTP-layer credentials (Authorization, RFC 9421
// signature headers) and, over MCP, _meta.usp.authorization. Public
// methods never read them.
type Credentials struct {
	Header        http.Header     // the HTTP request's headers; nil over stdio
	Authorization json.RawMessage // MCP _meta.usp.authorization, as sent
	// Request is the HTTP request line and body a signature covers: REST
	// only; nil over MCP.
	Request *http.Request
	Body    []byte
	// Params are the MCP tool arguments as sent, for proofs that digest
	// them; nil over REST.
	Params json.RawMessage
}

// MCPAuthorization is _meta.usp.authorization (McpAuthorization of the
// OpenRPC document).
type MCPAuthorization struct {
	Mechanism  string `json:"mechanism"`
	Credential string `json:"credential,omitempty"`
	Proof      string `json:"proof,omitempty"`
}

// MCPAuth decodes _meta.usp.authorization; ok is false when the call
// carries none. A member that is not an object is invalid_request.
func (c Credentials) MCPAuth() (a MCPAuthorization, ok bool, err error) {
	if len(c.Authorization) == 0 || string(c.Authorization) == "null" {
		return a, false, nil
	}
	if err := json.Unmarshal(c.Authorization, &a); err != nil {
		return a, false, fail(CodeInvalidRequest, "_meta.usp.authorization must be an object with a mechanism.")
	}
	return a, true, nil
}

// Principal is an authenticated caller: a platform registered in the
// config or known by its key, or a staff member for business-only
// methods.
type Principal struct {
	// ID is who the caller is, for identity binding (§10.1.6): the key
	// the platform's profile URI is recorded against, such as
	// "api_key:shuttlebook" or "jkt:<thumbprint>". Empty for staff.
	ID        string
	Platform  string // platform name, the "usp:<platform>" of its reservations; empty for staff
	Staff     string // staff user; empty for platforms
	Mechanism string // the AuthorizationMechanism that succeeded
	// Booking, when set, limits the principal to one booking or hold
	// reference (a booking-scoped credential).
	Booking string
}

// ErrNoCredential is what an Authenticator returns when the call carries
// no credential of its mechanism, so that the next one in a Chain may
// look. Any other error is a refusal that ends the chain.
var ErrNoCredential = errors.New("usp: no credential of this mechanism")

// Authenticator checks the credentials of a privileged call against the
// business's AuthorizationPolicy (§10.1.6). It returns ErrNoCredential
// when the call carries nothing of its mechanism, and a *Error with an
// authentication code when what it carries does not authenticate.
// Identity binding of the principal to the profile URI is the Business's
// work, after an Authenticator succeeds. Mechanisms (api_key,
// platform_key_pop, booking_scoped_credential, http_message_signature)
// plug in here and compose with Chain.
type Authenticator interface {
	Authenticate(ctx context.Context, m Method, call Call) (Principal, error)
	// Mechanisms are the AuthorizationMechanism names it accepts, as the
	// profile publishes them; a staff-only authenticator publishes none.
	Mechanisms() []string
}

// Chain tries authenticators in order: the first that finds its own
// credential decides. A call that declares a mechanism in
// _meta.usp.authorization that no member accepts is refused, never
// treated as accepted.
type Chain []Authenticator

var _ Authenticator = Chain(nil)

// Authenticate implements Authenticator.
func (c Chain) Authenticate(ctx context.Context, method Method, call Call) (Principal, error) {
	if a, ok, err := call.Credentials.MCPAuth(); err != nil {
		return Principal{}, err
	} else if ok && !slices.Contains(c.accepted(), a.Mechanism) {
		// The declared mechanism is the caller's word, outside any
		// digest: a key-bound credential it carries without a proof is
		// still refused for the missing proof (vector 007), whatever the
		// declaration. Nothing declared this way authenticates.
		for _, m := range c {
			if _, err := m.Authenticate(ctx, method, call); err != nil && !errors.Is(err, ErrNoCredential) {
				if _, ok := fault.Find(err, isProofCode); ok {
					return Principal{}, err
				}
			}
		}
		return Principal{}, fail(CodeAuthenticationRequired, "This business does not accept the %q mechanism; see accepted_mechanisms in its profile.", a.Mechanism)
	}
	for _, a := range c {
		p, err := a.Authenticate(ctx, method, call)
		if errors.Is(err, ErrNoCredential) {
			continue
		}
		return p, err
	}
	return Principal{}, ErrNoCredential
}

// isProofCode reports whether code is a proof-of-possession refusal
// (§9.4.3, the -32001 bucket).
func isProofCode(code Code) bool {
	return strings.HasPrefix(string(code), "pop_") || code == "proof_nonce_required"
}

// Mechanisms implements Authenticator: every member's, each once.
func (c Chain) Mechanisms() []string {
	var out []string
	for _, a := range c {
		for _, name := range a.Mechanisms() {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// accepted adds the internal staff mechanism to the published ones.
func (c Chain) accepted() []string { return append(c.Mechanisms(), MechanismStaff) }

// authorize lets a public method through and sends every other one to the
// authenticator; without one, privileged methods are refused. A platform
// principal is then bound to the profile URI it presents (§10.1.6), and a
// business-only method accepts staff only.
func (b *Business) authorize(ctx context.Context, m Method, call Call) (Principal, error) {
	if m.Access == Public {
		return Principal{}, nil
	}
	if b.auth == nil {
		return Principal{}, fail(CodeAuthenticationRequired, "%s needs an authenticated caller.", m.Name)
	}
	p, err := b.auth.Authenticate(ctx, m, call)
	if errors.Is(err, ErrNoCredential) {
		return Principal{}, fail(CodeAuthenticationRequired, "%s needs credentials of a mechanism this business accepts (%s).", m.Name, joinNames(b.auth.Mechanisms()))
	}
	if err != nil {
		return Principal{}, err
	}
	if m.Access == BusinessOnly {
		if p.Staff == "" {
			return Principal{}, fail(CodeAuthenticationRequired, "%s is for the business's staff; a platform's credentials cannot confirm a booking.", m.Name)
		}
		return p, nil
	}
	if p.Staff != "" {
		return p, nil
	}
	if call.Profile == "" {
		return Principal{}, fail(CodeInvalidRequest, "%s is privileged: it needs the platform's profile URI (_meta.usp.profile or the USP-Agent header).", m.Name)
	}
	// A principal already bound to another URI is refused here, before
	// the profile is fetched; a first contact is recorded by admit only
	// once the whole call has passed.
	if err := b.bindings.Check(ctx, p.ID, call.Profile); err != nil {
		return Principal{}, err
	}
	return p, nil
}

// answer is the result of a privileged operation. It is refused when
// there is none or its messages[] hold an error outcome.
type answer interface{ refused() bool }

func refusedBy(messages []Message) bool {
	return slices.ContainsFunc(messages, func(m Message) bool { return m.Type == "error" })
}

func (r *BookingResult) refused() bool        { return r == nil || refusedBy(r.Messages) }
func (r *HoldResult) refused() bool           { return r == nil || refusedBy(r.Messages) }
func (r *SubscriptionResult) refused() bool   { return r == nil || refusedBy(r.Messages) }
func (r *WaitlistResult) refused() bool       { return r == nil || refusedBy(r.Messages) }
func (r *WaitlistListResult) refused() bool   { return r == nil || refusedBy(r.Messages) }
func (r *WaitlistAcceptResult) refused() bool { return r == nil || refusedBy(r.Messages) }

// admit binds the platform principal p to the profile URI of its call
// (trust on first use, §10.1.6) once the call passed every check: its
// credentials, its profile, its arguments and, for a write, the write,
// which committed before this runs. A call refused anywhere, with an
// error or an error outcome in messages[], binds nothing, so a typo at
// setup cannot lock the real profile out. Every privileged operation
// defers it with its named results:
//
//	defer func() { err = b.admit(ctx, p, call, res, err) }()
//
// A binding that cannot be recorded does not turn the answer into an
// error: the outcome of a write is known and is answered (the next call
// binds instead); only a concurrent first contact naming another URI can
// have won, and later calls are checked against that one.
func (b *Business) admit(ctx context.Context, p Principal, call Call, res answer, err error) error {
	if err != nil || p.ID == "" || p.Staff != "" || res.refused() {
		return err
	}
	if err := b.bindings.Bind(ctx, p.ID, call.Profile, b.clock.Now()); err != nil {
		b.log.WarnContext(ctx, "usp identity binding not recorded", "platform", p.Platform, "err", err)
		return nil
	}
	if b.observe != nil {
		b.observe(ctx, p)
	}
	return nil
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// AuthorizationPolicy is the profile's authorization object (§10.1.6).
type AuthorizationPolicy struct {
	RequireAuthentication bool     `json:"privileged_operations_require_authentication"`
	AcceptedMechanisms    []string `json:"accepted_mechanisms"`
	// AcceptedAlgorithms names, per accepted mechanism that signs, the
	// algorithms its signatures or proofs may use. The policy is an open
	// object for exactly this (§10.1.6, "Algorithms"); a mechanism that
	// signs nothing (api_key) has no entry.
	AcceptedAlgorithms map[string][]string `json:"accepted_algorithms,omitempty"`
}

// algorithmsOf is the accepted_algorithms entry of a mechanism: the JWS
// algorithms of a proof (platform_key_pop, and a key-bound
// booking_scoped_credential's proof) or the RFC 9421 algorithms of a
// request signature.
func algorithmsOf(mechanism string) []string {
	switch mechanism {
	case MechanismPoP, MechanismCredential:
		return pop.Algorithms
	case MechanismSignature:
		out := make([]string, len(SignatureAlgorithms))
		for i, a := range SignatureAlgorithms {
			out[i] = string(a)
		}
		return out
	}
	return nil
}

// policyFor is the authorization policy of an authenticator accepting
// mechanisms.
func policyFor(mechanisms []string) *AuthorizationPolicy {
	p := &AuthorizationPolicy{RequireAuthentication: true, AcceptedMechanisms: mechanisms}
	for _, m := range mechanisms {
		if algs := algorithmsOf(m); algs != nil {
			if p.AcceptedAlgorithms == nil {
				p.AcceptedAlgorithms = map[string][]string{}
			}
			p.AcceptedAlgorithms[m] = algs
		}
	}
	return p
}
