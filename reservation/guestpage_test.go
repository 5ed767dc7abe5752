package reservation

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/store"
)

// TestGuestTokens: a new guest token names its location before 32
// random bytes in base64url, and opens the page its record names; a
// token of the earlier form, the random part alone, keeps opening its
// page; the booking form of a location takes its own tokens and earlier
// ones, never another location's; malformed tokens reach no store.
func TestGuestTokens(t *testing.T) {
	for engine, open := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, open(t))
			c := newCore(f, nil)
			tok, err := c.NewGuestToken(riverside)
			if err != nil {
				t.Fatal(err)
			}
			random, ok := strings.CutPrefix(tok, "RIV.")
			if b, err := base64.RawURLEncoding.DecodeString(random); !ok || err != nil || len(b) != GuestTokenBytes {
				t.Fatalf("NewGuestToken = %q, want RIV. and %d random bytes in base64url", tok, GuestTokenBytes)
			}
			earlier := strings.Repeat("A", 43)
			if _, err := f.st.Apply(ctx, []store.Write{GuestPageWrite(tok, "RIV-NEW", now), GuestPageWrite(earlier, "RIV-OLD", now)}); err != nil {
				t.Fatal(err)
			}
			for tok, want := range map[string]string{tok: "RIV-NEW", earlier: "RIV-OLD"} {
				if got, err := c.GuestReference(ctx, tok); err != nil || got != want {
					t.Errorf("GuestReference(%q) = %q, %v; want %q", tok, got, err, want)
				}
			}
			// The random part alone is another token, of no page.
			if _, err := c.GuestReference(ctx, random); err != ErrNoReservation {
				t.Errorf("the random part alone = %v, want ErrNoReservation", err)
			}

			oldtown := business.Location{Slug: "oldtown", Prefix: "OTL"}
			for _, tt := range []struct {
				name         string
				tok          string
				valid, river bool
			}{
				{"new", tok, true, true},
				{"earlier", earlier, true, true},
				{"another location's", oldtown.Token(random), true, false},
				{"short random part", "RIV." + random[1:], false, false},
				{"not base64url", "RIV." + random[:42] + "+", false, false},
				{"bad prefix", "rIV." + random, false, false},
				{"two dots", "RIV.." + random[1:], false, false},
				{"empty", "", false, false},
			} {
				t.Run(tt.name, func(t *testing.T) {
					if got := ValidGuestToken(tt.tok); got != tt.valid {
						t.Errorf("ValidGuestToken(%q) = %v, want %v", tt.tok, got, tt.valid)
					}
					if got := GuestTokenFor(tt.tok, riverside); got != tt.river {
						t.Errorf("GuestTokenFor(%q, riverside) = %v, want %v", tt.tok, got, tt.river)
					}
					if !tt.valid {
						if _, err := c.GuestReference(ctx, tt.tok); err != ErrNoReservation {
							t.Errorf("GuestReference(%q) = %v, want ErrNoReservation", tt.tok, err)
						}
					}
				})
			}
		})
	}
}
