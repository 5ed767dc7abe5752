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
	"frontdesk/internal/civil"
)

// The field refusals of the catalogue that the door words. Sentences
// with {{PHONE}} take the phone through %[1]s; rule P adds it otherwise.
const (
	sentNotObject    = "Booking arguments must be an object."
	sentUnknownField = "Unknown field \"%[2]s\". Allowed fields: %[3]s."
	sentResendOnly   = "Resending takes only booking_id. Unknown field \"%[2]s\". Allowed fields: booking_id."
	sentBadBookingID = "Invalid booking_id. The complete identifier returned by start_booking is required."
	sentBadProperty  = "property must be a property name, slug or domain of at most 120 characters."
	sentBadName      = "guest_name is required and must be at most 120 characters."
	sentBadEmail     = "email must be a valid address such as name@example.com, with a dot in the domain and no spaces."
	sentBadPhone     = "phone must be text containing 10 to 15 digits; spaces, parentheses, dashes and a leading country code are allowed."
	sentBadNotes     = "notes must be text no longer than 500 characters."
	sentBadGuests    = "guests must be a whole-number count from 1 to %[2]d."
	sentBadRoomType  = "roomtype must be %[2]s (case-insensitive)."
	sentBadCheckin   = "checkin must be a real date in YYYY-MM-DD format."
	sentBadCheckout  = "checkout must be a real YYYY-MM-DD date after checkin."
	sentNoProperty   = "property must identify one property by name, slug or domain. Available properties: %[2]s."
	sentGuestRange   = "The reservation form allows 1 to %[2]d guests per room."
	sentCancelFields = "Cancellation takes either reservation_number and phone_last4, or cancel_id and code. Unknown field \"%[2]s\". Allowed fields: cancel_id, code."
	sentBadReference = "Invalid reservation_number. The full reference from the reservation email is required, including its %[2]s property prefix."
	sentBadLast4     = "phone_last4 must be exactly four digits."
	sentBadCancelID  = "Invalid cancel_id. The complete identifier returned by cancel_booking is required."
	sentBadCode      = "code must be the six digits received by email."
)

// Length limits of the worksheet, in characters, as the tools' schemas
// state them.
const (
	maxIdentifier = 100 // booking_id, cancel_id, reservation_number
	maxName       = 120 // property, guest_name
	maxRoomType   = 20
	maxDate       = 10
	maxEmail      = 254
	maxPhone      = 40
	maxNotes      = 500
)

var (
	startFields   = []string{"property", "roomtype", "checkin", "checkout", "guest_name", "email", "phone", "guests", "notes", "booking_id"}
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

// Start is start_booking: a booking_id asks for a new code, anything
// else is a new stay.
func (d *Door) Start(ctx context.Context, c booking.Caller, args Args) (*booking.StartResult, error) {
	if args == nil {
		return nil, refuse("not_object", sentNotObject, d.svc.PhoneFor())
	}
	rt := d.startRoute(args)
	if args.filled("booking_id") {
		// Resend mode: every other field, known or not, gets the resend
		// sentence, with the phone of the location the booking_id names.
		if phone := d.phoneFor(args, "booking_id"); phone != d.svc.PhoneFor() {
			rt.phone = phone
		}
		f := args.unknownField(startFields)
		for _, known := range startFields {
			if f == "" && known != "booking_id" && args.filled(known) {
				f = known
			}
		}
		if f != "" {
			return nil, rt.withForm(refuse("resend_only", sentResendOnly, rt.phone, f))
		}
		if r := d.svc.CheckDeployment(c, rt.phone, ""); r != nil {
			return nil, r
		}
		id, _, _ := args.str("booking_id", maxIdentifier)
		id = strings.TrimSpace(id)
		if l, known := d.svc.LocationOf(id); !known || !booking.ValidBookingID(id, l) {
			return nil, refuse("bad_booking_id", sentBadBookingID, d.phoneFor(args, "booking_id"))
		}
		return d.svc.Start(ctx, c, booking.StartRequest{BookingID: id})
	}
	if f := args.unknownField(startFields); f != "" {
		return nil, rt.withForm(refuse("unknown_field", sentUnknownField, rt.phone, f, strings.Join(startFields, ", ")))
	}
	if r := d.svc.CheckDeployment(c, rt.phone, rt.form); r != nil {
		return nil, r
	}
	req, refusal := d.checkStart(args, rt.phone)
	if refusal != nil {
		return nil, rt.withForm(refusal)
	}
	return d.svc.Start(ctx, c, req)
}

// startRoute is the phone and form a start refusal carries: the resolved
// location's phone, and its prefilled form when both dates are real.
type startRoute struct {
	phone string
	form  string // empty when no form may be shown
}

func (d *Door) startRoute(args Args) startRoute {
	rt := startRoute{phone: d.svc.PhoneFor()}
	prop, _, _ := args.str("property", maxName)
	l, ok := d.svc.Resolve(prop)
	if !ok {
		return rt
	}
	rt.phone = l.Phone
	in, _, _ := args.str("checkin", maxDate)
	out, _, _ := args.str("checkout", maxDate)
	_, err1 := civil.Parse(in)
	_, err2 := civil.Parse(out)
	if err1 == nil && err2 == nil {
		typ, _, _ := args.str("roomtype", maxRoomType)
		rt.form = d.svc.FormURL(l, strings.ToLower(strings.TrimSpace(typ)), in, out)
	}
	return rt
}

// withForm is the start-call wrapper of §12: it adds the known request's
// form link to a refusal that has none yet.
func (rt startRoute) withForm(r *booking.Error) *booking.Error {
	if rt.form != "" && !strings.Contains(r.Message, rt.form) {
		r.Message += "\n" + rt.form
	}
	return r
}

// checkStart checks a new stay's fields in the catalogue's order; the
// first that is wrong decides the refusal.
func (d *Door) checkStart(args Args, phone string) (booking.StartRequest, *booking.Error) {
	var req booking.StartRequest
	cfg := d.svc.Config()
	field := func(code, sentence string, extra ...any) (booking.StartRequest, *booking.Error) {
		return req, refuse(code, sentence, phone, extra...)
	}
	prop, _, ok := args.str("property", maxName)
	if !ok || strings.TrimSpace(prop) == "" {
		return field("bad_property", sentBadProperty)
	}
	l, found := d.svc.Resolve(prop)
	if !found {
		return field("no_property", sentNoProperty, locationList(cfg.Locations))
	}
	req.Location = l
	typ, _, ok := args.str("roomtype", maxRoomType)
	unit, sold := l.Unit(strings.TrimSpace(typ))
	if !ok || !sold || unit.Kind != config.KindNight {
		return field("bad_roomtype", sentBadRoomType, roomTypeList(l))
	}
	req.RoomType = unit.Type
	in, _, ok := args.str("checkin", maxDate)
	checkin, err := civil.Parse(in)
	if !ok || err != nil {
		return field("bad_checkin", sentBadCheckin)
	}
	out, _, ok := args.str("checkout", maxDate)
	checkout, err := civil.Parse(out)
	if !ok || err != nil || !checkin.Before(checkout) {
		return field("bad_checkout", sentBadCheckout)
	}
	req.Checkin, req.Checkout = checkin, checkout
	name, _, ok := args.str("guest_name", maxName)
	req.Name = booking.CleanName(name)
	if !ok || req.Name == "" {
		return field("bad_name", sentBadName)
	}
	emailText, _, ok := args.str("email", maxEmail)
	req.Email, found = booking.ParseEmail(emailText)
	if !ok || !found {
		return field("bad_email", sentBadEmail)
	}
	phoneText, _, ok := args.str("phone", maxPhone)
	req.Phone, found = booking.ParsePhone(phoneText, cfg.Business.PhoneCountryCode)
	if !ok || !found {
		return field("bad_phone", sentBadPhone)
	}
	if req.Notes, _, ok = args.str("notes", maxNotes); !ok {
		return field("bad_notes", sentBadNotes)
	}
	guests, present, ok := args.integer("guests")
	if !ok || (present && guests < 1) {
		return field("bad_guests", sentBadGuests, cfg.Limits.MaxGuests)
	}
	if !present {
		guests = 1
	}
	if guests > cfg.Limits.MaxGuests {
		return field("guest_range", sentGuestRange, cfg.Limits.MaxGuests)
	}
	req.Guests = guests
	return req, nil
}

// locationList words the business's properties: "Riverside Inn
// (riverside), Old Town Lodge (oldtown)".
func locationList(locations []config.Location) string {
	var names []string
	for _, l := range locations {
		names = append(names, fmt.Sprintf("%s (%s)", l.Name, l.Slug))
	}
	return strings.Join(names, ", ")
}

// roomTypeList words the location's room types: "single, double or studio".
func roomTypeList(l config.Location) string {
	var types []string
	for _, u := range l.NightUnits() {
		types = append(types, u.Type)
	}
	if len(types) < 2 {
		return strings.Join(types, "")
	}
	return strings.Join(types[:len(types)-1], ", ") + " or " + types[len(types)-1]
}

// Confirm is confirm_booking.
func (d *Door) Confirm(ctx context.Context, c booking.Caller, args Args) (*booking.ConfirmResult, error) {
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
func (d *Door) Lookup(ctx context.Context, c booking.Caller, args Args) (*booking.LookupResult, error) {
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
func (d *Door) Cancel(ctx context.Context, c booking.Caller, args Args) (*booking.CancelResult, error) {
	if r := d.checkFields(args, cancelFields, "cancel_id", "reservation_number"); r != nil {
		return nil, r
	}
	if args.filled("cancel_id") || args.filled("code") {
		for _, f := range []string{"reservation_number", "phone_last4"} {
			if args.filled(f) {
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
func (d *Door) checkFields(args Args, allowed []string, named ...string) *booking.Error {
	if args == nil {
		return refuse("not_object", sentNotObject, d.svc.PhoneFor())
	}
	if f := args.unknownField(allowed); f != "" {
		return refuse("unknown_field", sentUnknownField, d.phoneFor(args, named...), f, strings.Join(allowed, ", "))
	}
	return nil
}

// phoneFor is the phone of the location the first identifying prefix
// among the named fields names, else the business phone (§12).
func (d *Door) phoneFor(args Args, fields ...string) string {
	ids := make([]string, len(fields))
	for i, f := range fields {
		ids[i], _ = args[f].(string)
	}
	return d.svc.PhoneFor(ids...)
}

// proof reads the second step of a booking or a cancellation: an
// identifier of the shape valid accepts, then its six-digit code.
func (d *Door) proof(args Args, field string, valid func(string, config.Location) bool, badID string) (id, code string, refusal *booking.Error) {
	id, _, ok := args.str(field, maxIdentifier)
	id = strings.TrimSpace(id)
	l, known := d.svc.LocationOf(id)
	if !ok || !known || !valid(id, l) {
		return "", "", refuse("bad_"+field, badID, d.phoneFor(args, field))
	}
	code, _, ok = args.str("code", 6)
	if !ok || !sixDigits(code) {
		return "", "", refuse("bad_code", sentBadCode, l.Phone)
	}
	return id, code, nil
}

// reference reads reservation_number and phone_last4; a bad shape gets
// a field refusal, since it reveals nothing stored. named are the fields
// whose prefix routes a refusal of the reference.
func (d *Door) reference(args Args, named ...string) (ref, last4 string, refusal *booking.Error) {
	ref, _, ok := args.str("reservation_number", maxIdentifier)
	ref = strings.ToUpper(strings.TrimSpace(ref))
	l, known := d.svc.LocationOf(ref)
	if !ok || !known || !booking.ValidReference(ref, l) {
		return "", "", refuse("bad_reference", sentBadReference, d.phoneFor(args, named...), d.prefixList())
	}
	last4, _, ok = args.str("phone_last4", 4)
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
	for _, l := range d.svc.Config().Locations {
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
