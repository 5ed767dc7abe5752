package usp

import (
	"context"
	"encoding/json"
	"net/http"
)

// Credentials are what a caller presented for a privileged method, as the
// binding found them: HTTP-layer credentials (Authorization, RFC 9421
// signature headers) and, over MCP, _meta.usp.authorization. Public
// methods never read them.
type Credentials struct {
	Header        http.Header     // the HTTP request's headers; nil over stdio
	Authorization json.RawMessage // MCP _meta.usp.authorization, as sent
}

// Principal is an authenticated caller: a platform registered in the
// config, or a staff member for business-only methods.
type Principal struct {
	Platform  string // platform name; empty for staff
	Staff     string // staff user; empty for platforms
	Mechanism string // the AuthorizationMechanism that succeeded
}

// Authenticator checks the credentials of a privileged call against the
// business's AuthorizationPolicy and binds the principal to the profile
// URI it presents (§10.1.6). It returns a *Error with an authentication
// code when the call may not proceed. Mechanisms (api_key,
// platform_key_pop, booking_scoped_credential, http_message_signature)
// plug in here.
type Authenticator interface {
	Authenticate(ctx context.Context, m Method, call Call) (Principal, error)
	// Mechanisms are the AuthorizationMechanism names it accepts, as the
	// profile publishes them.
	Mechanisms() []string
}

// authorize lets a public method through and sends every other one to the
// authenticator; without one, privileged methods are refused.
func (b *Business) authorize(ctx context.Context, m Method, call Call) (Principal, error) {
	if m.Access == Public {
		return Principal{}, nil
	}
	if b.auth == nil {
		return Principal{}, fail(CodeAuthenticationRequired, "%s needs an authenticated caller.", m.Name)
	}
	return b.auth.Authenticate(ctx, m, call)
}

// AuthorizationPolicy is the profile's authorization object (§10.1.6).
type AuthorizationPolicy struct {
	RequireAuthentication bool     `json:"privileged_operations_require_authentication"`
	AcceptedMechanisms    []string `json:"accepted_mechanisms"`
}
