package chatdoor

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/internal/golden"
	"frontdesk/reservation"
)

// TestRefusalCatalogue pins the refusals the tools give for a set of
// calls, byte for byte, with the placeholders filled from the demo.
func TestRefusalCatalogue(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		edit func(*config.Config)
		call func(w *world) error
	}{
		{"not an object", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, nil); return err }},
		{"unknown field", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("room_type", "double")); return err }},
		{"resend with other fields", nil, func(w *world) error {
			_, err := w.svc.Start(ctx, web, args("booking_id", "RIV_b_00", "email", "a@b.co"))
			return err
		}},
		{"bad property", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("property", 42.0)); return err }},
		{"unknown property", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("property", "Moon Base")); return err }},
		{"bad room type, dates known", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("roomtype", "suite")); return err }},
		{"bad checkin", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("checkin", "2026-02-30")); return err }},
		{"checkout before checkin", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("checkout", "2026-12-29")); return err }},
		{"empty name after cleaning", nil, func(w *world) error {
			_, err := w.svc.Start(ctx, web, stayArgs("guest_name", "\u200b \u0007"))
			return err
		}},
		{"bad email", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("email", "ada at example")); return err }},
		{"bad phone", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("phone", "555-0199")); return err }},
		{"long notes", nil, func(w *world) error {
			_, err := w.svc.Start(ctx, web, stayArgs("notes", strings.Repeat("n", 501)))
			return err
		}},
		{"fractional guests", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("guests", 1.5)); return err }},
		{"too many guests", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("guests", 5.0)); return err }},
		{"minimum stay keeps its bare form", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("roomtype", "studio")); return err }},
		{"over the cap", nil, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs("checkout", "2027-02-15")); return err }},
		{"arrival in the past", nil, func(w *world) error {
			_, err := w.svc.Start(ctx, web, stayArgs("checkin", "2026-11-20", "checkout", "2026-11-22"))
			return err
		}},
		{"switched off", func(c *config.Config) { c.Locations[0].BookingOff = true }, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs()); return err }},
		{"deploy context unknown", func(c *config.Config) { c.Deployment.Context = "" }, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs()); return err }},
		{"deploy draft", func(c *config.Config) { c.Deployment.Context = "deploy-preview" }, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs()); return err }},
		{"deploy stale", func(c *config.Config) { c.Deployment.Published = false }, func(w *world) error { _, err := w.svc.Start(ctx, web, stayArgs()); return err }},
		{"non-custom host", nil, func(w *world) error {
			_, err := w.svc.Start(ctx, reservation.Caller{Host: "frontdesk.platform.example"}, stayArgs())
			return err
		}},
		{"bad booking_id", nil, func(w *world) error {
			_, err := w.svc.Confirm(ctx, web, args("booking_id", "nope", "code", "123456"))
			return err
		}},
		{"bad code", nil, func(w *world) error {
			_, err := w.svc.Confirm(ctx, web, args("booking_id", "RIV_b_"+strings.Repeat("a", 48), "code", "12345"))
			return err
		}},
		{"unknown intent", nil, func(w *world) error {
			_, err := w.svc.Confirm(ctx, web, args("booking_id", "RIV_b_"+strings.Repeat("a", 48), "code", "123456"))
			return err
		}},
		{"bad reference", nil, func(w *world) error {
			_, err := w.svc.Lookup(ctx, web, args("reservation_number", "12345", "phone_last4", "0199"))
			return err
		}},
		{"bad last four", nil, func(w *world) error {
			_, err := w.svc.Lookup(ctx, web, args("reservation_number", "RIV-0123456789ABCDEF", "phone_last4", "99"))
			return err
		}},
		{"no reservation", nil, func(w *world) error {
			_, err := w.svc.Lookup(ctx, web, args("reservation_number", "RIV-0123456789ABCDEF", "phone_last4", "0199"))
			return err
		}},
		{"cancel mixed modes", nil, func(w *world) error {
			_, err := w.svc.Cancel(ctx, web, args("cancel_id", "RIV_c_00", "phone_last4", "0199"))
			return err
		}},
		{"bad cancel_id", nil, func(w *world) error {
			_, err := w.svc.Cancel(ctx, web, args("cancel_id", "x", "code", "123456"))
			return err
		}},
		{"no room free", nil, func(w *world) error {
			w.book(stayArgs("email", "one@example.com"))
			w.book(stayArgs("email", "two@example.com"))
			_, err := w.svc.Start(ctx, web, stayArgs())
			return err
		}},
	}
	var b strings.Builder
	for _, tc := range cases {
		edits := []func(*config.Config){}
		if tc.edit != nil {
			edits = append(edits, tc.edit)
		}
		w := newWorld(t, edits...)
		err := tc.call(w)
		if _, ok := err.(*direct.Error); !ok {
			t.Errorf("%s: %v is not a refusal", tc.name, err)
		}
		fmt.Fprintf(&b, "== %s\n%s\n", tc.name, refusalText(err))
	}
	golden.Check(t, "refusals.txt", []byte(b.String()))
}
