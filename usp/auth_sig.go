package usp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/internal/jwk"
	"frontdesk/usp/keyset"
	"frontdesk/usp/pop"
)

// MechanismSignature is the http_message_signature mechanism (§9.1.4).
const MechanismSignature = "http_message_signature"

// signaturePrincipalPrefix starts the principal of a signing key: "sig:"
// and its thumbprint.
const signaturePrincipalPrefix = "sig:"

// RequestSignatures authenticates REST requests signed with RFC 9421 by a
// key the caller's platform profile publishes (keys, else signing_keys).
// The signature must cover @method, @authority and @path, and @query,
// usp-agent, idempotency-key, content-digest and content-type whenever
// the request has them; a request with a body must carry a Content-Digest
// that matches it. created is optional (§9.1.4): replay protection of
// requests is the signed Idempotency-Key. The principal is the key that
// verified; the platform is the profile's host, so every key of one
// profile acts for the same bookings.
type RequestSignatures struct {
	Profiles *Profiles
	Clock    clock.Clock
}

var _ Authenticator = (*RequestSignatures)(nil)

// Mechanisms implements Authenticator.
func (s *RequestSignatures) Mechanisms() []string { return []string{MechanismSignature} }

// Authenticate implements Authenticator.
func (s *RequestSignatures) Authenticate(ctx context.Context, m Method, call Call) (Principal, error) {
	r := call.Credentials.Request
	if r == nil || (r.Header.Get("Signature-Input") == "" && r.Header.Get("Signature") == "") {
		return Principal{}, ErrNoCredential
	}
	if a, declared, _ := call.Credentials.MCPAuth(); declared && a.Mechanism != MechanismSignature {
		return Principal{}, ErrNoCredential
	}
	if call.Profile == "" {
		return Principal{}, fail(CodeInvalidRequest, "A signed request needs the USP-Agent header naming the platform profile that publishes its key.")
	}
	profile, err := s.Profiles.Get(ctx, call.Profile)
	if err != nil {
		return Principal{}, err
	}
	policy := httpsig.Policy{
		Required:          []string{"@method", "@authority", "@path"},
		RequiredIfPresent: []string{"usp-agent", "idempotency-key", "content-digest", "content-type"},
		// A created parameter may differ from this clock by as much as
		// a proof's iat may (pop.Window), either way: ordinary drift
		// between two hosts' clocks is not an attack.
		Skew:       pop.Window,
		MaxAge:     pop.Window,
		Algorithms: SignatureAlgorithms,
	}
	if r.URL.RawQuery != "" {
		policy.Required = append(policy.Required, "@query")
	}
	keys := keyset.ProfileKeys{Keys: profile.Keys, SigningKeys: profile.SigningKeys}
	verified, err := httpsig.Verify(ctx, httpsig.Request(r), s.Clock.Now(), keys, policy)
	if err == nil && (len(call.Credentials.Body) > 0 || r.Header.Get("Content-Digest") != "") {
		err = httpsig.VerifyContentDigest(r.Header.Values("Content-Digest"), call.Credentials.Body)
	}
	if he, ok := errors.AsType[*httpsig.Error](err); ok {
		return Principal{}, &Error{Code: Code(he.Code), Message: signatureMessages[he.Code], Err: err}
	}
	if err != nil {
		return Principal{}, fmt.Errorf("verify request signature: %w", err)
	}
	k, err := jwk.FromPublic(verified.Key.Key, "")
	if err != nil {
		return Principal{}, fmt.Errorf("verify request signature: %w", err)
	}
	u, _ := url.Parse(call.Profile)
	return Principal{ID: signaturePrincipalPrefix + k.Thumbprint(), Platform: strings.ToLower(u.Hostname()), Mechanism: MechanismSignature}, nil
}

// SignatureAlgorithms are the RFC 9421 algorithms a request signature may
// use; the profile advertises them (§10.1.6).
var SignatureAlgorithms = []httpsig.Algorithm{httpsig.ECDSAP256SHA256, httpsig.Ed25519}

// signatureMessages are safe to show the caller.
var signatureMessages = map[httpsig.Code]string{
	httpsig.CodeMissing:        "The request has no usable Signature-Input and Signature pair.",
	httpsig.CodeInvalid:        "The request signature does not verify, or does not cover @method, @authority, @path and the headers it must.",
	httpsig.CodeKeyNotFound:    "The keyid of the request signature is not a key of the platform profile named by USP-Agent.",
	httpsig.CodeUnsupported:    "The signing key's algorithm is not accepted; sign with ES256 or Ed25519.",
	httpsig.CodeExpired:        "The request signature is outside the freshness window: its created time is more than 60 s from this business's clock, in the past or in the future, or its expires time has passed. Sign again with the current time.",
	httpsig.CodeDigestMismatch: "Content-Digest is missing or does not match the request body.",
}
