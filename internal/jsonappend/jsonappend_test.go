package jsonappend

import (
	"encoding/json"
	"testing"
)

func TestStringIsEncodingJSONs(t *testing.T) {
	for _, s := range []string{"", "riverside", "Old Town Lodge", "a \"quote\"", `back\slash`, "<b>", "R&B", "tab\t", "\x00", "\x7f", "café", "\u2028", "\xff", "https://example.com/book/riverside?roomtype=double&checkin=2027-01-05"} {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestNumberIsEncodingJSONs(t *testing.T) {
	for _, n := range []json.Number{"", "0", "-0", "357.00", "38.38", "-1.5", "12", "1e3", "1.5E-7", "01", "1.", ".5", "-", "+1", "1.2.3", "0x10", "NaN", " 1", "1 "} {
		want, wantErr := json.Marshal(n)
		got, err := Number(nil, n)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
			t.Errorf("Number(%q) = %s, %v; want %s, %v", n, got, err, want, wantErr)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("riverside")
	f.Add("<&>\u2028\xff\"")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("String(%q) = %s, want x%s", s, got, want)
		}
		want, wantErr := json.Marshal(json.Number(s))
		got, err := Number(nil, json.Number(s))
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
			t.Fatalf("Number(%q) = %s, %v; want %s, %v", s, got, err, want, wantErr)
		}
	})
}
