package orp

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/orp/schema"
	"frontdesk/store"
)

// envelope is a message as received (§5).
type envelope struct {
	Orp      string          `json:"orp"`
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Ts       string          `json:"ts"`
	From     string          `json:"from"`
	To       string          `json:"to,omitempty"`
	Deal     string          `json:"deal,omitempty"`
	Re       string          `json:"re,omitempty"`
	Prev     string          `json:"prev,omitempty"`
	Sig      string          `json:"sig,omitempty"`
	Critical []string        `json:"critical,omitempty"`
	Body     json.RawMessage `json:"body"`
}

// hostMessage is a message the host sends.
type hostMessage struct {
	Orp  string `json:"orp"`
	Type string `json:"type"`
	ID   string `json:"id"`
	Ts   string `json:"ts"`
	From string `json:"from"`
	To   string `json:"to,omitempty"`
	Deal string `json:"deal,omitempty"`
	Re   string `json:"re,omitempty"`
	Body any    `json:"body"`
	Sig  string `json:"sig,omitempty"`
}

// coreTypes are the 19 types of §9.
var coreTypes = []string{"hello", "discover", "results", "space", "request", "offer", "counter", "accept", "decline", "deal",
	"execute", "receipt", "outcome", "payout", "revoke", "consent", "dispute", "reputation", "error"}

// types04 are the types ORP 0.4 adds (§20.3, §20.7).
var types04 = []string{"leave", "seat", "attest"}

// Messages lists the types of capabilities.messages: those the host
// handles and those it sends.
func Messages() []string {
	return []string{"hello", "discover", "results", "space", "request", "offer", "counter", "accept", "decline", "deal", "execute", "receipt",
		"outcome", "payout", "revoke", "consent", "dispute", "reputation", "error"}
}

// messages04 are capabilities.messages of a 0.4 hello and the discovery
// document: the 0.3 types with leave and seat, and attest when the host
// accepts attestations.
func (h *Host) messages04() []string {
	m := append(Messages(), "leave", "seat")
	if h.opts.Attestation {
		m = append(m, "attest")
	}
	return m
}

// signedTypes must be signed once a party registered a key (E9).
var signedTypes = []string{"offer", "counter", "accept", "revoke", "payout"}

// Reply is the host's answer to one message: the HTTP status of §4.2 and
// §16, the reply message (empty for 202), and Retry-After seconds for
// rate_limited.
type Reply struct {
	Status     int
	Body       []byte
	RetryAfter int
}

// idemRecord is what E7 keeps per (from, id).
type idemRecord struct {
	Hash   string    `json:"hash"`
	Status int       `json:"status"`
	Reply  []byte    `json:"reply"`
	At     time.Time `json:"at"`
}

// op is one message being applied: what it read and what it will write.
type op struct {
	h      *Host
	now    time.Time
	env    envelope
	raw    []byte
	hash   string // Hash(raw): the idempotency content hash and the chain link
	party  *Party
	deal   *dealRecord // preloaded when env.Deal is set
	dealR  store.Record
	writes []store.Write
	// links are link records changed in this op, which the store does not
	// show yet: snapshots read them from here.
	links  map[string]*linkRecord
	outbox []delivery // inbox messages, placed at commit
	// payouts are payout records changed in this op, by key, which the
	// store does not show yet.
	payouts map[string]*payoutRecord
	status  int
	reply   []byte
	after   []func()
	// byOwner marks a message the owner sends at the host itself (the
	// business listing its own offers): the agent's constraints do not
	// apply to the owner's own act.
	byOwner bool
	// ver is the message's ORP version once E2 accepted it: replies to
	// the sender are in it.
	ver string
	// later runs after the message committed, with the request's context:
	// work that must not hold the write, such as reading a proof page.
	later []func(context.Context) error
}

// Send applies one message from the holder of token, sent from network
// address addr, and returns the reply. It applies E1 to E9 in order (§5);
// a refusal is an error message and changes nothing. A request whose
// credential does not resolve to a party is counted against its address
// before the body is decoded, so unauthenticated senders cannot make the
// host parse without limit (§18).
func (h *Host) Send(ctx context.Context, token, addr string, raw []byte) Reply {
	now := h.clock.Now()
	o := &op{h: h, now: now, raw: raw}
	p, authErr := h.Authenticate(ctx, token)
	if authErr != nil && AsError(authErr).Code == Unauthorized {
		if wait := h.addrLimit.allow("send "+addressKey(addr), now); wait > 0 {
			return h.errorReply(o, &Error{Code: RateLimited, Message: "Too many messages without a valid credential from this address.", RetryAfter: wait})
		}
	}
	r, err := h.send(ctx, o, p, authErr)
	if err != nil {
		return h.errorReply(o, err)
	}
	return r
}

// send applies E1 to E9; p and authErr are the credential's party or why
// it has none, which E5 reports in its turn.
func (h *Host) send(ctx context.Context, o *op, p *Party, authErr error) (Reply, error) {
	// E1 Shape, with duplicate keys, size and text hygiene.
	v, e := decodeStrict(o.raw)
	if e != nil {
		return Reply{}, e
	}
	obj, _ := v.(map[string]any)
	if obj != nil { // what is known of the sender, for the error reply
		o.env.From, _ = obj["from"].(string)
		o.env.ID, _ = obj["id"].(string)
	}
	if err := h.schemas.Validate(schema.Message, v); err != nil {
		var p *schema.Problem
		if errors.As(err, &p) {
			version := Version
			if obj != nil && obj["orp"] == Version04 {
				version = Version04
			}
			return Reply{}, invalid(p.Pointer, "The message is not valid ORP "+version+": "+p.Detail+".")
		}
		return Reply{}, err
	}
	if e := checkText(v, ""); e != nil {
		return Reply{}, e
	}
	if err := json.Unmarshal(o.raw, &o.env); err != nil {
		return Reply{}, invalid("", "The message is not valid ORP 0.3.")
	}
	// E2 Version: 0.4 and 0.3 side by side (§20).
	if !slices.Contains(Versions, o.env.Orp) {
		return Reply{}, &Error{Code: UnsupportedVersion, Message: "This host speaks ORP 0.4 and 0.3.", Values: Versions}
	}
	o.ver = o.env.Orp
	// E3 Type.
	if !slices.Contains(coreTypes, o.env.Type) && !(o.ver == Version04 && slices.Contains(types04, o.env.Type)) {
		return Reply{}, refuse(UnsupportedType, "This host supports no extension types.")
	}
	if o.env.Type == "attest" && !h.opts.Attestation {
		// §20.7: a host without attestation answers unknown_type, which a
		// conforming agent reads as unsupported, not as worth a retry.
		return Reply{}, refuse(UnknownType, "This host does not implement attest: consumer attestation is unsupported here.")
	}
	// E4 Critical.
	if len(o.env.Critical) > 0 {
		return Reply{}, refuse(UnsupportedExtension, "This host supports no extensions, so it cannot honour critical ones.")
	}
	// E5 Sender.
	if authErr != nil {
		return Reply{}, authErr
	}
	o.party = p
	if o.env.From != p.ID {
		return Reply{}, refuse(Forbidden, "from must be the party the credential belongs to.")
	}
	if hostOnly(o.env.Type, o.env.Body) {
		return Reply{}, refuse(Forbidden, "Only the host may send this message.")
	}
	if wait := h.partyLimit.allow(p.Opaque, o.now); wait > 0 {
		return Reply{}, &Error{Code: RateLimited, Message: fmt.Sprintf("This party may send %d messages a minute.", p.Limits.MessagesPerMinute), RetryAfter: wait}
	}
	// E6 Clock.
	ts, err := time.Parse(time.RFC3339Nano, o.env.Ts)
	if err != nil {
		return Reply{}, invalid("/ts", "ts is not an RFC 3339 timestamp.")
	}
	if d := ts.Sub(o.now); d > clockSkew || d < -clockSkew {
		return Reply{}, refuse(Stale, "ts is more than 15 minutes from the host clock.")
	}
	if o.hash, err = Hash(o.raw); err != nil {
		return Reply{}, invalid("", "The message is not valid ORP 0.3.")
	}
	var reply Reply
	err = h.retry(ctx, func() error {
		// After a lost race, everything is read and decided again.
		o.writes, o.after, o.deal, o.links, o.outbox, o.payouts, o.later = nil, nil, nil, nil, nil, nil, nil
		var err error
		reply, err = h.attempt(ctx, o)
		return err
	})
	if err == nil {
		for _, f := range o.later {
			if err := f(ctx); err != nil {
				// The sweep does it again; the message itself stands.
				h.log.Warn("after message", "type", o.env.Type, "err", err)
			}
		}
	}
	return reply, err
}

// attempt runs E7 to E9 and the message's effect on fresh reads, then
// writes everything in one Apply.
func (h *Host) attempt(ctx context.Context, o *op) (Reply, error) {
	// E7 Idempotency.
	idemKey := o.env.From + " " + o.env.ID
	var prior idemRecord
	if _, err := h.get(ctx, kindMessage, idemKey, &prior); err == nil {
		if prior.Hash != o.hash {
			return Reply{}, refuse(Replay, "This message id was already used with different content.")
		}
		return Reply{Status: prior.Status, Body: prior.Reply}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return Reply{}, err
	}
	// E8 Chain.
	if o.env.Deal != "" {
		d, r, err := h.loadDeal(ctx, o.env.Deal)
		if err != nil {
			return Reply{}, err
		}
		if !d.hasParty(o.party.ID) {
			return Reply{}, refuse(NotFound, "No such deal for this sender.")
		}
		o.deal, o.dealR = d, r
		c := d.Chain[o.party.Opaque]
		switch {
		case o.env.Prev != "" && o.env.Prev != c.Last:
			return Reply{}, refuse(ChainBroken, "prev is not the hash of the sender's previous message in this deal.")
		case o.env.Prev == "" && c.Used:
			return Reply{}, refuse(ChainBroken, "This sender chains its messages in this deal, so prev is required.")
		}
	}
	// E9 Signature.
	if err := o.verify(); err != nil {
		return Reply{}, err
	}
	if err := h.dispatch(ctx, o); err != nil {
		return Reply{}, err
	}
	idem := create(kindMessage, idemKey, idemRecord{Hash: o.hash, Status: o.status, Reply: o.reply, At: o.now}, o.now)
	if err := o.commit(ctx, []store.Write{idem}); err != nil {
		var we *store.WriteError
		if errors.As(err, &we) && errors.Is(err, store.ErrExists) && we.Write.Record.Kind == kindMessage && we.Write.Record.Key == idemKey {
			return Reply{}, err // the same message raced itself: E7 answers on retry
		}
		return Reply{}, fmt.Errorf("apply %s: %w", o.env.Type, err)
	}
	return Reply{Status: o.status, Body: o.reply}, nil
}

// hostOnly reports the types and forms only the host may send (E5).
func hostOnly(typ string, body json.RawMessage) bool {
	switch typ {
	case "results", "deal", "outcome", "consent", "error":
		return typ != "error"
	}
	var b map[string]json.RawMessage
	if json.Unmarshal(body, &b) != nil {
		return false // E1 already refused a body that is not an object
	}
	switch typ {
	case "space":
		return string(b["action"]) == `"listed"`
	case "offer":
		return b["status"] != nil || b["waiting"] != nil
	case "receipt":
		return string(b["method"]) != `"attestation"`
	case "payout":
		return b["answer"] == nil
	case "reputation":
		return b["score"] != nil || b["algorithm"] != nil
	case "dispute":
		return string(b["action"]) == `"resolve"`
	}
	return false
}

// verify checks sig against the sender's registered key, and refuses an
// unsigned binding message once the sender registered one (E9).
func (o *op) verify() error {
	key := o.party.Key
	if o.env.Sig == "" {
		if key != nil && slices.Contains(signedTypes, o.env.Type) {
			return refuse(Unauthorized, "This party registered a key, so this message must be signed.")
		}
		return nil
	}
	if key == nil {
		return refuse(BadSignature, "sig cannot be verified: this party registered no key.")
	}
	pub, err := publicKey(*key)
	if err != nil {
		return refuse(BadSignature, "sig cannot be verified.")
	}
	if !VerifyDetached(o.raw, o.env.Sig, pub) {
		return refuse(BadSignature, "sig does not verify.")
	}
	return nil
}

// SigningInput is the JCS form of a message without its sig: what a
// detached JWS signs (§5).
func SigningInput(raw []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "sig")
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return Canonical(b)
}

// SignDetached returns a detached compact JWS (RFC 7515 Appendix F) with
// EdDSA over the JCS form of raw without sig.
func SignDetached(raw []byte, kid string, key ed25519.PrivateKey) (string, error) {
	payload, err := SigningInput(raw)
	if err != nil {
		return "", err
	}
	hdr := map[string]string{"alg": "EdDSA"}
	if kid != "" {
		hdr["kid"] = kid
	}
	hb, _ := json.Marshal(hdr)
	h64 := base64.RawURLEncoding.EncodeToString(hb)
	sig := ed25519.Sign(key, []byte(h64+"."+base64.RawURLEncoding.EncodeToString(payload)))
	return h64 + ".." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// VerifyDetached checks a detached compact JWS made by SignDetached.
func VerifyDetached(raw []byte, jws string, pub ed25519.PublicKey) bool {
	h64, s64, ok := strings.Cut(jws, "..")
	if !ok {
		return false
	}
	hb, err := base64.RawURLEncoding.DecodeString(h64)
	if err != nil {
		return false
	}
	var hdr struct {
		Alg  string   `json:"alg"`
		Crit []string `json:"crit"`
		B64  *bool    `json:"b64"`
	}
	if json.Unmarshal(hb, &hdr) != nil || hdr.Alg != "EdDSA" || len(hdr.Crit) > 0 || hdr.B64 != nil {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(s64)
	if err != nil {
		return false
	}
	payload, err := SigningInput(raw)
	if err != nil {
		return false
	}
	return ed25519.Verify(pub, []byte(h64+"."+base64.RawURLEncoding.EncodeToString(payload)), sig)
}

// message builds a host message to one party, signed when its type is
// one the host signs (§18).
func (o *op) message(typ, to, deal string, body any) []byte {
	version := Version
	if o.ver != "" && o.party != nil && to == o.party.ID {
		version = o.ver
	}
	m := hostMessage{Orp: version, Type: typ, ID: o.h.newID("m_host_", 16), Ts: stamp(o.now), From: o.h.id, To: to, Deal: deal, Body: body}
	if o.party != nil && to == o.party.ID {
		m.Re = o.env.ID
	}
	return o.h.sign(m)
}

// sign encodes a host message and signs it when its type is one the
// host signs.
func (h *Host) sign(m hostMessage) []byte {
	b := mustJSON(m)
	s := h.opts.Signer
	if !s.signs(m.Type) {
		return b
	}
	out, err := s.Sign(b)
	if err != nil {
		panic(fmt.Sprintf("orp: sign %s: %v", m.Type, err)) // b is JSON the host just encoded
	}
	return out
}

// signed builds a host message to one party and signs it with the
// host's MessageSigner when it has one (§18).
func (o *op) signed(typ, to, deal string, body any) ([]byte, error) {
	raw := o.message(typ, to, deal, body)
	if o.h.opts.MessageSigner == nil || o.h.opts.Signer.signs(typ) {
		return raw, nil // unsigned, or message signed it already
	}
	msg, err := o.h.opts.MessageSigner.Sign(raw)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", typ, err)
	}
	return msg, nil
}

// errorReply renders a refusal as an ORP error message (§16) and logs an
// internal fault once, without the message body.
func (h *Host) errorReply(o *op, err error) Reply {
	e := AsError(err)
	if e.Code == Internal {
		h.log.Error("orp message failed", "type", o.env.Type, "err", err)
	}
	body := map[string]any{"code": e.Code, "message": e.Message, "retryable": retryable(e)}
	if e.Code == InvalidMessage {
		body["field"] = e.Field
	}
	if e.Code == StepOff && e.Value(0) != "" {
		body["step"] = e.Value(0)
	}
	if e.Code == UnsupportedVersion && len(e.Values) > 0 {
		body["supported"] = e.Values
	}
	if e.RetryAfter > 0 {
		body["retry_after"] = e.RetryAfter
	}
	version := Version
	if o.ver != "" {
		version = o.ver
	}
	m := hostMessage{Orp: version, Type: "error", ID: h.newID("m_host_", 16), Ts: stamp(o.now), From: h.id, Body: body}
	// Only echo a sender and id that are well-formed, so the error message
	// itself validates.
	if op := h.opaqueOf(o.env.From); op != "" && len(op) <= 64 && idPattern(op) && !strings.ContainsAny(op, ".:") {
		m.To = o.env.From
	}
	if len(o.env.ID) >= 8 && len(o.env.ID) <= 128 && idPattern(o.env.ID) {
		m.Re = o.env.ID
	}
	return Reply{Status: Status(e.Code), Body: mustJSON(m), RetryAfter: e.RetryAfter}
}

func idPattern(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:-", r)) {
			return false
		}
	}
	return true
}

// ErrorMessage renders a refusal outside Send (join, suggest, inbox,
// deal reads, approvals) as an ORP error message with its HTTP status.
func (h *Host) ErrorMessage(err error) Reply {
	return h.errorReply(&op{h: h, now: h.clock.Now()}, err)
}
