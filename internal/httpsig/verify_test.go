package httpsig

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// webhookPolicy is what a USP webhook receiver demands.
var webhookPolicy = Policy{
	Required:       []string{"@method", "@authority", "@path", "content-digest", "content-type"},
	RequireCreated: true,
	MaxAge:         5 * time.Minute,
	Skew:           time.Minute,
}

func signedWebhook(t *testing.T, keys rfcKeys, created time.Time, expires time.Time) (Message, []byte) {
	t.Helper()
	body := []byte(`{"event":"booking.confirmed","event_id":"evt_1"}`)
	r, err := http.NewRequest("POST", "https://platform.example/webhooks/usp", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	digest, err := ContentDigest(body)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Digest", digest)
	m := Request(r)
	s, err := Sign(m, SignOptions{
		Components: []Component{C("@method"), C("@authority"), C("@path"), C("content-digest"), C("content-type")},
		Created:    created, Expires: expires,
	}, SigningKey{ID: "test-key-ecc-p256", Algorithm: ECDSAP256SHA256, Key: keys.p256}, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s.SetHeaders(r.Header)
	return m, body
}

func TestVerifyPolicy(t *testing.T) {
	keys := loadKeys(t)
	created := time.Unix(1_800_000_000, 0)
	ctx := context.Background()

	m, body := signedWebhook(t, keys, created, time.Time{})
	if _, err := Verify(ctx, m, created.Add(4*time.Minute), keys.resolver(), webhookPolicy); err != nil {
		t.Fatalf("fresh ECDSA webhook: %v", err)
	}
	if err := VerifyContentDigest(m.Header.Values("Content-Digest"), body); err != nil {
		t.Fatalf("digest: %v", err)
	}
	if err := VerifyContentDigest(m.Header.Values("Content-Digest"), append(body, ' ')); codeOf(err) != CodeDigestMismatch {
		t.Fatalf("changed body: %v, want %s", err, CodeDigestMismatch)
	}

	withExpiry, _ := signedWebhook(t, keys, created, created.Add(time.Minute))
	tests := []struct {
		name   string
		m      func() Message
		now    time.Time
		policy Policy
		want   Code
	}{
		{"too old", func() Message { return m }, created.Add(5*time.Minute + time.Second), webhookPolicy, CodeExpired},
		{"from the future", func() Message { return m }, created.Add(-2 * time.Minute), webhookPolicy, CodeExpired},
		{"past expires", func() Message { return withExpiry }, created.Add(time.Minute), webhookPolicy, CodeExpired},
		{"component not covered", func() Message { return m }, created, Policy{Required: []string{"@query"}}, CodeInvalid},
		{"present field not covered", func() Message {
			c := m
			c.Header = m.Header.Clone()
			c.Header.Set("Idempotency-Key", "k")
			return c
		}, created, Policy{RequiredIfPresent: []string{"idempotency-key"}}, CodeInvalid},
		{"covered field changed", func() Message {
			c := m
			c.Header = m.Header.Clone()
			c.Header.Set("Content-Type", "text/plain")
			return c
		}, created, webhookPolicy, CodeInvalid},
		{"path changed", func() Message { c := m; c.Path = "/other"; return c }, created, webhookPolicy, CodeInvalid},
		{"algorithm not accepted", func() Message { return m }, created, Policy{Algorithms: []Algorithm{Ed25519}}, CodeUnsupported},
		{"no signature", func() Message { return Message{Method: "POST", Header: http.Header{}} }, created, webhookPolicy, CodeMissing},
		{"other label", func() Message { return m }, created, Policy{Label: "sig2"}, CodeMissing},
		{"unknown keyid", func() Message {
			c := m
			c.Header = m.Header.Clone()
			c.Header.Set("Signature-Input", strings.Replace(c.Header.Get("Signature-Input"), "test-key-ecc-p256", "nobody", 1))
			return c
		}, created, webhookPolicy, CodeKeyNotFound},
		{"alg parameter contradicts the key", func() Message {
			c := m
			c.Header = m.Header.Clone()
			c.Header.Set("Signature-Input", c.Header.Get("Signature-Input")+`;alg="ed25519"`)
			return c
		}, created, webhookPolicy, CodeInvalid},
		{"garbled Signature-Input", func() Message {
			c := m
			c.Header = m.Header.Clone()
			c.Header.Set("Signature-Input", `sig1=("@method"`)
			return c
		}, created, webhookPolicy, CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(ctx, tt.m(), tt.now, keys.resolver(), tt.policy)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("Verify = %v, want %s", err, tt.want)
			}
		})
	}
}

// TestHMACIsRefusedByDefault: the RFC's HMAC example verifies only for a
// verifier that lists HMAC; a USP verifier never does.
func TestHMACIsRefusedByDefault(t *testing.T) {
	keys := loadKeys(t)
	m := appendixB2[4].message(t)
	m.Header.Set("Signature-Input", appendixB2[4].input)
	m.Header.Set("Signature", appendixB2[4].signature)
	_, err := Verify(context.Background(), m, time.Unix(rfcCreated, 0), keys.resolver(), Policy{})
	if codeOf(err) != CodeUnsupported {
		t.Fatalf("Verify = %v, want %s", err, CodeUnsupported)
	}
}

func TestResolverOutageIsNotACallerError(t *testing.T) {
	keys := loadKeys(t)
	m, _ := signedWebhook(t, keys, time.Unix(1_800_000_000, 0), time.Time{})
	down := errors.New("profile fetch failed")
	_, err := Verify(context.Background(), m, time.Unix(1_800_000_000, 0), ResolverFunc(func(context.Context, string) (VerifyingKey, error) {
		return VerifyingKey{}, down
	}), webhookPolicy)
	if !errors.Is(err, down) || codeOf(err) != "" {
		t.Fatalf("Verify = %v, want the resolver's error without a code", err)
	}
}

// TestContentDigestExamples uses the digests of RFC 9530 Appendix B and of
// RFC 9421's test messages.
func TestContentDigestExamples(t *testing.T) {
	_, reqBody := readRequest(t, testRequest)
	_, respBody := readResponse(t, testResponse)
	tests := []struct {
		name  string
		body  []byte
		alg   string
		field string
	}{
		{"rfc9530 B.1 sha-256", []byte("{\"hello\": \"world\"}\n"), SHA256, "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:"},
		{"rfc9530 empty sha-256", nil, SHA256, "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"},
		{"rfc9421 request sha-512", reqBody, SHA512, "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:"},
		{"rfc9421 response sha-512", respBody, SHA512, "sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ContentDigest(tt.body, tt.alg)
			if err != nil || got != tt.field {
				t.Fatalf("ContentDigest = %s, %v; want %s", got, err, tt.field)
			}
			if err := VerifyContentDigest([]string{tt.field}, tt.body); err != nil {
				t.Fatalf("VerifyContentDigest: %v", err)
			}
		})
	}
	body := []byte("{\"hello\": \"world\"}\n")
	both, _ := ContentDigest(body, SHA256, SHA512)
	refused := []struct {
		name  string
		lines []string
	}{
		{"absent", nil},
		{"unknown algorithm only", []string{"md5=:AAAA:"}},
		{"one of two wrong", []string{both, "sha-512=:" + strings.Repeat("A", 86) + "==:"}},
		{"not a byte sequence", []string{`sha-256="RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg="`}},
		{"garbled", []string{"sha-256=:RK/0"}},
	}
	for _, tt := range refused {
		if err := VerifyContentDigest(tt.lines, body); codeOf(err) != CodeDigestMismatch {
			t.Errorf("%s: %v, want %s", tt.name, err, CodeDigestMismatch)
		}
	}
	if err := VerifyContentDigest([]string{"md5=:AAAA:, " + both}, body); err != nil {
		t.Errorf("unknown algorithm beside known ones: %v", err)
	}
}
