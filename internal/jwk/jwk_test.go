package jwk

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestThumbprintsOfPublishedKeys(t *testing.T) {
	tests := []struct {
		name, jwk, want string
	}{
		// RFC 8037 Appendix A.3.
		{"rfc8037", `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`, "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"},
		// The USP proof-of-possession vectors' key K1, members in another order.
		{"usp K1", `{"x":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w","kty":"OKP","crv":"Ed25519","kid":"ignored"}`, "UDDReOZl1ipXAfp9wYsm13sDBMK5og--QWdBjzuf6o4"},
		// RFC 9421 Appendix B.1.4 and B.1.3 test keys.
		{"test-key-ed25519", `{"kty":"OKP","crv":"Ed25519","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}`, "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"},
		{"test-key-ecc-p256", `{"kty":"EC","crv":"P-256","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0"}`, "ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Parse([]byte(tt.jwk))
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Thumbprint(); got != tt.want {
				t.Fatalf("Thumbprint = %s, want %s", got, tt.want)
			}
			again, err := Parse(mustJSON(t, k))
			if err != nil || again.Thumbprint() != tt.want {
				t.Fatalf("published form does not round-trip: %v", err)
			}
		})
	}
}

func mustJSON(t *testing.T, k Key) []byte {
	t.Helper()
	b, err := k.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func edJWK(enc []byte) string {
	return `{"kty":"OKP","crv":"Ed25519","x":"` + base64.RawURLEncoding.EncodeToString(enc) + `"}`
}

func fromHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWeakAndMalformedKeysAreRefused(t *testing.T) {
	ff := strings.Repeat("ff", 30)
	tests := []struct {
		name string
		jwk  string
	}{
		{"identity", edJWK(fromHex(t, "01"+strings.Repeat("00", 31)))},
		{"order 4 (y = 0)", edJWK(make([]byte, 32))},
		{"order 2 (y = p-1)", edJWK(fromHex(t, "ec"+ff+"7f"))},
		{"order 8", edJWK(fromHex(t, "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"))},
		{"y = p, non-canonical zero", edJWK(fromHex(t, "ed"+ff+"7f"))},
		{"y = p+1, non-canonical identity", edJWK(fromHex(t, "ee"+ff+"7f"))},
		{"x = 0 with the sign bit set", edJWK(fromHex(t, "01"+strings.Repeat("00", 30)+"80"))},
		{"not on the curve", edJWK(fromHex(t, "02"+strings.Repeat("00", 31)))},
		{"short x", `{"kty":"OKP","crv":"Ed25519","x":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1"}`},
		{"padded x", `{"kty":"OKP","crv":"Ed25519","x":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w="}`},
		{"private member", `{"kty":"OKP","crv":"Ed25519","x":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w","d":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"}`},
		{"symmetric", `{"kty":"oct","k":"c2VjcmV0"}`},
		{"P-256 point off the curve", `{"kty":"EC","crv":"P-256","x":"qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA","y":"Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F1"}`},
		{"not JSON", `{"kty":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if k, err := Parse([]byte(tt.jwk)); err == nil {
				t.Fatalf("Parse accepted %s as %s", tt.jwk, k.Thumbprint())
			}
		})
	}
}

// TestCurveSubstitutionIsUnsupported: the same bytes labelled with another
// OKP curve are never read as an Ed25519 key.
func TestCurveSubstitutionIsUnsupported(t *testing.T) {
	for _, crv := range []string{"X448", "X25519", "Ed448"} {
		_, err := Parse([]byte(`{"kty":"OKP","crv":"` + crv + `","x":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w"}`))
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("crv %s: err = %v, want ErrUnsupported", crv, err)
		}
	}
}

func TestOrdinaryKeysAreAccepted(t *testing.T) {
	for i := range 64 {
		seed := make([]byte, ed25519.SeedSize)
		seed[0] = byte(i)
		pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
		if _, err := Parse([]byte(edJWK(pub))); err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
	}
}
