package orp_test

import (
	"encoding/json"
	"os"
	"testing"

	"frontdesk/orp"
)

// TestSeatsHashSpecVectors recomputes the 0.4 terms_hash values §20
// gives: the referral chain deal of §20.6 ({terms, parties}, signed left
// out, party order as offered) and the standing offer of §20.4 (the
// terms alone, checked_at, expires_at and claims included).
func TestSeatsHashSpecVectors(t *testing.T) {
	var deal struct {
		Body struct {
			Parties   []orp.Seat      `json:"parties"`
			Terms     json.RawMessage `json:"terms"`
			TermsHash string          `json:"terms_hash"`
		} `json:"body"`
	}
	readJSON(t, "schema/testdata/examples/24-04.json", &deal)
	got, err := orp.SeatsHash(deal.Body.Terms, deal.Body.Parties)
	if err != nil || got != deal.Body.TermsHash || got != "sha256-lx3RaehTPOZnKQISKqCAJWIiwbJ1U51oHl0gN791ukU" {
		t.Fatalf("referral chain hash = %s %v, want %s", got, err, deal.Body.TermsHash)
	}
	// Signatures are not part of the hash.
	for i := range deal.Body.Parties {
		deal.Body.Parties[i].Signed = false
	}
	if again, _ := orp.SeatsHash(deal.Body.Terms, deal.Body.Parties); again != got {
		t.Fatalf("hash with no signatures = %s, want %s", again, got)
	}
	// Party order is part of it.
	p := deal.Body.Parties
	p[0], p[1] = p[1], p[0]
	if swapped, _ := orp.SeatsHash(deal.Body.Terms, p); swapped == got {
		t.Fatal("the hash ignores party order")
	}

	var offer struct {
		Body struct {
			Terms     json.RawMessage `json:"terms"`
			TermsHash string          `json:"terms_hash"`
		} `json:"body"`
	}
	readJSON(t, "schema/testdata/examples/23-04.json", &offer)
	if got, err := orp.Hash(offer.Body.Terms); err != nil || got != "sha256-HA2twwIzdpw_Vgsy8k6lQr3yn08tFmkJkGmSrh0Jy1U" {
		t.Fatalf("standing 0.4 offer hash = %s %v", got, err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
