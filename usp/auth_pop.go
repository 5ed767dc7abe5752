package usp

import (
	"context"
	"strings"

	"frontdesk/internal/clock"
	"frontdesk/usp/pop"
)

// MechanismPoP is the platform_key_pop mechanism (§10.1.6).
const MechanismPoP = "platform_key_pop"

// keyPlatformPrefix starts the platform name of a caller known only by
// its key: "key-" and the RFC 7638 thumbprint. Its reservations have the
// source "usp:key-<jkt>", so a booking made with one key is that key's
// alone.
const keyPlatformPrefix = "key-"

// KeyProofs authenticates platforms by proof of possession of a key they
// generated and never published: the MCP proof in
// _meta.usp.authorization.proof (typ usp-pop+jwt), or over REST the DPoP
// header (typ dpop+jwt). The thumbprint of the proof's key is the
// principal. A call that also presents a credential is left to
// BookingCredentials, which checks the proof against the credential's
// cnf.jkt.
type KeyProofs struct {
	Verifier *pop.Verifier
	// Origin is the business's public origin; a REST proof's htu must
	// name it with the request path.
	Origin string
	Clock  clock.Clock
}

var _ Authenticator = (*KeyProofs)(nil)

// Mechanisms implements Authenticator.
func (k *KeyProofs) Mechanisms() []string { return []string{MechanismPoP} }

// Authenticate implements Authenticator.
func (k *KeyProofs) Authenticate(ctx context.Context, m Method, call Call) (Principal, error) {
	req, ok, err := k.proofRequest(m, call)
	if err != nil || !ok {
		return Principal{}, err
	}
	proof, err := k.Verifier.Verify(ctx, k.Clock.Now(), req)
	if err != nil {
		return Principal{}, err // usp/pop spells its refusals with this protocol's codes
	}
	return keyPrincipal(proof.JKT, MechanismPoP), nil
}

// proofRequest finds a bare proof (no credential) on the call.
func (k *KeyProofs) proofRequest(m Method, call Call) (pop.Request, bool, error) {
	a, declared, err := call.Credentials.MCPAuth()
	if err != nil {
		return pop.Request{}, false, err
	}
	if declared {
		if a.Mechanism != MechanismPoP || a.Credential != "" {
			return pop.Request{}, false, ErrNoCredential
		}
		return pop.Request{Binding: pop.MCP, Proof: a.Proof, Method: m.Name, Arguments: call.Credentials.Params}, true, nil
	}
	r := call.Credentials.Request
	if r == nil || r.Header.Get("DPoP") == "" || strings.HasPrefix(r.Header.Get("Authorization"), "DPoP ") {
		return pop.Request{}, false, ErrNoCredential
	}
	return pop.Request{Binding: pop.REST, Proof: r.Header.Get("DPoP"), Method: r.Method, URL: strings.TrimSuffix(k.Origin, "/") + r.URL.EscapedPath()}, true, nil
}

// keyPrincipal is the principal of a caller proven to hold the key with
// thumbprint jkt.
func keyPrincipal(jkt, mechanism string) Principal {
	return Principal{ID: "jkt:" + jkt, Platform: keyPlatformPrefix + jkt, Mechanism: mechanism}
}

// KeyThumbprint is the RFC 7638 thumbprint of the key the principal
// proved it holds, "" when it authenticated otherwise. A credential
// issued to it is bound to that key (cnf.jkt).
func (p Principal) KeyThumbprint() string {
	jkt, _ := strings.CutPrefix(p.ID, "jkt:")
	if jkt == p.ID {
		return ""
	}
	return jkt
}
