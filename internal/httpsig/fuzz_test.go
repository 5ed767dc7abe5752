package httpsig

import (
	"bytes"
	"testing"
)

// FuzzParseSignatureInput: no input panics, and whatever parses
// re-serializes to a form that parses back to itself.
func FuzzParseSignatureInput(f *testing.F) {
	for _, tc := range appendixB2 {
		f.Add(tc.input)
	}
	f.Fuzz(func(t *testing.T, field string) {
		inputs, err := ParseSignatureInput([]string{field})
		if err != nil {
			return
		}
		out, err := FormatSignatureInput(inputs...)
		if err != nil {
			t.Fatalf("parsed %q but cannot serialize it: %v", field, err)
		}
		again, err := ParseSignatureInput([]string{out})
		if err != nil {
			t.Fatalf("serialized form %q does not parse: %v", out, err)
		}
		if out2, _ := FormatSignatureInput(again...); out2 != out {
			t.Fatalf("serialization not stable: %q then %q", out, out2)
		}
	})
}

// FuzzParseSignature: the same for the Signature field.
func FuzzParseSignature(f *testing.F) {
	for _, tc := range appendixB2 {
		f.Add(tc.signature)
	}
	f.Fuzz(func(t *testing.T, field string) {
		sigs, err := ParseSignature([]string{field})
		if err != nil {
			return
		}
		for label, sig := range sigs {
			out, err := FormatSignature(label, sig)
			if err != nil {
				t.Fatalf("parsed %q but cannot serialize %s: %v", field, label, err)
			}
			again, err := ParseSignature([]string{out})
			if err != nil || !bytes.Equal(again[label], sig) {
				t.Fatalf("%q does not round-trip: %v", out, err)
			}
		}
	})
}
