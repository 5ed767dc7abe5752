package staff

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"strings"

	"frontdesk/store"
)

// Device cookies (OWASP's "device cookies" against lockout): a browser
// that signed in as a login before carries a token for that login,
// signed with a key only this business holds. Its failed sign-ins count
// against a budget of its own, so a flood of wrong passwords from other
// clients neither locks it out nor takes its place at the password
// check. A cookie holds the tokens of up to maxDeviceLogins logins, for a
// desk computer several people use.

// maxDeviceLogins is how many logins one device cookie remembers.
const maxDeviceLogins = 4

// kindDeviceKey holds the key device tokens are signed with.
const kindDeviceKey = "staff.device_key"

// deviceToken is one login's token in a device cookie.
type deviceToken struct {
	username, id string
}

// parseDevice reads the tokens of a device cookie, keeping those whose
// signature verifies with key.
func parseDevice(cookie string, key []byte) []deviceToken {
	var out []deviceToken
	for part := range strings.SplitSeq(cookie, "~") {
		fields := strings.Split(part, ".")
		if len(fields) != 3 || len(out) >= maxDeviceLogins {
			continue
		}
		name, err := base64.RawURLEncoding.DecodeString(fields[0])
		if err != nil {
			continue
		}
		sig, err := base64.RawURLEncoding.DecodeString(fields[2])
		if err != nil || !hmac.Equal(sig, deviceSignature(key, string(name), fields[1])) {
			continue
		}
		out = append(out, deviceToken{username: string(name), id: fields[1]})
	}
	return out
}

// deviceSignature signs one login's device id.
func deviceSignature(key []byte, username, id string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("frontdesk staff device\x00" + username + "\x00" + id))
	return m.Sum(nil)
}

// formatDevice writes the tokens as a cookie value.
func formatDevice(tokens []deviceToken, key []byte) string {
	parts := make([]string, 0, len(tokens))
	for _, t := range tokens {
		parts = append(parts, base64.RawURLEncoding.EncodeToString([]byte(t.username))+"."+t.id+"."+
			base64.RawURLEncoding.EncodeToString(deviceSignature(key, t.username, t.id)))
	}
	return strings.Join(parts, "~")
}

// knownDevice returns the device id the cookie holds for username, or "".
func knownDevice(tokens []deviceToken, username string) string {
	for _, t := range tokens {
		if t.username == username {
			return t.id
		}
	}
	return ""
}

// remember puts username's token first in tokens, making one when the
// device has none for it, and drops the oldest beyond maxDeviceLogins.
func (s *Service) remember(tokens []deviceToken, username string) ([]deviceToken, error) {
	id := knownDevice(tokens, username)
	if id == "" {
		b := make([]byte, 16)
		if _, err := io.ReadFull(s.random, b); err != nil {
			return nil, err
		}
		id = base64.RawURLEncoding.EncodeToString(b)
	}
	out := []deviceToken{{username: username, id: id}}
	for _, t := range tokens {
		if t.username != username && len(out) < maxDeviceLogins {
			out = append(out, t)
		}
	}
	return out, nil
}

// deviceKey returns the business's device key, making it on first use.
// Two processes making it at once both end with the one stored first.
func (s *Service) deviceKey(ctx context.Context) ([]byte, error) {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if s.devKey != nil {
		return s.devKey, nil
	}
	r, err := s.records.Get(ctx, kindDeviceKey, "key")
	if errors.Is(err, store.ErrNotFound) {
		key := make([]byte, 32)
		if _, err := io.ReadFull(s.random, key); err != nil {
			return nil, err
		}
		_, err = s.records.Create(ctx, store.Record{Kind: kindDeviceKey, Key: "key", Value: []byte(`"` + base64.StdEncoding.EncodeToString(key) + `"`), UpdatedAt: s.clock.Now()})
		if err != nil && !errors.Is(err, store.ErrExists) {
			return nil, err
		}
		r, err = s.records.Get(ctx, kindDeviceKey, "key")
	}
	if err != nil {
		return nil, err
	}
	key, err := base64.StdEncoding.DecodeString(strings.Trim(string(r.Value), `"`))
	if err != nil || len(key) < 32 {
		return nil, errors.New("device key record is damaged")
	}
	s.devKey = key
	return key, nil
}
