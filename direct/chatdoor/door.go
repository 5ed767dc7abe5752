// Package chatdoor is the chat door of direct booking: it reads a booking
// tool's argument map, checks its fields in the order of the refusal
// catalogue of direct-booking.md §12, calls the booking core with typed
// requests, and words every refusal, its own and the core's, with the
// catalogue's sentences (package catalogue). direct/directmcp serves it over MCP.
//
// It is a domain package: it imports direct, config and internal
// helpers, never an adapter.
package chatdoor

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"frontdesk/business"
	"frontdesk/direct"
	"frontdesk/direct/chatdoor/catalogue"
	"frontdesk/internal/civil"
	"frontdesk/internal/fault"
	"frontdesk/reservation"
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
	svc *direct.Service
}

// New returns the chat door of svc.
func New(svc *direct.Service) *Door { return &Door{svc: svc} }

// Start is start_booking: a booking_id asks for a new code, anything
// else is a new stay.
func (d *Door) Start(ctx context.Context, c reservation.Caller, args Args) (*direct.StartResult, error) {
	if args == nil {
		return nil, refuse(CodeNotObject, d.svc.PhoneFor())
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
			return nil, rt.withForm(refuse(CodeResendOnly, rt.phone, f))
		}
		if r := d.svc.CheckDeployment(c, rt.phone, ""); r != nil {
			return nil, word(r, true)
		}
		id, _, _ := args.str("booking_id", maxIdentifier)
		id = strings.TrimSpace(id)
		if l, known := d.svc.LocationOf(id); !known || !direct.ValidBookingID(id, l) {
			return nil, refuse(CodeBadBookingID, d.phoneFor(args, "booking_id"))
		}
		return wordedStart(d.svc.Start(ctx, c, direct.StartRequest{BookingID: id}))
	}
	if f := args.unknownField(startFields); f != "" {
		return nil, rt.withForm(refuse(CodeUnknownField, rt.phone, f, strings.Join(startFields, ", ")))
	}
	if r := d.svc.CheckDeployment(c, rt.phone, rt.form); r != nil {
		return nil, word(r, true)
	}
	req, refusal := d.checkStart(args, rt.phone)
	if refusal != nil {
		return nil, rt.withForm(refusal)
	}
	return wordedStart(d.svc.Start(ctx, c, req))
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
func (rt startRoute) withForm(r *direct.Error) *direct.Error {
	if rt.form == "" {
		return r
	}
	r.Form, r.Message = rt.form, ""
	return wordAs(r, "PL")
}

// checkStart checks a new stay's fields in the catalogue's order; the
// first that is wrong decides the refusal.
func (d *Door) checkStart(args Args, phone string) (direct.StartRequest, *direct.Error) {
	var req direct.StartRequest
	cfg := d.svc.Config()
	field := func(code fault.Code, values ...string) (direct.StartRequest, *direct.Error) {
		return req, refuse(code, phone, values...)
	}
	prop, _, ok := args.str("property", maxName)
	if !ok || strings.TrimSpace(prop) == "" {
		return field(CodeBadProperty)
	}
	l, found := d.svc.Resolve(prop)
	if !found {
		return field(CodeNoProperty, locationList(cfg.Locations))
	}
	req.Location = l
	typ, _, ok := args.str("roomtype", maxRoomType)
	unit, sold := l.Unit(strings.TrimSpace(typ))
	if !ok || !sold || unit.Kind != business.KindNight {
		return field(CodeBadRoomType, roomTypeList(l))
	}
	req.RoomType = unit.Type
	in, _, ok := args.str("checkin", maxDate)
	checkin, err := civil.Parse(in)
	if !ok || err != nil {
		return field(CodeBadCheckin)
	}
	out, _, ok := args.str("checkout", maxDate)
	checkout, err := civil.Parse(out)
	if !ok || err != nil || !checkin.Before(checkout) {
		return field(CodeBadCheckout)
	}
	req.Checkin, req.Checkout = checkin, checkout
	name, _, ok := args.str("guest_name", maxName)
	req.Name = reservation.CleanName(name)
	if !ok || req.Name == "" {
		return field(CodeBadName)
	}
	emailText, _, ok := args.str("email", maxEmail)
	req.Email, found = reservation.ParseEmail(emailText)
	if !ok || !found {
		return field(CodeBadEmail)
	}
	phoneText, _, ok := args.str("phone", maxPhone)
	req.Phone, found = reservation.ParsePhone(phoneText, cfg.Business.PhoneCountryCode)
	if !ok || !found {
		return field(CodeBadPhone)
	}
	if req.Notes, _, ok = args.str("notes", maxNotes); !ok {
		return field(CodeBadNotes)
	}
	guests, present, ok := args.integer("guests")
	if !ok || (present && guests < 1) {
		return field(CodeBadGuests, strconv.Itoa(cfg.Limits.MaxGuests))
	}
	if !present {
		guests = 1
	}
	if guests > cfg.Limits.MaxGuests {
		return field(CodeGuestRange, strconv.Itoa(cfg.Limits.MaxGuests))
	}
	req.Guests = guests
	return req, nil
}

// locationList words the business's properties: "Riverside Inn
// (riverside), Old Town Lodge (oldtown)".
func locationList(locations []business.Location) string {
	var names []string
	for _, l := range locations {
		names = append(names, fmt.Sprintf("%s (%s)", l.Name, l.Slug))
	}
	return strings.Join(names, ", ")
}

// roomTypeList words the location's room types: "single, double or studio".
func roomTypeList(l business.Location) string {
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
func (d *Door) Confirm(ctx context.Context, c reservation.Caller, args Args) (*direct.ConfirmResult, error) {
	if r := d.checkFields(args, confirmFields, "booking_id"); r != nil {
		return nil, r
	}
	id, code, r := d.proof(args, "booking_id", CodeBadBookingID, direct.ValidBookingID)
	if r != nil {
		return nil, r
	}
	return worded(d.svc.Confirm(ctx, c, direct.ConfirmRequest{BookingID: id, Code: code}))
}

// Lookup is get_booking.
func (d *Door) Lookup(ctx context.Context, c reservation.Caller, args Args) (*direct.LookupResult, error) {
	if r := d.checkFields(args, lookupFields, "reservation_number"); r != nil {
		return nil, r
	}
	ref, last4, r := d.reference(args, "reservation_number")
	if r != nil {
		return nil, r
	}
	return worded(d.svc.Lookup(ctx, c, direct.LookupRequest{Reference: ref, Last4: last4}))
}

// Cancel is cancel_booking: a cancel_id or code selects the second step.
func (d *Door) Cancel(ctx context.Context, c reservation.Caller, args Args) (*reservation.CancelResult, error) {
	if r := d.checkFields(args, cancelFields, "cancel_id", "reservation_number"); r != nil {
		return nil, r
	}
	if args.filled("cancel_id") || args.filled("code") {
		for _, f := range []string{"reservation_number", "phone_last4"} {
			if args.filled(f) {
				return nil, refuse(CodeCancelFields, d.phoneFor(args, "cancel_id", "reservation_number"), f)
			}
		}
		id, code, r := d.proof(args, "cancel_id", CodeBadCancelID, direct.ValidCancelID)
		if r != nil {
			return nil, r
		}
		return worded(d.svc.Cancel(ctx, c, direct.CancelRequest{CancelID: id, Code: code}))
	}
	ref, last4, r := d.reference(args, "cancel_id", "reservation_number")
	if r != nil {
		return nil, r
	}
	return worded(d.svc.Cancel(ctx, c, direct.CancelRequest{Reference: ref, Last4: last4}))
}

// checkFields answers arguments that are not an object, or that name a
// field the tool does not take, with the phone the named fields route to.
func (d *Door) checkFields(args Args, allowed []string, named ...string) *direct.Error {
	if args == nil {
		return refuse(CodeNotObject, d.svc.PhoneFor())
	}
	if f := args.unknownField(allowed); f != "" {
		return refuse(CodeUnknownField, d.phoneFor(args, named...), f, strings.Join(allowed, ", "))
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
// identifier of the shape valid accepts, refused with bad, then its
// six-digit code.
func (d *Door) proof(args Args, field string, bad fault.Code, valid func(string, business.Location) bool) (id, code string, refusal *direct.Error) {
	id, _, ok := args.str(field, maxIdentifier)
	id = strings.TrimSpace(id)
	l, known := d.svc.LocationOf(id)
	if !ok || !known || !valid(id, l) {
		return "", "", refuse(bad, d.phoneFor(args, field))
	}
	code, _, ok = args.str("code", 6)
	if !ok || !sixDigits(code) {
		return "", "", refuse(CodeBadCode, l.Phone)
	}
	return id, code, nil
}

// reference reads reservation_number and phone_last4; a bad shape gets
// a field refusal, since it reveals nothing stored. named are the fields
// whose prefix routes a refusal of the reference.
func (d *Door) reference(args Args, named ...string) (ref, last4 string, refusal *direct.Error) {
	ref, _, ok := args.str("reservation_number", maxIdentifier)
	ref = strings.ToUpper(strings.TrimSpace(ref))
	l, known := d.svc.LocationOf(ref)
	if !ok || !known || !direct.ValidReference(ref, l) {
		return "", "", refuse(CodeBadReference, d.phoneFor(args, named...), d.prefixList())
	}
	last4, _, ok = args.str("phone_last4", 4)
	if !ok || len(last4) != 4 || !digits(last4) {
		return "", "", refuse(CodeBadLast4, l.Phone)
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

// refuse is a field refusal with rule P: the sentence, then the phone
// unless the sentence has it.
func refuse(code fault.Code, phone string, values ...string) *direct.Error {
	return wordAs(&direct.Error{Code: code, Phone: phone, Values: values}, "P")
}

// word gives a refusal of the core its catalogue sentence as its
// message, completed by the assembly rule of its code (§12); start says
// it answers a start call, whose refusals also offer the request's form.
func word(e *direct.Error, start bool) *direct.Error {
	return wordAs(e, catalogue.Rule(string(e.Code), start))
}

// wordAs words e under assembly rule. An error with a message of its own
// keeps it; a code the catalogue lacks is answered as a check that
// failed, never with nothing.
func wordAs(e *direct.Error, rule string) *direct.Error {
	if e.Message != "" {
		return e
	}
	text, ok := catalogue.Word(catalogue.Answer{Code: string(e.Code), Rule: rule, Phone: e.Phone, Form: e.Form, Values: e.Values})
	if !ok {
		text, _ = catalogue.Word(catalogue.Answer{Code: "cannot_check", Rule: catalogue.Rule("cannot_check", false), Phone: e.Phone, Form: e.Form})
	}
	e.Message = text
	return e
}

// worded passes on the core's answer with its refusal worded.
func worded[T any](res *T, err error) (*T, error) {
	if e, ok := direct.AsError(err); ok {
		_ = word(e, false) // words e in place
	}
	return res, err
}

// wordedStart is worded for a start call.
func wordedStart[T any](res *T, err error) (*T, error) {
	if e, ok := direct.AsError(err); ok {
		_ = word(e, true) // words e in place
	}
	return res, err
}
