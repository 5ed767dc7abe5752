package credential

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"frontdesk/internal/golden"
)

// TestWireForms pins the issued credential as a creation response carries
// it, and the refusal text, with fixed randomness.
func TestWireForms(t *testing.T) {
	seq := make([]byte, 2*randomBytes)
	for i := range seq {
		seq[i] = byte(i * 7)
	}
	is := Issuer{Rand: bytes.NewReader(seq)}
	bound, _, err := is.New("bkg_1", "UDDReOZl1ipXAfp9wYsm13sDBMK5og--QWdBjzuf6o4", t0.Add(90*24*time.Hour), t0)
	if err != nil {
		t.Fatal(err)
	}
	bearer, _, err := is.New("bkg_2", "", t0.Add(24*time.Hour), t0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(map[string]any{"bound": bound, "bearer": bearer, "refusal": absent("x").Message}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "wire.json", append(out, '\n'))
}
