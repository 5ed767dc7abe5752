package orp

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"frontdesk/orp/schema"
	"frontdesk/store"
)

// Steps are a party's mode per step (§11).
type Steps struct {
	List      string `json:"list"`
	Negotiate string `json:"negotiate"`
	Accept    string `json:"accept"`
	Execute   string `json:"execute"`
	Amend     string `json:"amend"`
	Settle    string `json:"settle"`
	Share     string `json:"share"`
	Revoke    string `json:"revoke"`
}

// unclaimedSteps are a new party's modes: every step ask except revoke,
// because stopping is always safe (§9.3).
var unclaimedSteps = Steps{List: "ask", Negotiate: "ask", Accept: "ask", Execute: "ask", Amend: "ask", Settle: "ask", Share: "ask", Revoke: "auto"}

func (s Steps) mode(step string) string {
	m := map[string]string{"list": s.List, "negotiate": s.Negotiate, "accept": s.Accept, "execute": s.Execute,
		"amend": s.Amend, "settle": s.Settle, "share": s.Share, "revoke": s.Revoke}[step]
	if m == "" {
		if step == "revoke" {
			return "auto"
		}
		return "ask"
	}
	return m
}

// Limits are a party's caps, as the join response states them.
type Limits struct {
	OpenDeals         int `json:"open_deals"`
	MessagesPerMinute int `json:"messages_per_minute"`
}

// JWK is an Ed25519 public key as a party registers it.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
}

// Party is a party as the host keeps it. The bearer token is kept only as
// its SHA-256 hash, under its own record.
type Party struct {
	ID      string `json:"id"`
	Opaque  string `json:"opaque"`
	Key     *JWK   `json:"key,omitempty"`
	Steps   Steps  `json:"steps"`
	Limits  Limits `json:"limits"`
	Claim   string `json:"claim"`
	Claimed bool   `json:"claimed"`
	// Name is the name the party's agent gave when it joined (the join's
	// agent.name), the one name the host holds for a party; "" when it
	// gave none.
	Name string `json:"name,omitempty"`
	// Owner is the owner account that claimed the party: a person who
	// signed in at the host, or BusinessOwner for the business's own.
	Owner string `json:"owner,omitempty"`
	// Constraints are the owner's rules besides the step modes (§8.4).
	Constraints Constraints `json:"constraints"`
	// TokenHash is the hash of the party's current bearer token, so a
	// rotation can revoke it.
	TokenHash string `json:"token_hash,omitempty"`
	// Human lists the steps whose asks only the signed-in owner approves,
	// on the approval page; the agent's bearer is refused there (§11).
	Human []string `json:"human,omitempty"`
	// ClaimedAt is when a person claimed the party on the claim page.
	ClaimedAt *time.Time `json:"claimed_at,omitempty"`
	Created   time.Time  `json:"created"`
}

type tokenRecord struct {
	Party string `json:"party"` // opaque
}

// JoinResponse is the answer to POST {join} (§9.3).
type JoinResponse struct {
	Party  string `json:"party"`
	Token  string `json:"token"`
	Claim  string `json:"claim"`
	Steps  Steps  `json:"steps"`
	Limits Limits `json:"limits"`
}

type joinRequest struct {
	Agent *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"agent"`
	Key *JWK `json:"key"`
}

// agentNamePattern is stated in the refusal, as §9.3 asks.
const agentNamePattern = "^[A-Za-z0-9_. -]{1,64}$"

// Join creates an unclaimed party from a join request body (which may be
// "{}" or empty). addr is the caller's network address, used only for the
// rate limit in memory.
func (h *Host) Join(ctx context.Context, body []byte, addr string) (JoinResponse, error) {
	now := h.clock.Now()
	if wait := h.addrLimit.allow("join "+addressKey(addr), now); wait > 0 {
		return JoinResponse{}, &Error{Code: RateLimited, Message: "Too many joins from this address.", RetryAfter: wait}
	}
	req, err := h.parseJoin(body, "")
	if err != nil {
		return JoinResponse{}, err
	}
	return h.join(ctx, req, now)
}

func (h *Host) parseJoin(body []byte, at string) (joinRequest, error) {
	var req joinRequest
	if len(body) == 0 {
		body = []byte("{}")
	}
	v, e := decodeStrict(body)
	if e != nil {
		return req, e
	}
	return req, h.checkJoin(v, at, &req)
}

func (h *Host) checkJoin(v any, at string, req *joinRequest) error {
	if err := h.schemas.Validate(schema.JoinRequest, v); err != nil {
		var p *schema.Problem
		if errors.As(err, &p) {
			if p.Pointer == "/agent/name" {
				return invalid(at+p.Pointer, "agent.name must match "+agentNamePattern+" (letters, digits, underscore, dot, space or hyphen, 1 to 64 characters), as ORP 0.4 joins require.")
			}
			return invalid(at+p.Pointer, "The join request is not valid ORP 0.4: "+p.Detail+". It may carry only agent and key.")
		}
		return err
	}
	if e := checkText(v, at); e != nil {
		return e
	}
	if err := remarshal(v, req); err != nil {
		return invalid(at, "The join request is not valid ORP 0.4.")
	}
	if req.Key != nil {
		if _, err := publicKey(*req.Key); err != nil {
			return invalid(at+"/key/x", "The key is not an Ed25519 public key.")
		}
	}
	return nil
}

func (h *Host) join(ctx context.Context, req joinRequest, now time.Time) (JoinResponse, error) {
	var resp JoinResponse
	err := store.Retrier{Attempts: 3}.Run(ctx, func() error {
		p := Party{
			Opaque: h.newID("p_", 13), Key: req.Key, Steps: unclaimedSteps,
			Limits:  Limits{OpenDeals: h.opts.OpenDeals, MessagesPerMinute: h.opts.MessagesPerMinute},
			Claim:   h.newID("clm_", 16),
			Created: now,
		}
		if req.Agent != nil {
			p.Name = req.Agent.Name
		}
		p.ID = h.partyID(p.Opaque)
		token := h.newID("orpt_", 32)
		p.TokenHash = tokenHash(token)
		_, err := h.store.Apply(ctx, []store.Write{
			create(kindParty, p.Opaque, p, now),
			create(kindToken, tokenHash(token), tokenRecord{Party: p.Opaque}, now),
			create(kindClaim, p.Claim, claimRef{Party: p.Opaque}, now),
		})
		if store.LostRace(err) {
			return err // a random id collided; draw again
		}
		if err != nil {
			return fmt.Errorf("join: %w", err)
		}
		resp = JoinResponse{Party: p.ID, Token: token, Claim: h.url("/claim/" + p.Claim), Steps: p.Steps, Limits: p.Limits}
		return nil
	})
	if _, lost := errors.AsType[*store.LostRaces](err); lost {
		return JoinResponse{}, errors.New("join: random ids kept colliding")
	}
	return resp, err
}

// kindSession keys, by the hash of an MCP session id, the party that
// session joined as (§4.3). It lives in the store, so a join survives a
// restart and works on every instance behind a load balancer.
const kindSession = "orp.session"

type sessionRecord struct {
	Party string `json:"party"` // opaque
}

type sessionKey struct{}

// WithSession marks ctx as a call in MCP session id. A call without a
// bearer then acts as the party the session joined as (RememberSession).
// Only the MCP binding sets it; the session id is request identity.
func WithSession(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// RememberSession records that MCP session id joined as the party of
// token, so the session keeps acting as that party (§4.3).
func (h *Host) RememberSession(ctx context.Context, session, token string) error {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return err
	}
	now := h.clock.Now()
	rec := store.Record{Kind: kindSession, Key: tokenHash(session), Value: mustJSON(sessionRecord{Party: p.Opaque}), UpdatedAt: now}
	if _, err := h.store.Create(ctx, rec); err != nil {
		if !errors.Is(err, store.ErrExists) {
			return fmt.Errorf("remember session: %w", err)
		}
		// A session that joins again acts as its newest party.
		return h.retry(ctx, func() error {
			cur, err := h.store.Get(ctx, kindSession, rec.Key)
			if err != nil {
				return err
			}
			rec.Version = cur.Version
			_, err = h.store.Swap(ctx, rec)
			return err
		})
	}
	return nil
}

// SessionJoined reports whether MCP session id called orp_join here, so
// the MCP front can keep serving that session after a restart (§4.3).
func (h *Host) SessionJoined(ctx context.Context, session string) bool {
	_, err := h.store.Get(ctx, kindSession, tokenHash(session))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		h.log.Error("read mcp session", "err", err)
	}
	return err == nil
}

// BearerToken is the token of an Authorization header value of the
// Bearer scheme, or "". The scheme name is case-insensitive (RFC 9110
// §11.1), so "bearer" and "BEARER" work too; both bindings read it here.
func BearerToken(authorization string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// Authenticate resolves a bearer token to its party; without one, the
// party the call's MCP session joined as (WithSession).
func (h *Host) Authenticate(ctx context.Context, token string) (*Party, error) {
	if token == "" {
		if session, _ := ctx.Value(sessionKey{}).(string); session != "" {
			return h.sessionParty(ctx, session)
		}
		return nil, refuse(Unauthorized, "A bearer token is required.")
	}
	var t tokenRecord
	if _, err := h.get(ctx, kindToken, tokenHash(token), &t); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, refuse(Unauthorized, "The bearer token is not valid.")
		}
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	var p Party
	if _, err := h.get(ctx, kindParty, t.Party, &p); err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	return &p, nil
}

func (h *Host) sessionParty(ctx context.Context, session string) (*Party, error) {
	var s sessionRecord
	if _, err := h.get(ctx, kindSession, tokenHash(session), &s); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, refuse(Unauthorized, "A bearer token is required, or an orp_join in this MCP session.")
		}
		return nil, fmt.Errorf("authenticate session: %w", err)
	}
	var p Party
	if _, err := h.get(ctx, kindParty, s.Party, &p); err != nil {
		return nil, fmt.Errorf("authenticate session: %w", err)
	}
	return &p, nil
}

// JWKSet is a set of public keys.
type JWKSet struct {
	Keys []JWK `json:"keys"`
}

// PartyName is the name a party of this host gave when it joined, or ""
// for a party that gave none, a party of another host or none at all.
func (h *Host) PartyName(ctx context.Context, id string) (string, error) {
	opaque := h.opaqueOf(id)
	if opaque == "" {
		return "", nil
	}
	var p Party
	if _, err := h.get(ctx, kindParty, opaque, &p); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return "", nil
		}
		return "", fmt.Errorf("read party: %w", err)
	}
	return p.Name, nil
}

// PartyKeys returns the key a party registered at join (§7.1), or
// not_found.
func (h *Host) PartyKeys(ctx context.Context, opaque string) (JWKSet, error) {
	var p Party
	if _, err := h.get(ctx, kindParty, opaque, &p); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return JWKSet{}, refuse(NotFound, "No such party key.")
		}
		return JWKSet{}, err
	}
	if p.Key == nil {
		return JWKSet{}, refuse(NotFound, "No such party key.")
	}
	return JWKSet{Keys: []JWK{*p.Key}}, nil
}

func publicKey(k JWK) (ed25519.PublicKey, error) {
	if k.Kty != "OKP" || k.Crv != "Ed25519" {
		return nil, errors.New("not an Ed25519 key")
	}
	x, err := base64.RawURLEncoding.DecodeString(k.X)
	if err != nil || len(x) != ed25519.PublicKeySize || base64.RawURLEncoding.EncodeToString(x) != k.X {
		return nil, errors.New("bad Ed25519 x")
	}
	if weakKey(x) {
		return nil, errors.New("weak Ed25519 key")
	}
	return ed25519.PublicKey(x), nil
}

// fieldPrime is p = 2^255 - 19, the field of Ed25519's coordinates.
var fieldPrime = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))

// smallOrderY are the y coordinates of the eight points of order 1, 2, 4
// and 8, as hex of their little-endian encoding without the sign bit. A
// key among them lets one fixed signature verify every message.
var smallOrderY = []string{
	"0000000000000000000000000000000000000000000000000000000000000000", // order 4
	"0100000000000000000000000000000000000000000000000000000000000000", // the identity
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p-1, order 2
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
}

// weakKey reports a public key whose y is not below p (a non-canonical
// encoding) or that is a point of small order.
func weakKey(x []byte) bool {
	y := make([]byte, len(x))
	copy(y, x)
	y[31] &= 0x7f // the sign of x
	if slices.Contains(smallOrderY, hex.EncodeToString(y)) {
		return true
	}
	slices.Reverse(y)
	return new(big.Int).SetBytes(y).Cmp(fieldPrime) >= 0
}
