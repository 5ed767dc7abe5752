package usp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/sqlite"
	"frontdesk/store"
)

func testStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "auth.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func bearer(key string) Credentials {
	return Credentials{Header: http.Header{"Authorization": {"Bearer " + key}}}
}

func TestAPIKeys(t *testing.T) {
	keys := NewAPIKeys([]Platform{
		{Name: "shuttlebook", APIKeyHashes: []string{HashAPIKey("old-key"), HashAPIKey("new-key")}},
		{Name: "other", APIKeyHashes: []string{HashAPIKey("other-key")}},
	})
	m, _ := MethodNamed("usp_services_list")
	tests := []struct {
		name     string
		creds    Credentials
		platform string
		code     Code
		none     bool
	}{
		{name: "current key", creds: bearer("new-key"), platform: "shuttlebook"},
		{name: "key being rotated out", creds: bearer("old-key"), platform: "shuttlebook"},
		{name: "other platform", creds: bearer("other-key"), platform: "other"},
		{name: "unknown key", creds: bearer("guess"), code: CodeAuthenticationRequired},
		{name: "no header", creds: Credentials{Header: http.Header{}}, none: true},
		{name: "another scheme", creds: Credentials{Header: http.Header{"Authorization": {"DPoP abc"}}}, none: true},
		{name: "stdio meta", creds: Credentials{Authorization: json.RawMessage(`{"mechanism":"api_key","credential":"new-key"}`)}, platform: "shuttlebook"},
		{name: "meta of another mechanism", creds: Credentials{Authorization: json.RawMessage(`{"mechanism":"platform_key_pop"}`)}, none: true},
		{name: "meta without a key", creds: Credentials{Authorization: json.RawMessage(`{"mechanism":"api_key"}`)}, code: CodeAuthenticationRequired},
		{name: "meta not an object", creds: Credentials{Authorization: json.RawMessage(`"new-key"`)}, code: CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := keys.Authenticate(context.Background(), m, Call{Credentials: tt.creds})
			switch {
			case tt.none:
				if !errors.Is(err, ErrNoCredential) {
					t.Fatalf("err = %v, want ErrNoCredential", err)
				}
			case tt.code != "":
				if got := protocolCode(t, err); got != tt.code {
					t.Fatalf("code = %s, want %s", got, tt.code)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if p.Platform != tt.platform || p.ID != "api_key:"+tt.platform || p.Mechanism != MechanismAPIKey {
					t.Fatalf("principal = %+v, want platform %s", p, tt.platform)
				}
			}
		})
	}
}

// stubAuth is an authenticator of another mechanism, as the ones built on
// this seam are.
type stubAuth struct{ mechanism string }

func (s stubAuth) Mechanisms() []string { return []string{s.mechanism} }
func (s stubAuth) Authenticate(ctx context.Context, m Method, call Call) (Principal, error) {
	a, ok, _ := call.Credentials.MCPAuth()
	if !ok || a.Mechanism != s.mechanism {
		return Principal{}, ErrNoCredential
	}
	return Principal{ID: s.mechanism + ":x", Platform: "x", Mechanism: s.mechanism}, nil
}

func TestChainComposesMechanisms(t *testing.T) {
	chain := Chain{NewAPIKeys([]Platform{{Name: "p", APIKeyHashes: []string{HashAPIKey("k")}}}), stubAuth{"platform_key_pop"}}
	if got := chain.Mechanisms(); len(got) != 2 || got[0] != "api_key" || got[1] != "platform_key_pop" {
		t.Fatalf("mechanisms = %v", got)
	}
	m, _ := MethodNamed("usp_services_list")
	ctx := context.Background()
	if p, err := chain.Authenticate(ctx, m, Call{Credentials: bearer("k")}); err != nil || p.Platform != "p" {
		t.Fatalf("api key: %+v, %v", p, err)
	}
	pop := Credentials{Authorization: json.RawMessage(`{"mechanism":"platform_key_pop"}`)}
	if p, err := chain.Authenticate(ctx, m, Call{Credentials: pop}); err != nil || p.Mechanism != "platform_key_pop" {
		t.Fatalf("second member: %+v, %v", p, err)
	}
	if _, err := chain.Authenticate(ctx, m, Call{}); !errors.Is(err, ErrNoCredential) {
		t.Fatalf("nothing presented: err = %v", err)
	}
	// A declared mechanism nobody accepts is refused, never let through.
	unknown := Credentials{Authorization: json.RawMessage(`{"mechanism":"oauth2_bearer","credential":"k"}`)}
	if got := protocolCode(t, firstErr(chain.Authenticate(ctx, m, Call{Credentials: unknown}))); got != CodeAuthenticationRequired {
		t.Fatalf("unknown mechanism: %s", got)
	}
}

func firstErr(_ Principal, err error) error { return err }

func TestBindingIsTrustOnFirstUse(t *testing.T) {
	b := NewBindings(testStore(t))
	ctx, now := context.Background(), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := b.Bind(ctx, "api_key:p", "https://p.example/profile.json", now); err != nil {
		t.Fatal(err)
	}
	if err := b.Bind(ctx, "api_key:p", "https://p.example/profile.json", now); err != nil {
		t.Fatalf("same URI again: %v", err)
	}
	// Many principals sharing one profile URI is the normal case.
	if err := b.Bind(ctx, "jkt:abc", "https://p.example/profile.json", now); err != nil {
		t.Fatalf("second principal, same URI: %v", err)
	}
	if got := protocolCode(t, b.Bind(ctx, "api_key:p", "https://evil.example/profile.json", now)); got != CodeProfileNotTrusted {
		t.Fatalf("different URI from the same principal: %s", got)
	}
}
