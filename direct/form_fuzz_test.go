package direct

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"frontdesk/direct/directtest"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/reservation"
	"frontdesk/store"
)

// FuzzFormSubmit: no posted booking form panics the core or fails inside
// it. A submission is taken, limited, or refused with problems named by
// form field, and a refused one stores no reservation.
func FuzzFormSubmit(f *testing.F) {
	f.Add("double", "2026-12-30", "2027-01-02", "Grace Hopper", "grace@example.com", "(303) 555-0142", "2", "Late train.", "data:image/png;base64,AAAA")
	f.Add("double", "2026-12-30", "2027-01-02", "Grace Hopper", "grace@example.com", "(303) 555-0142", "2", "", signaturetest.Drawn(f))
	f.Add("", "", "", "", "", "", "", "", "")
	f.Add("DOUBLE ", "2027-01-02", "2026-12-30", "<b>x</b>", "a@", "+44 20 7946 0958", "-1", "\x00", "data:")
	f.Add("suite", "2026-02-30", "2026-13-01", "Ada\u202eLovelace", "ADA+x@Example.COM", "12", "99999", "", "nope")
	cfg, st := directtest.Demo(f)
	w := newWorldOn(f, cfg, st)
	fields := map[string]bool{"location": true, "token": true, "roomtype": true, "checkin": true, "checkout": true, "stay": true,
		"name": true, "email": true, "phone": true, "guests": true, "notes": true, "signature": true, "trap": true, "code": true}
	inputs := 0
	f.Fuzz(func(t *testing.T, roomType, checkin, checkout, name, email, phone, guests, notes, sig string) {
		inputs++
		ctx := context.Background()
		before, err := st.ListReservations(ctx, store.ReservationFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		// Each post carries a fresh form token, so the core reads the
		// fields instead of refusing the form as expired.
		riverside, _ := w.svc.Core().Location("riverside")
		token, err := w.svc.Core().NewGuestToken(riverside)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.Core().Submit(ctx, reservation.FormRequest{Location: "riverside", RoomType: roomType, Checkin: checkin, Checkout: checkout,
			Name: name, Email: email, Phone: phone, Guests: guests, Notes: notes, Signature: sig, Address: fmt.Sprintf("2001:db8::%x", inputs), Token: token})
		var problems reservation.FormProblems
		switch {
		case err == nil:
			return
		case errors.As(err, new(*reservation.FormLimited)):
			return
		case !errors.As(err, &problems):
			t.Fatalf("Submit = %v, want problems, a limit or success", err)
		}
		for field := range problems {
			if !fields[field] {
				t.Fatalf("problem named %q, not a form field", field)
			}
		}
		after, err := st.ListReservations(ctx, store.ReservationFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before) {
			t.Fatalf("a refused form stored a reservation: %d then %d", len(before), len(after))
		}
	})
}
