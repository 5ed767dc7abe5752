package direct

import (
	"context"
	"strings"
	"testing"

	"frontdesk/internal/civil"
	"frontdesk/reservation"
)

// TestStartRefusesAnUnbookableRequest: the core trusts a door's field
// checks for the wording, but a typed request that is still no bookable
// stay is refused without a code mailed or an intent stored.
func TestStartRefusesAnUnbookableRequest(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	l := w.cfg.Locations[0]
	email, _ := reservation.ParseEmail("ada@example.com")
	phone, _ := reservation.ParsePhone("+1 303 555 0199", w.cfg.Business.PhoneCountryCode)
	in, _ := civil.Parse("2026-12-30")
	valid := StartRequest{Location: l, RoomType: "double", Checkin: in, Checkout: in.AddDays(3), Name: "Ada", Email: email, Phone: phone, Guests: 1}
	tests := []struct {
		name string
		edit func(*StartRequest)
	}{
		{"empty", func(r *StartRequest) { *r = StartRequest{} }},
		{"unknown room type", func(r *StartRequest) { r.RoomType = "suite" }},
		{"checkout before checkin", func(r *StartRequest) { r.Checkout = in.AddDays(-1) }},
		{"no guests", func(r *StartRequest) { r.Guests = 0 }},
		{"too many guests", func(r *StartRequest) { r.Guests = w.cfg.Limits.MaxGuests + 1 }},
		{"no email", func(r *StartRequest) { r.Email = reservation.Email{} }},
		{"no name", func(r *StartRequest) { r.Name = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := valid
			tt.edit(&req)
			_, err := w.svc.Start(ctx, web, req)
			if e, ok := err.(*Error); !ok || e.Code != "unbookable" {
				t.Fatalf("Start = %v, want an unbookable refusal", err)
			}
		})
	}
	if n := len(w.messages()); n != 0 {
		t.Errorf("%d mails sent, want none", n)
	}
	if _, err := w.svc.Start(ctx, web, valid); err != nil {
		t.Fatalf("the valid request was refused: %s", refusalText(err))
	}
}

// TestIdentifiersOfNoLocation: an identifier whose prefix names no
// location names nothing stored, and its answer routes to the business
// phone.
func TestIdentifiersOfNoLocation(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	phone := w.cfg.Business.Phone
	_, err := w.svc.Confirm(ctx, web, ConfirmRequest{BookingID: "ZZZ_b_" + strings.Repeat("a", 48), Code: "123456"})
	if e, ok := err.(*Error); !ok || e.Code != "intent_gone" || !strings.Contains(refusalText(e), phone) {
		t.Errorf("Confirm = %v, want intent_gone with %s", err, phone)
	}
	_, err = w.svc.Lookup(ctx, web, LookupRequest{Reference: "ZZZ-0123456789ABCDEF", Last4: "0199"})
	if e, ok := err.(*Error); !ok || e.Code != "not_found" || !strings.Contains(refusalText(e), phone) {
		t.Errorf("Lookup = %v, want not_found with %s", err, phone)
	}
	_, err = w.svc.Cancel(ctx, web, CancelRequest{CancelID: "ZZZ_c_" + strings.Repeat("a", 48), Code: "123456"})
	if e, ok := err.(*Error); !ok || e.Code != "wrong_code" || !strings.Contains(refusalText(e), phone) {
		t.Errorf("Cancel = %v, want wrong_code with %s", err, phone)
	}
}
