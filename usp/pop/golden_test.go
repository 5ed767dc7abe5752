package pop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"frontdesk/internal/golden"
)

// TestRefusalTexts pins what a platform is told for each refusal, from
// real presentations rather than the table behind them.
func TestRefusalTexts(t *testing.T) {
	v := &Verifier{Audiences: []string{businessProfile}, Replay: openSQLite(t), Nonces: listedNonces{"n-1"}}
	req, c := presentation(t)
	c.Nonce = "n-1"
	ok := sign(t, platform, MCP, c)
	noNonce := c
	noNonce.Nonce, noNonce.JTI = "", "jti-other"
	cases := []struct {
		name  string
		proof string
	}{
		{"missing", ""},
		{"invalid", "a.b.c"},
		{"key mismatch", sign(t, intruder, MCP, c)},
		{"nonce required", sign(t, platform, MCP, noNonce)},
		{"accepted", ok},
		{"replayed", ok},
	}
	var b strings.Builder
	for _, tc := range cases {
		req.Proof = tc.proof
		_, err := v.Verify(context.Background(), t0, req)
		if tc.name == "accepted" {
			if err != nil {
				t.Fatalf("accepted case refused: %v", err)
			}
			continue
		}
		e, isErr := err.(*Error)
		if !isErr {
			t.Fatalf("%s: %v, want an *Error", tc.name, err)
		}
		fmt.Fprintf(&b, "%s\t%s\tnonce=%q\n", e.Code, e.Message, e.Value(0))
	}
	golden.Check(t, "refusals.txt", []byte(b.String()))
}
