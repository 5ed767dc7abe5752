package orp

import "testing"

// TestCounterVoidsConsent: a consent binds one terms_hash (H2); when the
// terms change, the consents for the old hash are dropped and the
// person must approve the new one.
func TestCounterVoidsConsent(t *testing.T) {
	d := &dealRecord{TermsHash: "sha256-new", Consents: []consentRef{
		{ID: "cns_old", Party: "p1", TermsHash: "sha256-old"},
		{ID: "cns_new", Party: "p2", TermsHash: "sha256-new"},
	}}
	d.voidConsents()
	if len(d.Consents) != 1 || d.Consents[0].ID != "cns_new" {
		t.Fatalf("consents after the terms changed = %+v, want only the one for the new hash", d.Consents)
	}
}

// TestAttestationVerifiesForTheAttesterOnly: an obligation verified by
// an attestation counts as verified for the attester alone (P3), so it
// cannot make another party's money payable; a host receipt counts for
// both.
func TestAttestationVerifiesForTheAttesterOnly(t *testing.T) {
	d := &dealRecord{Obligations: []obligationState{{ID: "place", State: obVerified}},
		Proofs: map[string]*proofState{"place": {Method: "attestation", By: "maker"}}}
	if !d.verifiedFor("place", "maker") || d.verifiedFor("place", "publisher") {
		t.Fatal("an attestation must verify for the attester only")
	}
	d.Proofs["place"].Method = "proof_url"
	if !d.verifiedFor("place", "publisher") {
		t.Fatal("a host receipt verifies for every party")
	}
}
