// Package chatdoor is the chat door of direct booking: it reads a booking
// tool's argument map, checks its fields in the order of the refusal
// catalogue of direct-booking.md §12, words the field refusals, and calls
// the booking core with typed requests. mcptools serves it over MCP.
//
// It is a domain package: it imports booking and config, never an
// adapter, so every door that speaks the chat tools' arguments shares it.
package chatdoor

import (
	"context"
	"fmt"
	"strings"

	"frontdesk/booking"
	"frontdesk/config"
)

// The field refusals of the catalogue that the door words. Sentences
// with {{PHONE}} take the phone through %[1]s; rule P adds it otherwise.
const (
	sentNotObject    = "Booking arguments must be an object."
	sentUnknownField = "Unknown field \"%[2]s\". Allowed fields: %[3]s."
	sentCancelFields = "Cancellation takes either reservation_number and phone_last4, or cancel_id and code. Unknown field \"%[2]s\". Allowed fields: cancel_id, code."
	sentBadReference = "Invalid reservation_number. The full reference from the reservation email is required, including its %[2]s property prefix."
	sentBadLast4     = "phone_last4 must be exactly four digits."
	sentBadBookingID = "Invalid booking_id. The complete identifier returned by start_booking is required."
	sentBadCancelID  = "Invalid cancel_id. The complete identifier returned by cancel_booking is required."
	sentBadCode      = "code must be the six digits received by email."
)

// maxIdentifier is the longest booking_id, cancel_id or reservation
// number the tools' schemas accept.
const maxIdentifier = 100

var (
	confirmFields = []string{"booking_id", "code"}
	lookupFields  = []string{"reservation_number", "phone_last4"}
	cancelFields  = []string{"reservation_number", "phone_last4", "cancel_id", "code"}
)

// Door answers the four booking tools for one booking service.
type Door struct {
	svc *booking.Service
}

// New returns the chat door of svc.
func New(svc *booking.Service) *Door { return &Door{svc: svc} }

// Start is start_booking.
func (d *Door) Start(ctx context.Context, c booking.Caller, args booking.Args) (*booking.StartResult, error) {
	if args == nil {
		return nil, refuse("not_object", sentNotObject, d.svc.PhoneFor())
	}
	return d.svc.Start(ctx, c, args)
}

// Confirm is confirm_booking.
func (d *Door) Confirm(ctx context.Context, c booking.Caller, args booking.Args) (*booking.ConfirmResult, error) {
	if r := d.checkFields(args, confirmFields, "booking_id"); r != nil {
		return nil, r
	}
	id, code, r := d.proof(args, "booking_id", booking.ValidBookingID, sentBadBookingID)
	if r != nil {
		return nil, r
	}
	return d.svc.Confirm(ctx, c, booking.ConfirmRequest{BookingID: id, Code: code})
}

// Lookup is get_booking.
func (d *Door) Lookup(ctx context.Context, c booking.Caller, args booking.Args) (*booking.LookupResult, error) {
	if r := d.checkFields(args, lookupFields, "reservation_number"); r != nil {
		return nil, r
	}
	ref, last4, r := d.reference(args, "reservation_number")
	if r != nil {
		return nil, r
	}
	return d.svc.Lookup(ctx, c, booking.LookupRequest{Reference: ref, Last4: last4})
}

// Cancel is cancel_booking: a cancel_id or code selects the second step.
func (d *Door) Cancel(ctx context.Context, c booking.Caller, args booking.Args) (*booking.CancelResult, error) {
	if r := d.checkFields(args, cancelFields, "cancel_id", "reservation_number"); r != nil {
		return nil, r
	}
	if args.Filled("cancel_id") || args.Filled("code") {
		for _, f := range []string{"reservation_number", "phone_last4"} {
			if args.Filled(f) {
				return nil, refuse("cancel_fields", sentCancelFields, d.phoneFor(args, "cancel_id", "reservation_number"), f)
			}
		}
		id, code, r := d.proof(args, "cancel_id", booking.ValidCancelID, sentBadCancelID)
		if r != nil {
			return nil, r
		}
		return d.svc.Cancel(ctx, c, booking.CancelRequest{CancelID: id, Code: code})
	}
	ref, last4, r := d.reference(args, "cancel_id", "reservation_number")
	if r != nil {
		return nil, r
	}
	return d.svc.Cancel(ctx, c, booking.CancelRequest{Reference: ref, Last4: last4})
}

// checkFields answers arguments that are not an object, or that name a
// field the tool does not take, with the phone the named fields route to.
func (d *Door) checkFields(args booking.Args, allowed []string, named ...string) *booking.Error {
	if args == nil {
		return refuse("not_object", sentNotObject, d.svc.PhoneFor())
	}
	if f := args.UnknownField(allowed); f != "" {
		return refuse("unknown_field", sentUnknownField, d.phoneFor(args, named...), f, strings.Join(allowed, ", "))
	}
	return nil
}

// phoneFor is the phone of the location the first identifying prefix
// among the named fields names, else the business phone (§12).
func (d *Door) phoneFor(args booking.Args, fields ...string) string {
	ids := make([]string, len(fields))
	for i, f := range fields {
		ids[i], _ = args[f].(string)
	}
	return d.svc.PhoneFor(ids...)
}

// proof reads the second step of a booking or a cancellation: an
// identifier of the shape valid accepts, then its six-digit code.
func (d *Door) proof(args booking.Args, field string, valid func(string, config.Location) bool, badID string) (id, code string, refusal *booking.Error) {
	id, _, ok := args.Text(field, maxIdentifier)
	id = strings.TrimSpace(id)
	l, known := d.svc.LocationOf(id)
	if !ok || !known || !valid(id, l) {
		return "", "", refuse("bad_"+field, badID, d.phoneFor(args, field))
	}
	code, _, ok = args.Text("code", 6)
	if !ok || !sixDigits(code) {
		return "", "", refuse("bad_code", sentBadCode, l.Phone)
	}
	return id, code, nil
}

// reference reads reservation_number and phone_last4; a bad shape gets
// a field refusal, since it reveals nothing stored. named are the fields
// whose prefix routes a refusal of the reference.
func (d *Door) reference(args booking.Args, named ...string) (ref, last4 string, refusal *booking.Error) {
	ref, _, ok := args.Text("reservation_number", maxIdentifier)
	ref = strings.ToUpper(strings.TrimSpace(ref))
	l, known := d.svc.LocationOf(ref)
	if !ok || !known || !booking.ValidReference(ref, l) {
		return "", "", refuse("bad_reference", sentBadReference, d.phoneFor(args, named...), d.prefixList())
	}
	last4, _, ok = args.Text("phone_last4", 4)
	if !ok || len(last4) != 4 || !digits(last4) {
		return "", "", refuse("bad_last4", sentBadLast4, l.Phone)
	}
	return ref, last4, nil
}

func sixDigits(s string) bool { return len(s) == 6 && digits(s) }

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// prefixList words the reference prefixes: "RIV-, OLD- or AIR-".
func (d *Door) prefixList() string {
	var p []string
	for _, l := range d.svc.Locations() {
		p = append(p, l.Prefix+"-")
	}
	if len(p) < 2 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " or " + p[len(p)-1]
}

// refuse words a field refusal with rule P: the sentence, then the phone
// unless the sentence has it.
func refuse(code, sentence, phone string, values ...any) *booking.Error {
	text := sentence
	if strings.Contains(sentence, "%[") {
		text = fmt.Sprintf(sentence, append([]any{phone}, values...)...)
	}
	if !strings.Contains(text, phone) {
		text += " Call " + phone + "."
	}
	return &booking.Error{Code: code, Message: text}
}
