package orp

import (
	"math"
	"testing"
)

// TestWilsonSpecExample: the spec's own attestation, verified 46.3 of
// evidence weight 48.4, scores 858 (§15.3).
func TestWilsonSpecExample(t *testing.T) {
	if got := int(math.Round(1000 * wilsonLower(46.3, 48.4))); got != 858 {
		t.Fatalf("score = %d, want 858", got)
	}
}
