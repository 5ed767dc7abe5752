package reservation

import (
	"context"
	"errors"
	"testing"
)

// TestRedact clears a cancelled reservation's guest on both engines: its
// slots, total and state stay, no subscriber hears of it, nothing is
// held or given back, and a second redaction from the old version is a
// conflict.
func TestRedact(t *testing.T) {
	for name, open := range engines(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, open(t))
			ctx := context.Background()
			n := New{Kind: KindBooking, Reference: "RIV-R1", Unit: double, Slots: nights, Source: SourceChat, By: "guest", At: now, Guests: 2,
				Contact: Contact{Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+1 303 555 0199"}, ContactKey: "k1", Notes: "late arrival", Total: 19900}
			r, err := f.desk.Create(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if r, err = f.desk.Cancel(ctx, Change{Read: r, By: "staff", At: now}); err != nil {
				t.Fatal(err)
			}
			events, held := len(f.events), f.held()
			got, err := f.desk.Redact(ctx, Change{Read: r, By: "forget", At: now}, "(forgotten)")
			if err != nil {
				t.Fatalf("Redact = %v", err)
			}
			stored := f.get("RIV-R1")
			if stored.Contact != (Contact{Name: "(forgotten)"}) || stored.ContactKey != "" || stored.Notes != "" ||
				stored.State != Cancelled || stored.Total != 19900 || len(stored.Slots) != 2 || stored.Version != got.Version {
				t.Fatalf("redacted reservation = %+v", stored)
			}
			if last := stored.Audit[len(stored.Audit)-1]; last.What != ChangeRedacted || last.By != "forget" {
				t.Fatalf("last audit line = %+v, want the redaction", last)
			}
			if len(f.events) != events || f.held() != held {
				t.Fatalf("Redact announced %d events and changed the held count to %d", len(f.events)-events, f.held())
			}
			if _, err := f.desk.Redact(ctx, Change{Read: r, By: "forget", At: now}, "(forgotten)"); !errors.Is(err, ErrConflict) {
				t.Fatalf("Redact from a stale version = %v, want %v", err, ErrConflict)
			}
		})
	}
}
