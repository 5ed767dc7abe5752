// Package pop verifies USP proofs of possession (the platform_key_pop
// mechanism): compact JWS proofs signed with a key the platform generated
// and never published, whose RFC 7638 thumbprint (jkt) names the
// platform. It implements the verification order of the USP
// specification §10.1.6 for the MCP proof (typ usp-pop+jwt: usp_m, aud,
// usp_p over the JCS of the arguments) and the REST proof (typ dpop+jwt:
// htm, htu), with the jti replay cache and the nonce challenge.
//
// Credentials themselves (known, unexpired, scoped to the resource) are
// checked by usp/credential, which calls this package for the proof.
//
// It imports the store contracts, internal/jwk and the JCS library; no
// adapter and no other USP package.
package pop

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"frontdesk/internal/fault"
	"frontdesk/internal/jwk"
)

// Binding is the transport a proof was made for; each has its own typ and
// claims, so a proof for one cannot be replayed on the other.
type Binding int

// The two bindings.
const (
	MCP  Binding = iota + 1 // typ usp-pop+jwt, in _meta.usp.authorization.proof
	REST                    // typ dpop+jwt (RFC 9449), in the DPoP header
)

func (b Binding) typ() string {
	if b == REST {
		return "dpop+jwt"
	}
	return "usp-pop+jwt"
}

// Algorithms are the JWS algorithms a proof may be signed with; the
// business profile advertises them (§10.1.6).
var Algorithms = []string{"EdDSA"}

// Window is how far iat may lie from now, either way (§10.1.6).
const Window = 60 * time.Second

// Retention is how long a jti is remembered after the last moment its
// proof could be accepted: twice the window, as §10.1.6 requires.
const Retention = 2 * Window

// maxProofLen bounds a proof before any decoding; a real one is well
// under 1 KiB.
const maxProofLen = 8 << 10

// Code is a proof failure, with the USP protocol error code as its value.
type Code = fault.Code

// The proof failures of §10.1.1, each a 401.
const (
	CodeMissing       fault.Code = "pop_proof_missing"
	CodeInvalid       fault.Code = "pop_proof_invalid"
	CodeKeyMismatch   fault.Code = "pop_key_mismatch"
	CodeReplayed      fault.Code = "pop_proof_replayed"
	CodeNonceRequired fault.Code = "proof_nonce_required"
)

// Error is a refused proof, the module's one error type (internal/fault)
// spelled with USP's codes, so the USP door words it like its own.
// Message is safe to show the caller; Err is the cause, for logs. With
// CodeNonceRequired, Values holds the nonce to retry with.
type Error = fault.Error

var messages = map[Code]string{
	CodeMissing:       "A platform_key_pop proof is required and was not presented.",
	CodeInvalid:       "The platform_key_pop proof is not valid.",
	CodeKeyMismatch:   "The proof was not made with the key the credential is bound to.",
	CodeReplayed:      "This proof was already used.",
	CodeNonceRequired: "A fresh proof carrying the nonce given here is required.",
}

func refuse(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: messages[code], Err: fmt.Errorf(format, args...)}
}

// Claims are a proof's claims. Which ones apply depends on the binding and
// on whether a credential is presented.
type Claims struct {
	USPM  string `json:"usp_m,omitempty"` // MCP: the tool name
	Aud   string `json:"aud,omitempty"`   // MCP: a profile URI of the business
	USPP  string `json:"usp_p,omitempty"` // MCP: digest of the canonical arguments
	HTM   string `json:"htm,omitempty"`   // REST: the HTTP method
	HTU   string `json:"htu,omitempty"`   // REST: the request URL without query
	IAT   int64  `json:"iat"`
	JTI   string `json:"jti"`
	ATH   string `json:"ath,omitempty"`   // presentation only
	Nonce string `json:"nonce,omitempty"` // after a challenge
}

// ReplayCache remembers the jti of every accepted proof. Remember returns
// ErrReplayed when the proof was seen before; until is when the record may
// be forgotten.
type ReplayCache interface {
	Remember(ctx context.Context, jkt, jti string, iat, until, now time.Time) error
}

// ErrReplayed is what a ReplayCache returns for a jti it already holds.
var ErrReplayed = errors.New("pop: jti already seen")

// Nonces issues and checks the nonces a business challenges with. A
// Verifier without Nonces does not require them.
type Nonces interface {
	Issue(now time.Time) (string, error)
	Valid(nonce string, now time.Time) bool
}

// Verifier checks proofs for one business.
type Verifier struct {
	// Audiences are the business profile URIs that an MCP proof's aud may
	// name: every URI the business is reachable at.
	Audiences []string
	Replay    ReplayCache
	Nonces    Nonces // nil: no nonce is required
}

// Request is one presentation to verify.
type Request struct {
	Binding Binding
	// Proof is the compact JWS, "" when none was presented.
	Proof string
	// Method is the tool name (MCP) or the HTTP method (REST).
	Method string
	// URL is the request URL (REST).
	URL string
	// Arguments are the MCP tool call's arguments as received,
	// _meta.usp.authorization included; it is stripped here.
	Arguments json.RawMessage
	// Credential and BoundJKT describe the credential presented with the
	// proof: its value and the cnf.jkt recorded when it was issued. Both
	// are empty at issuance, when the proof alone authenticates.
	Credential string
	BoundJKT   string
}

// Proof is an accepted proof: the platform's key, its thumbprint (the
// platform identifier) and the claims.
type Proof struct {
	JKT    string
	Key    jwk.Key
	Claims Claims
}

type header struct {
	Typ  string          `json:"typ"`
	Alg  string          `json:"alg"`
	JWK  json.RawMessage `json:"jwk"`
	Crit json.RawMessage `json:"crit"`
}

var b64 = base64.RawURLEncoding.Strict()

// Verify runs steps 2 and 4 to 12 of the §10.1.6 verification order; the
// credential steps 1 and 3 are the caller's, before this. now is read
// once per operation by the caller. Every refusal is an *Error; any
// other error is an outage of the replay cache or nonce source.
func (v *Verifier) Verify(ctx context.Context, now time.Time, req Request) (Proof, error) {
	// 2. A proof is mandatory with a cnf-bound credential, whatever
	// mechanism the caller declared, and for platform_key_pop itself.
	if req.Proof == "" {
		return Proof{}, refuse(CodeMissing, "no proof presented")
	}
	// 4. It parses and its typ matches the binding.
	if len(req.Proof) > maxProofLen {
		return Proof{}, refuse(CodeInvalid, "proof longer than %d bytes", maxProofLen)
	}
	parts := strings.Split(req.Proof, ".")
	if len(parts) != 3 {
		return Proof{}, refuse(CodeInvalid, "not a compact JWS")
	}
	var h header
	if err := decodeSegment(parts[0], &h); err != nil {
		return Proof{}, refuse(CodeInvalid, "header: %v", err)
	}
	var c Claims
	if err := decodeSegment(parts[1], &c); err != nil {
		return Proof{}, refuse(CodeInvalid, "claims: %v", err)
	}
	if h.Typ != req.Binding.typ() {
		return Proof{}, refuse(CodeInvalid, "typ %q on the %s binding", h.Typ, req.Binding.typ())
	}
	if len(h.Crit) > 0 {
		return Proof{}, refuse(CodeInvalid, "critical header extensions are not understood")
	}
	// 5. EdDSA only, never none or a MAC, and the header key must be an
	// Ed25519 public key: another crv over the same bytes is another
	// thumbprint, so it is refused here, before any thumbprint exists.
	if h.Alg != "EdDSA" {
		e := refuse(CodeInvalid, "alg %q is not accepted", h.Alg)
		e.Message = "The platform_key_pop proof must be signed with EdDSA (an Ed25519 key); no other algorithm is accepted."
		return Proof{}, e
	}
	if len(h.JWK) == 0 {
		return Proof{}, refuse(CodeInvalid, "no jwk in the header")
	}
	key, err := jwk.Parse(h.JWK)
	if err != nil {
		return Proof{}, refuse(CodeInvalid, "header key: %v", err)
	}
	pub, ok := key.Public.(ed25519.PublicKey)
	if !ok {
		return Proof{}, refuse(CodeInvalid, "EdDSA with a %s key", key.Curve())
	}
	// 6. The key is the one the credential is bound to; any kid is
	// ignored. At issuance there is nothing to compare: the thumbprint is
	// what the caller records.
	jkt := key.Thumbprint()
	if req.BoundJKT != "" && subtle.ConstantTimeCompare([]byte(jkt), []byte(req.BoundJKT)) != 1 {
		return Proof{}, refuse(CodeKeyMismatch, "proof key %s, credential bound to %s", jkt, req.BoundJKT)
	}
	// 7. The signature verifies against that key.
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Proof{}, refuse(CodeInvalid, "signature is not 64 base64url bytes")
	}
	if !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return Proof{}, refuse(CodeInvalid, "signature does not verify")
	}
	// 8 and 9. The proof is for this business, this operation and these
	// arguments.
	if err := v.checkTarget(c, req); err != nil {
		return Proof{}, err
	}
	// 10. ath binds the credential at presentation and is absent at
	// issuance.
	switch {
	case req.Credential == "" && c.ATH != "":
		return Proof{}, refuse(CodeInvalid, "ath present at issuance")
	case req.Credential != "" && subtle.ConstantTimeCompare([]byte(c.ATH), []byte(Hash(req.Credential))) != 1:
		return Proof{}, refuse(CodeInvalid, "ath does not match the credential")
	}
	// 11. Fresh, and carrying our nonce when we require one.
	iat := time.Unix(c.IAT, 0)
	if c.JTI == "" || c.IAT == 0 {
		return Proof{}, refuse(CodeInvalid, "iat and jti are required")
	}
	if d := now.Sub(iat); d > Window || d < -Window {
		return Proof{}, refuse(CodeInvalid, "iat %s is outside ±%s of now", iat.UTC().Format(time.RFC3339), Window)
	}
	if v.Nonces != nil && (c.Nonce == "" || !v.Nonces.Valid(c.Nonce, now)) {
		nonce, err := v.Nonces.Issue(now)
		if err != nil {
			return Proof{}, fmt.Errorf("pop: issue nonce: %w", err)
		}
		e := refuse(CodeNonceRequired, "nonce missing or stale")
		e.Values = []string{nonce}
		return Proof{}, e
	}
	// 12. Never seen before; remember it past the last moment it could
	// be accepted.
	if v.Replay == nil {
		return Proof{}, errors.New("pop: verifier without a replay cache")
	}
	until := iat.Add(Window + Retention)
	if err := v.Replay.Remember(ctx, jkt, c.JTI, iat, until, now); err != nil {
		if errors.Is(err, ErrReplayed) {
			return Proof{}, refuse(CodeReplayed, "jti seen before")
		}
		return Proof{}, fmt.Errorf("pop: replay cache: %w", err)
	}
	return Proof{JKT: jkt, Key: key, Claims: c}, nil
}

func (v *Verifier) checkTarget(c Claims, req Request) error {
	switch req.Binding {
	case MCP:
		if !slices.Contains(v.Audiences, c.Aud) {
			return refuse(CodeInvalid, "aud %q is not a profile URI of this business", c.Aud)
		}
		if c.USPM != req.Method {
			return refuse(CodeInvalid, "usp_m %q for method %q", c.USPM, req.Method)
		}
		_, digest, err := CanonicalParams(req.Arguments)
		if err != nil {
			return refuse(CodeInvalid, "arguments: %v", err)
		}
		if subtle.ConstantTimeCompare([]byte(c.USPP), []byte(digest)) != 1 {
			return refuse(CodeInvalid, "usp_p does not match the arguments")
		}
	case REST:
		if c.HTM != req.Method {
			return refuse(CodeInvalid, "htm %q for method %q", c.HTM, req.Method)
		}
		want, err := htu(req.URL)
		if err != nil {
			return refuse(CodeInvalid, "request URL: %v", err)
		}
		got, err := htu(c.HTU)
		if err != nil || got != want {
			return refuse(CodeInvalid, "htu %q for %q", c.HTU, want)
		}
	default:
		return fmt.Errorf("pop: unknown binding %d", req.Binding)
	}
	return nil
}

// htu normalizes a URL for the RFC 9449 comparison: scheme and host
// lowercase, default port dropped, no query or fragment.
func htu(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme == "" || u.Host == "" {
		return "", errors.New("not an absolute URL")
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if scheme == "https" {
		host = strings.TrimSuffix(host, ":443")
	} else if scheme == "http" {
		host = strings.TrimSuffix(host, ":80")
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path, nil
}

// decodeSegment decodes one base64url JWS segment holding a JSON object,
// refusing unknown trailing data.
func decodeSegment(seg string, v any) error {
	raw, err := b64.DecodeString(seg)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// Hash is base64url(SHA-256(s)), the form of ath and usp_p.
func Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
