package usp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
)

// The mechanism names this package implements. MechanismStaff is
// internal: the business's own staff, never published in the profile.
const (
	MechanismAPIKey = "api_key"
	MechanismStaff  = "staff_session"
)

// APIKeys authenticates platforms the owner registered in the config
// ([[usp.platforms]]) by a pre-shared key, sent as "Authorization: Bearer
// <key>" or, over stdio MCP, as _meta.usp.authorization with mechanism
// api_key. Keys are compared by their SHA-256, the only form the config
// keeps; a platform may have several at once while one is rotated.
type APIKeys struct {
	platforms []Platform
}

var _ Authenticator = (*APIKeys)(nil)

// NewAPIKeys returns the api_key authenticator of the registered
// platforms, or nil when none is registered.
func NewAPIKeys(platforms []Platform) *APIKeys {
	if len(platforms) == 0 {
		return nil
	}
	return &APIKeys{platforms: platforms}
}

// HashAPIKey is the form the config stores a key in: "sha256:" and the
// hex SHA-256 of the key.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Mechanisms implements Authenticator.
func (k *APIKeys) Mechanisms() []string { return []string{MechanismAPIKey} }

// Authenticate implements Authenticator.
func (k *APIKeys) Authenticate(ctx context.Context, m Method, call Call) (Principal, error) {
	key := ""
	a, declared, err := call.Credentials.MCPAuth()
	if err != nil {
		return Principal{}, err
	}
	if declared {
		if a.Mechanism != MechanismAPIKey {
			return Principal{}, ErrNoCredential
		}
		key = a.Credential
	}
	if key == "" {
		scheme, value, _ := strings.Cut(call.Credentials.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") {
			if declared {
				return Principal{}, fail(CodeAuthenticationRequired, "The api_key mechanism needs the key in _meta.usp.authorization.credential or an Authorization: Bearer header.")
			}
			return Principal{}, ErrNoCredential
		}
		key = strings.TrimSpace(value)
	}
	hash := []byte(HashAPIKey(key))
	for _, p := range k.platforms {
		for _, h := range p.APIKeyHashes {
			if subtle.ConstantTimeCompare(hash, []byte(strings.ToLower(h))) == 1 {
				return Principal{ID: MechanismAPIKey + ":" + p.Name, Platform: p.Name, Mechanism: MechanismAPIKey}, nil
			}
		}
	}
	return Principal{}, fail(CodeAuthenticationRequired, "The API key is not one this business issued.")
}

// StaffSessions authenticates the business's own staff by a staff
// session token, for business-only methods such as usp_bookings_confirm:
// _meta.usp.authorization with mechanism staff_session, or an
// "Authorization: StaffSession <token>" header. Check returns the staff
// user of a live session.
type StaffSessions struct {
	Check func(ctx context.Context, token string) (user string, err error)
}

var _ Authenticator = StaffSessions{}

// Mechanisms implements Authenticator: none are published, as staff are
// not platforms.
func (StaffSessions) Mechanisms() []string { return nil }

// Authenticate implements Authenticator.
func (s StaffSessions) Authenticate(ctx context.Context, m Method, call Call) (Principal, error) {
	token := ""
	if a, ok, _ := call.Credentials.MCPAuth(); ok {
		if a.Mechanism != MechanismStaff {
			return Principal{}, ErrNoCredential
		}
		token = a.Credential
	} else if scheme, value, _ := strings.Cut(call.Credentials.Header.Get("Authorization"), " "); strings.EqualFold(scheme, "StaffSession") {
		token = strings.TrimSpace(value)
	} else {
		return Principal{}, ErrNoCredential
	}
	user, err := s.Check(ctx, token)
	if err != nil || user == "" {
		return Principal{}, fail(CodeAuthenticationRequired, "The staff session is not valid; sign in again.")
	}
	return Principal{Staff: user, Mechanism: MechanismStaff}, nil
}
