package main

import (
	"encoding/json"
	"slices"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// TestORPAttestationSwitch: orp.attestation turns consumer attestation
// on, and discovery then lists attest beside leave and seat; off (the
// default) it lists leave and seat only, and discovery lists 0.4 first.
func TestORPAttestationSwitch(t *testing.T) {
	for _, on := range []bool{false, true} {
		s := startORPAt(t, t.TempDir(), "", clock.NewFixed(testNow), "127.0.0.1:0", func(c *config.Config) { c.ORP.Attestation = on })
		_, b := s.do("GET", "/.well-known/orp.json", "", nil, nil)
		var d struct {
			Orp          []string `json:"orp"`
			Capabilities struct {
				Messages []string `json:"messages"`
			} `json:"capabilities"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		m := d.Capabilities.Messages
		if !slices.Equal(d.Orp, []string{"0.4", "0.3"}) || !slices.Contains(m, "leave") || !slices.Contains(m, "seat") || slices.Contains(m, "attest") != on {
			t.Fatalf("attestation %v: discovery orp %v, messages %v", on, d.Orp, m)
		}
		s.stop()
	}
}
