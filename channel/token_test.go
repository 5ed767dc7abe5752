package channel

import (
	"context"
	"strings"
	"testing"
)

// TestExportTokensNameTheirLocation: a listing's export token names its
// location before 20 random bytes in lowercase base32, also after a
// rotation; an export token of the earlier form, the random part alone,
// keeps serving its feed; rotating a location this server does not have
// is refused with nothing changed.
func TestExportTokensNameTheirLocation(t *testing.T) {
	ctx := context.Background()
	b, listings := exportBench(t)
	located := func(tok string) bool {
		random, ok := strings.CutPrefix(tok, "RIV.")
		return ok && len(random) == 32 && strings.Trim(random, "abcdefghijklmnopqrstuvwxyz234567") == ""
	}
	for _, li := range listings {
		if !located(li.Token) {
			t.Fatalf("listing %s %d has token %q, want RIV. and 32 base32 letters", li.Unit, li.Number, li.Token)
		}
	}

	// A token drawn before tokens named their location.
	const earlier = "mzxw6ytboi2dsnjvgq3tmnzyhe4dcmrr"
	key := exportKey("riverside", "double", 1)
	rec, err := b.st.Get(ctx, KindExport, key)
	if err != nil {
		t.Fatal(err)
	}
	rec.Value = encode(exportRecord{Token: earlier})
	if _, err := b.st.Swap(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.Export(ctx, earlier); err != nil {
		t.Fatalf("the earlier token's feed = %v", err)
	}
	if _, err := b.svc.Export(ctx, "RIV."+earlier); err != ErrUnknownToken {
		t.Fatalf("the earlier token with a prefix = %v, want ErrUnknownToken", err)
	}

	if err := b.svc.Rotate(ctx, "beach", "double", 1); err == nil {
		t.Fatal("rotated an export of no location")
	}
	if recs, err := b.st.List(ctx, KindExport, "", "", 100); err != nil || len(recs) != 2 {
		t.Fatalf("%d export records after a refused rotation (%v), want 2", len(recs), err)
	}
	if err := b.svc.Rotate(ctx, "riverside", "double", 1); err != nil {
		t.Fatal(err)
	}
	fresh, err := b.svc.Listings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !located(fresh[0].Token) || fresh[0].Token == listings[0].Token {
		t.Fatalf("token after rotation = %q", fresh[0].Token)
	}
	if _, err := b.svc.Export(ctx, earlier); err != ErrUnknownToken {
		t.Fatalf("the rotated earlier token = %v, want ErrUnknownToken", err)
	}
}
