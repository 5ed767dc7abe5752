package staff

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"frontdesk/store"
)

// Passkeys (WebAuthn), as ORP owners have them: a signed-in staff member
// adds one, and then signs in with it instead of a password, from any
// device. A passkey cannot be guessed, so its sign-ins spend no budget
// and a flood of wrong passwords never stands in its way.
//
// A ceremony's state (its challenge) travels in the page as a token
// signed with the business's device key and valid for ceremonyTTL, so
// opening the sign-in page writes nothing to the store.

// kindPasskeyHandle maps a WebAuthn user handle to its username.
const kindPasskeyHandle = "staff.passkey_handle"

// ceremonyTTL is how long a passkey ceremony's page stays usable.
const ceremonyTTL = 10 * time.Minute

// RP is the relying party of a ceremony: the host name the browser is on
// and its origin, such as "book.example.com" and
// "https://book.example.com". Passkeys need a domain name, never an
// address.
type RP struct {
	ID, Origin string
}

// passkeyUser is a User as WebAuthn sees it.
type passkeyUser struct{ u *User }

func (p passkeyUser) WebAuthnID() []byte                         { return p.u.Handle }
func (p passkeyUser) WebAuthnName() string                       { return p.u.Username }
func (p passkeyUser) WebAuthnDisplayName() string                { return p.u.Username }
func (p passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.u.Passkeys }

func (s *Service) webAuthn(rp RP) (*webauthn.WebAuthn, error) {
	w, err := webauthn.New(&webauthn.Config{RPID: rp.ID, RPDisplayName: s.cfg.Business.Name + " staff", RPOrigins: []string{rp.Origin}})
	if err != nil {
		return nil, &Error{Code: CodeInvalid, Message: "passkeys work only when the staff screen is opened under its domain name", Err: err}
	}
	return w, nil
}

// ceremony is the signed state of one passkey ceremony.
type ceremony struct {
	Kind     string               `json:"kind"` // "register" or "signin"
	Username string               `json:"username,omitempty"`
	Session  webauthn.SessionData `json:"session"`
	Expires  time.Time            `json:"expires"`
}

// sealCeremony signs c into a token for the page.
func (s *Service) sealCeremony(ctx context.Context, c ceremony) (string, error) {
	key, err := s.deviceKey(ctx)
	if err != nil {
		return "", internal("device key", err)
	}
	body, err := json.Marshal(c)
	if err != nil {
		return "", internal("encode ceremony", err)
	}
	b := base64.RawURLEncoding.EncodeToString(body)
	return b + "." + base64.RawURLEncoding.EncodeToString(ceremonySignature(key, b)), nil
}

func ceremonySignature(key []byte, body string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("frontdesk staff passkey ceremony\x00" + body))
	return m.Sum(nil)
}

// openCeremony checks a token from the page and returns its ceremony.
func (s *Service) openCeremony(ctx context.Context, token, kind string, now time.Time) (ceremony, error) {
	expired := &Error{Code: CodeDenied, Message: "this passkey request has expired; reload the page and try again"}
	key, err := s.deviceKey(ctx)
	if err != nil {
		return ceremony{}, internal("device key", err)
	}
	body, sig, ok := strings.Cut(token, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, ceremonySignature(key, body)) {
		return ceremony{}, expired
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var c ceremony
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Kind != kind || !now.Before(c.Expires) {
		return ceremony{}, expired
	}
	return c, nil
}

// BeginPasskeyRegistration starts adding a passkey to username's login.
// It returns the options for navigator.credentials.create and the
// ceremony token the finish takes back.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, rp RP, username string) (options []byte, token string, err error) {
	w, err := s.webAuthn(rp)
	if err != nil {
		return nil, "", err
	}
	u, err := s.User(ctx, username)
	if err != nil {
		return nil, "", err
	}
	if len(u.Handle) == 0 {
		u.Handle = make([]byte, 32)
		if _, err := io.ReadFull(s.random, u.Handle); err != nil {
			return nil, "", internal("passkey handle", err)
		}
	}
	creation, session, err := w.BeginRegistration(passkeyUser{&u},
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(webauthn.Credentials(u.Passkeys).CredentialDescriptors()))
	if err != nil {
		return nil, "", internal("begin passkey registration", err)
	}
	token, err = s.sealCeremony(ctx, ceremony{Kind: "register", Username: u.Username, Session: *session, Expires: s.clock.Now().Add(ceremonyTTL)})
	if err != nil {
		return nil, "", err
	}
	options, _ = json.Marshal(creation)
	return options, token, nil
}

// FinishPasskeyRegistration checks the browser's answer to
// BeginPasskeyRegistration and adds the passkey to username's login.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, rp RP, username, token string, answer []byte) error {
	now := s.clock.Now()
	c, err := s.openCeremony(ctx, token, "register", now)
	if err != nil {
		return err
	}
	if c.Username != username {
		return &Error{Code: CodeDenied, Message: "this passkey request is for another login"}
	}
	w, err := s.webAuthn(rp)
	if err != nil {
		return err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(answer)
	if err != nil {
		return &Error{Code: CodeDenied, Message: "the passkey answer could not be read", Err: err}
	}
	r, err := s.records.Get(ctx, kindUser, username)
	if err != nil {
		return internal("read user", err)
	}
	var u User
	if err := json.Unmarshal(r.Value, &u); err != nil {
		return internal("decode user", err)
	}
	handle := c.Session.UserID
	if len(u.Handle) != 0 && !bytes.Equal(u.Handle, handle) {
		return &Error{Code: CodeDenied, Message: "this passkey request is for another login"}
	}
	cred, err := w.CreateCredential(passkeyUser{&User{Username: u.Username, Handle: handle, Passkeys: u.Passkeys}}, c.Session, parsed)
	if err != nil {
		return &Error{Code: CodeDenied, Message: "the passkey did not verify", Err: err}
	}
	writes := []store.Write{}
	if len(u.Handle) == 0 {
		u.Handle = handle
		writes = append(writes, store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindPasskeyHandle, Key: base64.RawURLEncoding.EncodeToString(handle),
			Value: []byte(fmt.Sprintf("%q", u.Username)), UpdatedAt: now}})
	}
	u.Passkeys = append(u.Passkeys, *cred)
	r.Value, _ = json.Marshal(u)
	r.UpdatedAt = now
	writes = append(writes, store.Write{Op: store.OpSwap, Record: r})
	if _, err := s.records.Apply(ctx, writes); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return &Error{Code: CodeDenied, Message: "the login changed meanwhile; try again"}
		}
		return internal("save passkey", err)
	}
	return nil
}

// BeginPasskeySignIn starts a passkey sign-in for whoever holds one. It
// writes nothing.
func (s *Service) BeginPasskeySignIn(ctx context.Context, rp RP) (options []byte, token string, err error) {
	w, err := s.webAuthn(rp)
	if err != nil {
		return nil, "", err
	}
	assertion, session, err := w.BeginDiscoverableLogin()
	if err != nil {
		return nil, "", internal("begin passkey sign-in", err)
	}
	token, err = s.sealCeremony(ctx, ceremony{Kind: "signin", Session: *session, Expires: s.clock.Now().Add(ceremonyTTL)})
	if err != nil {
		return nil, "", err
	}
	options, _ = json.Marshal(assertion)
	return options, token, nil
}

// FinishPasskeySignIn checks the browser's answer and signs the passkey's
// owner in, as SignInFrom does (device is the device cookie the browser
// sent, which then names this login too).
func (s *Service) FinishPasskeySignIn(ctx context.Context, rp RP, token string, answer []byte, device string) (SignedIn, error) {
	now := s.clock.Now()
	c, err := s.openCeremony(ctx, token, "signin", now)
	if err != nil {
		return SignedIn{}, err
	}
	w, err := s.webAuthn(rp)
	if err != nil {
		return SignedIn{}, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(answer)
	if err != nil {
		return SignedIn{}, &Error{Code: CodeDenied, Message: "the passkey answer could not be read", Err: err}
	}
	var u User
	var r store.Record
	_, cred, err := w.ValidatePasskeyLogin(func(_, handle []byte) (webauthn.User, error) {
		h, err := s.records.Get(ctx, kindPasskeyHandle, base64.RawURLEncoding.EncodeToString(handle))
		if err != nil {
			return nil, err
		}
		var name string
		if err := json.Unmarshal(h.Value, &name); err != nil {
			return nil, err
		}
		if r, err = s.records.Get(ctx, kindUser, name); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(r.Value, &u); err != nil {
			return nil, err
		}
		return passkeyUser{&u}, nil
	}, c.Session, parsed)
	if err != nil || u.Disabled {
		return SignedIn{}, &Error{Code: CodeDenied, Message: "the passkey did not verify", Err: err}
	}
	for i := range u.Passkeys {
		if bytes.Equal(u.Passkeys[i].ID, cred.ID) {
			u.Passkeys[i].Authenticator.SignCount = cred.Authenticator.SignCount
		}
	}
	r.Value, _ = json.Marshal(u)
	r.UpdatedAt = now
	if _, err := s.records.Swap(ctx, r); err != nil && !errors.Is(err, store.ErrConflict) {
		return SignedIn{}, internal("save passkey use", err)
	}
	key, err := s.deviceKey(ctx)
	if err != nil {
		return SignedIn{}, internal("device key", err)
	}
	return s.openSession(ctx, u, parseDevice(device, key), key, now)
}
