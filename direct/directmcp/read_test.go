package directmcp

import (
	"encoding/json"
	"testing"
)

func sameQuoteJSON(t *testing.T, q quoteOut) {
	t.Helper()
	want, wantErr := json.Marshal(q)
	got, err := q.AppendJSON(nil)
	if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
		t.Fatalf("%+v:\n AppendJSON %s (%v)\njson.Marshal %s (%v)", q, got, err, want, wantErr)
	}
}

func TestQuoteJSONIsEncodingJSONs(t *testing.T) {
	for _, q := range []quoteOut{
		{},
		{Property: "riverside", Name: "Riverside Inn", RoomType: "double", Checkin: "2027-01-05", Checkout: "2027-01-08", Nights: 3,
			Subtotal: "357.00", Tax: "38.38", TaxLabel: "10.75% lodging tax", Total: "395.38", Currency: "USD", RateBasis: "nightly",
			Form: "https://example.com/book/riverside?roomtype=double&checkin=2027-01-05&checkout=2027-01-08"},
		{Name: "Caf\u00e9 <Inn> & \"Lodge\" \u2029", Subtotal: "-0.5", Tax: "0", Total: "1e3"},
		{Subtotal: "1,000.00"},
		{Tax: "."},
		{Total: "+1"},
	} {
		sameQuoteJSON(t, q)
	}
}

func FuzzQuoteJSON(f *testing.F) {
	f.Add("riverside", "357.00", "38.38", 3)
	f.Add("<&>\u2028\xff\"", "", "-", -1)
	f.Fuzz(func(t *testing.T, s, subtotal, tax string, nights int) {
		sameQuoteJSON(t, quoteOut{Property: s, Name: s + "!", RoomType: tax, Checkin: subtotal, Checkout: s, Nights: nights,
			Subtotal: json.Number(subtotal), Tax: json.Number(tax), TaxLabel: s, Total: json.Number(s), Currency: tax, RateBasis: subtotal, Form: s})
	})
}
