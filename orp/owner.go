package orp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"frontdesk/internal/session"
	"frontdesk/store"
)

// Owners are people (§3, §9.3). A party is claimed by a person at the
// host, never over ORP: with a passkey (WebAuthn), or, as the fallback,
// with a one-time sign-in link sent to an email address the person gives
// on the host's page. A script holding the claim URL can do neither, so
// it cannot make itself an owner, and a party's declared web spaces
// widen the destination rule only once a person owns it (destination.go).
//
// A claimed owner signs in at the host with the passkey or a new link,
// and its session (an HttpOnly cookie the HTTP binding sets, with a CSRF
// token for every form) lets it see its parties, rotate their bearer
// tokens, set their constraints and human-approval steps, and approve
// escalations on the approval page, which produces a signed consent.

// Record kinds of owners.
const (
	kindAccount   = "orp.acct"     // owner id → Owner
	kindHandle    = "orp.accthdl"  // WebAuthn user handle → owner id
	kindMail      = "orp.acctmail" // hash of the lowercased email → owner id
	kindOwned     = "orp.owned"    // owner id + "/" + opaque → the owner's parties
	kindOwnerSess = "orp.osess"    // hash of the session token → ownerSession
	kindCeremony  = "orp.cer"      // ceremony id → a passkey ceremony in progress
	kindMailLink  = "orp.olink"    // hash of the link token → mailLink
)

// Lifetimes of owner credentials.
const (
	ownerSessionTTL = 12 * time.Hour
	ceremonyTTL     = 10 * time.Minute
	mailLinkTTL     = 30 * time.Minute
)

// Assurance of an owner session: how the person proved it is them (H3).
const (
	AssurancePasskey   = "passkey"
	AssuranceEmailLink = "email_link"
	// AssuranceClientPrompt is an MCP client asking its person: the
	// weakest, never enough alone to bind money (H3).
	AssuranceClientPrompt = "client_prompt"
)

// Owner is a person who owns parties on this host.
type Owner struct {
	ID          string                `json:"id"`
	Handle      []byte                `json:"handle"`
	Email       string                `json:"email,omitempty"`
	Credentials []webauthn.Credential `json:"credentials,omitempty"`
	Created     time.Time             `json:"created"`
}

// WebAuthnID and the methods below make an Owner a WebAuthn user.
func (o *Owner) WebAuthnID() []byte                         { return o.Handle }
func (o *Owner) WebAuthnName() string                       { return o.ID }
func (o *Owner) WebAuthnDisplayName() string                { return "Owner " + o.ID }
func (o *Owner) WebAuthnCredentials() []webauthn.Credential { return o.Credentials }

// OwnerSession is a signed-in owner. The session itself (token, expiry,
// CSRF, sign-out) is kept by internal/session, the same way as the staff
// screen's; the owner's id is its subject and the assurance its detail.
type OwnerSession struct {
	Owner     string
	CSRF      string
	Assurance string
	Expires   time.Time
}

// CheckCSRF reports whether a posted form carries the session's token.
func (s OwnerSession) CheckCSRF(posted string) bool {
	return session.CheckCSRF(session.Session{CSRF: s.CSRF}, posted)
}

// ownerSessions keeps the owners' sessions. Tokens keep the host's
// spelling ("oss_…", "csrf_…").
func (h *Host) ownerSessions() *session.Store {
	return session.New(h.store, session.Policy{Kind: kindOwnerSess, Lifetime: ownerSessionTTL}, session.Options{
		Clock: h.clock,
		Token: func() (string, error) { return h.newID("oss_", 32), nil },
		CSRF:  func() (string, error) { return h.newID("csrf_", 24), nil },
	})
}

type ceremony struct {
	Kind    string               `json:"kind"` // "claim" or "signin"
	Claim   string               `json:"claim,omitempty"`
	Owner   *Owner               `json:"owner,omitempty"`
	Session webauthn.SessionData `json:"session"`
	Expires time.Time            `json:"expires"`
}

type mailLink struct {
	Kind    string    `json:"kind"` // "claim" or "signin"
	Claim   string    `json:"claim,omitempty"`
	Email   string    `json:"email"`
	Owner   string    `json:"owner,omitempty"`
	Expires time.Time `json:"expires"`
}

type ownedRef struct {
	Party string `json:"party"` // opaque
}

// RP names the relying party of a passkey ceremony: the host name the
// person's browser is on and its origin.
type RP struct {
	ID     string // "hub.example"
	Origin string // "https://hub.example"
}

func (h *Host) webAuthn(rp RP) (*webauthn.WebAuthn, error) {
	w, err := webauthn.New(&webauthn.Config{RPID: rp.ID, RPDisplayName: h.opts.Name, RPOrigins: []string{rp.Origin}})
	if err != nil {
		return nil, fmt.Errorf("passkey: %w", err)
	}
	return w, nil
}

// unclaimed returns the unclaimed party behind a claim id.
func (h *Host) unclaimed(ctx context.Context, claim string) (*Party, store.Record, error) {
	p, r, err := h.claimParty(ctx, claim)
	if err != nil {
		return nil, r, err
	}
	if p.Claimed {
		return nil, r, refuse(StateConflict, "This party has already been claimed.")
	}
	return p, r, nil
}

func (h *Host) newOwner(now time.Time) *Owner {
	handle := make([]byte, 32)
	copy(handle, h.randomString(32, alphabet))
	return &Owner{ID: h.newID("own_", 20), Handle: handle, Created: now}
}

// BeginPasskeyClaim starts a passkey registration that will claim the
// party behind claim for a new owner. It returns the options for the
// browser (navigator.credentials.create) and the ceremony id the finish
// names.
func (h *Host) BeginPasskeyClaim(ctx context.Context, rp RP, claim string) (options []byte, id string, err error) {
	if _, _, err := h.unclaimed(ctx, claim); err != nil {
		return nil, "", err
	}
	w, err := h.webAuthn(rp)
	if err != nil {
		return nil, "", err
	}
	now := h.clock.Now()
	owner := h.newOwner(now)
	creation, session, err := w.BeginRegistration(owner,
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired))
	if err != nil {
		return nil, "", fmt.Errorf("begin passkey claim: %w", err)
	}
	return h.saveCeremony(ctx, creation, ceremony{Kind: "claim", Claim: claim, Owner: owner, Session: *session, Expires: now.Add(ceremonyTTL)})
}

func (h *Host) saveCeremony(ctx context.Context, options any, c ceremony) ([]byte, string, error) {
	id := h.newID("cer_", 24)
	now := h.clock.Now()
	if _, err := h.store.Create(ctx, store.Record{Kind: kindCeremony, Key: id, Value: mustJSON(c), UpdatedAt: now}); err != nil {
		return nil, "", fmt.Errorf("save passkey ceremony: %w", err)
	}
	return mustJSON(options), id, nil
}

func (h *Host) loadCeremony(ctx context.Context, id, kind string) (ceremony, store.Record, error) {
	var c ceremony
	r, err := h.get(ctx, kindCeremony, id, &c)
	if errors.Is(err, store.ErrNotFound) || err == nil && (c.Kind != kind || !h.clock.Now().Before(c.Expires)) {
		return c, r, refuse(NotFound, "This passkey request has expired. Reload the page and try again.")
	}
	return c, r, err
}

// FinishPasskeyClaim checks the browser's answer to BeginPasskeyClaim
// and, when it verifies, creates the owner with the passkey, claims the
// party and signs the owner in. It returns the session token.
func (h *Host) FinishPasskeyClaim(ctx context.Context, rp RP, claim, id string, answer []byte) (string, error) {
	c, cr, err := h.loadCeremony(ctx, id, "claim")
	if err != nil {
		return "", err
	}
	if c.Claim != claim || c.Owner == nil {
		return "", refuse(NotFound, "This passkey request is for another claim.")
	}
	w, err := h.webAuthn(rp)
	if err != nil {
		return "", err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(answer)
	if err != nil {
		return "", refuse(Unauthorized, "The passkey answer could not be read.")
	}
	cred, err := w.CreateCredential(c.Owner, c.Session, parsed)
	if err != nil {
		return "", &Error{Code: Unauthorized, Message: "The passkey did not verify.", Err: err}
	}
	owner := *c.Owner
	owner.Credentials = append(owner.Credentials, *cred)
	return h.claimFor(ctx, claim, &owner, true, AssurancePasskey, []store.Write{
		{Op: store.OpDelete, Record: store.Record{Kind: kindCeremony, Key: id, Version: cr.Version}},
	})
}

// claimFor claims the party behind claim for owner (created when isNew)
// and opens a session with assurance, in one Apply with extra.
func (h *Host) claimFor(ctx context.Context, claim string, owner *Owner, isNew bool, assurance string, extra []store.Write) (string, error) {
	var token string
	err := h.retry(ctx, func() error {
		now := h.clock.Now()
		p, r, err := h.unclaimed(ctx, claim)
		if err != nil {
			return err
		}
		p.Claimed, p.ClaimedAt, p.Owner = true, &now, owner.ID
		writes := append([]store.Write{swap(r, p, now), create(kindOwned, owner.ID+"/"+p.Opaque, ownedRef{Party: p.Opaque}, now)}, extra...)
		if isNew {
			writes = append(writes, create(kindAccount, owner.ID, owner, now),
				create(kindHandle, base64.RawURLEncoding.EncodeToString(owner.Handle), ownedRef{Party: owner.ID}, now))
			if owner.Email != "" {
				writes = append(writes, create(kindMail, tokenHash(owner.Email), ownedRef{Party: owner.ID}, now))
			}
		}
		tok, w, err := h.newOwnerSession(owner.ID, assurance, now)
		if err != nil {
			return err
		}
		if _, err := h.store.Apply(ctx, append(writes, w)); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		token = tok
		return nil
	})
	return token, err
}

// newOwnerSession opens a session for owner, returning its token and the
// write that stores it, for the batch that signs the owner in.
func (h *Host) newOwnerSession(owner, assurance string, now time.Time) (string, store.Write, error) {
	o, w, err := h.owners.Open(owner, assurance, now)
	return o.Token, w, err
}

// OwnerSessionTTL is how long an owner stays signed in.
func OwnerSessionTTL() time.Duration { return ownerSessionTTL }

// BeginPasskeySignIn starts a passkey sign-in for an owner who has one.
func (h *Host) BeginPasskeySignIn(ctx context.Context, rp RP) ([]byte, string, error) {
	w, err := h.webAuthn(rp)
	if err != nil {
		return nil, "", err
	}
	assertion, session, err := w.BeginDiscoverableLogin()
	if err != nil {
		return nil, "", fmt.Errorf("begin passkey sign-in: %w", err)
	}
	return h.saveCeremony(ctx, assertion, ceremony{Kind: "signin", Session: *session, Expires: h.clock.Now().Add(ceremonyTTL)})
}

// FinishPasskeySignIn checks the browser's answer and signs the owner of
// the passkey in. It returns the session token.
func (h *Host) FinishPasskeySignIn(ctx context.Context, rp RP, id string, answer []byte) (string, error) {
	c, cr, err := h.loadCeremony(ctx, id, "signin")
	if err != nil {
		return "", err
	}
	w, err := h.webAuthn(rp)
	if err != nil {
		return "", err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(answer)
	if err != nil {
		return "", refuse(Unauthorized, "The passkey answer could not be read.")
	}
	var owner Owner
	var or store.Record
	user, cred, err := w.ValidatePasskeyLogin(func(rawID, handle []byte) (webauthn.User, error) {
		var ref ownedRef
		if _, err := h.get(ctx, kindHandle, base64.RawURLEncoding.EncodeToString(handle), &ref); err != nil {
			return nil, err
		}
		if or, err = h.get(ctx, kindAccount, ref.Party, &owner); err != nil {
			return nil, err
		}
		return &owner, nil
	}, c.Session, parsed)
	if err != nil || user == nil {
		return "", &Error{Code: Unauthorized, Message: "The passkey did not verify.", Err: err}
	}
	for i := range owner.Credentials {
		if bytes.Equal(owner.Credentials[i].ID, cred.ID) {
			owner.Credentials[i].Authenticator.SignCount = cred.Authenticator.SignCount
		}
	}
	now := h.clock.Now()
	token, sw, err := h.newOwnerSession(owner.ID, AssurancePasskey, now)
	if err != nil {
		return "", err
	}
	if _, err := h.store.Apply(ctx, []store.Write{swap(or, owner, now), sw,
		{Op: store.OpDelete, Record: store.Record{Kind: kindCeremony, Key: id, Version: cr.Version}}}); err != nil {
		return "", fmt.Errorf("passkey sign-in: %w", err)
	}
	return token, nil
}

// normalEmail checks an address a person typed and lowercases it.
func normalEmail(s string) (string, error) {
	a, err := mail.ParseAddress(strings.TrimSpace(s))
	if err != nil || a.Name != "" || len(a.Address) > 254 || !strings.Contains(a.Address, "@") {
		return "", invalid("/email", "Enter an email address such as name@example.com.")
	}
	return strings.ToLower(a.Address), nil
}

// StartEmailClaim makes the one-time link that claims the party behind
// claim for the person at email: the fallback for a person without a
// passkey. The caller mails it; the host keeps only its hash.
func (h *Host) StartEmailClaim(ctx context.Context, claim, email string) (string, error) {
	addr, err := normalEmail(email)
	if err != nil {
		return "", err
	}
	if _, _, err := h.unclaimed(ctx, claim); err != nil {
		return "", err
	}
	return h.saveMailLink(ctx, mailLink{Kind: "claim", Claim: claim, Email: addr})
}

// StartEmailSignIn makes a one-time sign-in link for the owner with this
// email, or returns "" when there is none; the page says the same either
// way, so it tells nobody whether an address owns a party.
func (h *Host) StartEmailSignIn(ctx context.Context, email string) (string, error) {
	addr, err := normalEmail(email)
	if err != nil {
		return "", err
	}
	var ref ownedRef
	if _, err := h.get(ctx, kindMail, tokenHash(addr), &ref); errors.Is(err, store.ErrNotFound) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	return h.saveMailLink(ctx, mailLink{Kind: "signin", Email: addr, Owner: ref.Party})
}

func (h *Host) saveMailLink(ctx context.Context, l mailLink) (string, error) {
	now := h.clock.Now()
	l.Expires = now.Add(mailLinkTTL)
	token := h.newID("oml_", 32)
	if _, err := h.store.Create(ctx, store.Record{Kind: kindMailLink, Key: tokenHash(token), Value: mustJSON(l), UpdatedAt: now}); err != nil {
		return "", fmt.Errorf("save sign-in link: %w", err)
	}
	return token, nil
}

// ViewMailLink reports what a sign-in link would do, without using it:
// opening the link (a mail scanner may) records nothing.
func (h *Host) ViewMailLink(ctx context.Context, token string) (kind string, err error) {
	var l mailLink
	if _, err := h.get(ctx, kindMailLink, tokenHash(token), &l); errors.Is(err, store.ErrNotFound) || err == nil && !h.clock.Now().Before(l.Expires) {
		return "", refuse(NotFound, "This sign-in link has expired or was used. Ask for a new one.")
	} else if err != nil {
		return "", err
	}
	return l.Kind, nil
}

// UseMailLink uses a one-time link, once: it claims the party it was made
// for (creating the owner, or adding the party to the owner with that
// email) or signs the owner in. It returns the session token.
func (h *Host) UseMailLink(ctx context.Context, token string) (string, error) {
	var l mailLink
	r, err := h.get(ctx, kindMailLink, tokenHash(token), &l)
	if errors.Is(err, store.ErrNotFound) || err == nil && !h.clock.Now().Before(l.Expires) {
		return "", refuse(NotFound, "This sign-in link has expired or was used. Ask for a new one.")
	}
	if err != nil {
		return "", err
	}
	used := store.Write{Op: store.OpDelete, Record: store.Record{Kind: kindMailLink, Key: r.Key, Version: r.Version}}
	now := h.clock.Now()
	if l.Kind == "signin" {
		tok, sw, err := h.newOwnerSession(l.Owner, AssuranceEmailLink, now)
		if err != nil {
			return "", err
		}
		if _, err := h.store.Apply(ctx, []store.Write{used, sw}); err != nil {
			return "", fmt.Errorf("sign in by link: %w", err)
		}
		return tok, nil
	}
	var ref ownedRef
	owner := &Owner{}
	isNew := false
	if _, err := h.get(ctx, kindMail, tokenHash(l.Email), &ref); err == nil {
		if _, err := h.get(ctx, kindAccount, ref.Party, owner); err != nil {
			return "", err
		}
	} else if errors.Is(err, store.ErrNotFound) {
		owner, isNew = h.newOwner(now), true
		owner.Email = l.Email
	} else {
		return "", err
	}
	return h.claimFor(ctx, l.Claim, owner, isNew, AssuranceEmailLink, []store.Write{used})
}

// OwnerSession resolves a session token to the signed-in owner.
func (h *Host) OwnerSession(ctx context.Context, token string) (OwnerSession, error) {
	if token == "" {
		return OwnerSession{}, refuse(Unauthorized, "Sign in first.")
	}
	s, err := h.owners.Get(ctx, token)
	if errors.Is(err, session.ErrSignedOut) {
		return OwnerSession{}, refuse(Unauthorized, "Your session has ended. Sign in again.")
	}
	if err != nil {
		return OwnerSession{}, err
	}
	return OwnerSession{Owner: s.Subject, CSRF: s.CSRF, Assurance: s.Detail, Expires: s.Expires}, nil
}

// SignOutOwner ends a session in the store, so a kept copy of the cookie
// opens nothing.
func (h *Host) SignOutOwner(ctx context.Context, token string) error {
	return h.owners.End(ctx, token)
}

// SignOutOwnerEverywhere ends every session of owner, in every browser.
func (h *Host) SignOutOwnerEverywhere(ctx context.Context, owner string) error {
	_, err := h.owners.EndAll(ctx, owner)
	return err
}

// OwnedParty is one of an owner's parties as the owner's page shows it.
type OwnedParty struct {
	Party       Party
	Constraints string // the constraints document, indented
	Deals       []OwnedDeal
}

// OwnedDeal is one open deal of an owned party.
type OwnedDeal struct {
	ID, State, Title string
	// Approval is the approval URL when the deal waits on this party.
	Approval string
	Reasons  []string
}

// OwnerParties lists the owner's parties with their open deals.
func (h *Host) OwnerParties(ctx context.Context, owner string) ([]OwnedParty, error) {
	recs, err := h.store.List(ctx, kindOwned, owner+"/", "", 100)
	if err != nil {
		return nil, fmt.Errorf("owner parties: %w", err)
	}
	var out []OwnedParty
	for _, r := range recs {
		var ref ownedRef
		if err := json.Unmarshal(r.Value, &ref); err != nil {
			return nil, fmt.Errorf("decode owned party %s: %w", r.Key, err)
		}
		var p Party
		if _, err := h.get(ctx, kindParty, ref.Party, &p); err != nil {
			return nil, fmt.Errorf("owner parties: %w", err)
		}
		var doc bytes.Buffer
		if err := json.Indent(&doc, h.ConstraintsOf(&p), "", "  "); err != nil {
			return nil, err
		}
		op := OwnedParty{Party: p, Constraints: doc.String()}
		_, od, err := h.openDeals(ctx, p.Opaque)
		if err != nil {
			return nil, err
		}
		for _, id := range od.Deals {
			d, _, err := h.loadDeal(ctx, id)
			if err != nil {
				return nil, err
			}
			row := OwnedDeal{ID: d.ID, State: d.State, Title: d.t.Title}
			if d.Waiting != nil && d.Waiting.Party == p.ID {
				row.Approval, row.Reasons = d.Waiting.URL, d.Waiting.Reasons
			}
			op.Deals = append(op.Deals, row)
		}
		out = append(out, op)
	}
	return out, nil
}

// ownedParty reads a party the owner owns, or not_found.
func (h *Host) ownedParty(ctx context.Context, owner, party string) (*Party, store.Record, error) {
	var p Party
	r, err := h.get(ctx, kindParty, h.opaqueOf(party), &p)
	if errors.Is(err, store.ErrNotFound) || err == nil && (owner == "" || p.Owner != owner) {
		return nil, r, refuse(NotFound, "No such party for this owner.")
	}
	return &p, r, err
}

// RotateToken gives an owned party a new bearer token and revokes the old
// one at once (§18). It returns the new token, shown to the owner once.
func (h *Host) RotateToken(ctx context.Context, owner, party string) (string, error) {
	var token string
	err := h.retry(ctx, func() error {
		p, r, err := h.ownedParty(ctx, owner, party)
		if err != nil {
			return err
		}
		now := h.clock.Now()
		next := h.newID("orpt_", 32)
		writes := []store.Write{create(kindToken, tokenHash(next), tokenRecord{Party: p.Opaque}, now)}
		if p.TokenHash != "" {
			if old, err := h.store.Get(ctx, kindToken, p.TokenHash); err == nil {
				writes = append(writes, store.Write{Op: store.OpDelete, Record: store.Record{Kind: kindToken, Key: old.Key, Version: old.Version}})
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		p.TokenHash = tokenHash(next)
		writes = append(writes, swap(r, p, now))
		if _, err := h.store.Apply(ctx, writes); err != nil {
			return fmt.Errorf("rotate token: %w", err)
		}
		token = next
		return nil
	})
	return token, err
}

// SetHumanSteps sets which steps of an owned party only the signed-in
// owner approves (§11): the agent's bearer is then refused on them.
func (h *Host) SetHumanSteps(ctx context.Context, owner, party string, steps []string) error {
	for _, s := range steps {
		if strictness(unclaimedSteps.mode(s)) < 0 || !validStep(s) {
			return invalid("/human", "Unknown step "+s+".")
		}
	}
	return h.retry(ctx, func() error {
		p, r, err := h.ownedParty(ctx, owner, party)
		if err != nil {
			return err
		}
		p.Human = steps
		_, err = h.store.Apply(ctx, []store.Write{swap(r, p, h.clock.Now())})
		return err
	})
}

func validStep(s string) bool {
	switch s {
	case "list", "negotiate", "accept", "execute", "amend", "settle", "share", "revoke":
		return true
	}
	return false
}
