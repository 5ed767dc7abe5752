package chatdoor

import (
	"context"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/direct"
)

// TestCheckOrder pins which refusal wins when several things are wrong
// with one call: the catalogue's order, with the deployment gate after
// the unknown-field check and before the field checks.
func TestCheckOrder(t *testing.T) {
	ctx := context.Background()
	draft := func(c *config.Config) { c.Deployment.Context = "deploy-preview" }
	id := "RIV_b_" + strings.Repeat("a", 48)
	tests := []struct {
		name string
		edit func(*config.Config)
		call func(d *Door) error
		want string
	}{
		{"unknown field before the deployment", draft, func(d *Door) error {
			_, err := d.Start(ctx, web, stayArgs("room_type", "double", "email", "nope"))
			return err
		}, "unknown_field"},
		{"deployment before the fields", draft, func(d *Door) error {
			_, err := d.Start(ctx, web, stayArgs("email", "nope"))
			return err
		}, "deploy_draft"},
		{"room type before email", nil, func(d *Door) error {
			_, err := d.Start(ctx, web, stayArgs("roomtype", "suite", "email", "nope"))
			return err
		}, "bad_roomtype"},
		{"checkin before name", nil, func(d *Door) error {
			_, err := d.Start(ctx, web, stayArgs("checkin", "soon", "guest_name", ""))
			return err
		}, "bad_checkin"},
		{"phone before guests", nil, func(d *Door) error {
			_, err := d.Start(ctx, web, stayArgs("phone", "1", "guests", 9.0))
			return err
		}, "bad_phone"},
		{"resend with another field before the deployment", draft, func(d *Door) error {
			_, err := d.Start(ctx, web, args("booking_id", "x", "notes", "hi"))
			return err
		}, "resend_only"},
		{"deployment before a bad booking_id", draft, func(d *Door) error {
			_, err := d.Start(ctx, web, args("booking_id", "x"))
			return err
		}, "deploy_draft"},
		{"booking_id before code", nil, func(d *Door) error {
			_, err := d.Confirm(ctx, web, args("booking_id", "x", "code", "1"))
			return err
		}, "bad_booking_id"},
		{"code before the deployment", draft, func(d *Door) error {
			_, err := d.Confirm(ctx, web, args("booking_id", id, "code", "1"))
			return err
		}, "bad_code"},
		{"reference before last four", nil, func(d *Door) error {
			_, err := d.Lookup(ctx, web, args("reservation_number", "x", "phone_last4", "1"))
			return err
		}, "bad_reference"},
		{"mixed modes before a bad cancel_id", nil, func(d *Door) error {
			_, err := d.Cancel(ctx, web, args("cancel_id", "x", "reservation_number", "y"))
			return err
		}, "cancel_fields"},
		{"a code alone is the second step", nil, func(d *Door) error {
			_, err := d.Cancel(ctx, web, args("code", "123456"))
			return err
		}, "bad_cancel_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edits []func(*config.Config)
			if tt.edit != nil {
				edits = append(edits, tt.edit)
			}
			err := tt.call(newWorld(t, edits...).svc)
			e, ok := AsError(err)
			if !ok {
				t.Fatalf("error = %v, want a refusal", err)
			}
			if got := string(e.Code); got != tt.want {
				t.Errorf("code = %q, want %q (%s)", got, tt.want, e.Message)
			}
		})
	}
}

// TestUnwordedCode: a code the catalogue lacks still gets an answer with
// the route it carries, never an empty one.
func TestUnwordedCode(t *testing.T) {
	e := word(&direct.Error{Code: "no_such_code", Phone: "+1 303 555 0111"}, false)
	if want := "This booking cannot be checked right now. Try again in a few minutes or call +1 303 555 0111."; e.Message != want || e.Code != "no_such_code" {
		t.Errorf("word = %q (%s), want %q", e.Message, e.Code, want)
	}
}
