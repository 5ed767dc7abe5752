package relay

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"frontdesk/business"
	"frontdesk/direct"
	"frontdesk/direct/chatdoor"
	"frontdesk/direct/chatdoor/catalogue"
	"frontdesk/internal/civil"
	"frontdesk/internal/fault"
	"frontdesk/reservation"
)

// The booking operations: the four booking tools at the location that
// owns the call, under the location layer's deployment check.
const (
	OpStart   = "start_booking"
	OpConfirm = "confirm_booking"
	OpLookup  = "get_booking"
	OpCancel  = "cancel_booking"
)

// target is the location a booking call belongs to: the property a
// start names, or the location its identifier or reference starts with.
// It is not known when no field names one that the config holds; the
// chat door then refuses the call on its fields alone.
func target(svc *direct.Service, op string, args chatdoor.Args) (string, bool) {
	text := func(field string) string {
		s, _ := args[field].(string)
		return strings.TrimSpace(s)
	}
	byID := func(fields ...string) (string, bool) {
		for _, f := range fields {
			if l, ok := svc.LocationOf(strings.ToUpper(text(f))); ok && text(f) != "" {
				return l.Slug, true
			}
		}
		return "", false
	}
	switch op {
	case OpStart:
		if args["booking_id"] != nil {
			return byID("booking_id")
		}
		if l, ok := svc.Resolve(text("property")); ok && text("property") != "" {
			return l.Slug, true
		}
		return "", false
	case OpConfirm:
		return byID("booking_id")
	}
	return byID("cancel_id", "reservation_number")
}

// ServeBookings adds the booking operations of svc, the location's
// booking service, to s. A call whose fields name another location is
// refused: the hub sends each call only where it belongs.
func ServeBookings(s *Server, svc *direct.Service) {
	door := chatdoor.New(svc)
	run := func(op string, f func(ctx context.Context, c reservation.Caller, args chatdoor.Args) (any, error)) {
		s.Add(op, Operation{Booking: true, Run: func(ctx context.Context, call Call) (any, error) {
			var args chatdoor.Args
			if len(call.Args) > 0 {
				if err := json.Unmarshal(call.Args, &args); err != nil {
					return nil, s.worded(CodeUnknownOperation, s.phone(call.Slug))
				}
			}
			if slug, known := target(svc, op, args); known && slug != call.Slug {
				return nil, s.worded(CodeUnknownOperation, s.phone(call.Slug))
			}
			return f(ctx, reservation.Caller{Host: call.Host}, args)
		}})
	}
	run(OpStart, func(ctx context.Context, c reservation.Caller, a chatdoor.Args) (any, error) {
		return door.Start(ctx, c, a)
	})
	run(OpConfirm, func(ctx context.Context, c reservation.Caller, a chatdoor.Args) (any, error) {
		return door.Confirm(ctx, c, a)
	})
	run(OpLookup, func(ctx context.Context, c reservation.Caller, a chatdoor.Args) (any, error) {
		return door.Lookup(ctx, c, a)
	})
	run(OpCancel, func(ctx context.Context, c reservation.Caller, a chatdoor.Args) (any, error) {
		return door.Cancel(ctx, c, a)
	})
}

// Door is the hub's booking door in a split deployment: each call goes
// over the relay to the location its fields name, after the hub's own
// deployment check. A call that names no location is answered by the
// hub's own chat door, which refuses it on its fields before anything is
// stored or sent.
type Door struct {
	client *Client
	svc    *direct.Service // the hub's: its deployment, properties and references
	local  *chatdoor.Door
}

// NewDoor returns the hub's booking door over client; svc is the hub's
// booking service, which holds no stay of its own.
func NewDoor(client *Client, svc *direct.Service) *Door {
	return &Door{client: client, svc: svc, local: chatdoor.New(svc)}
}

// Start is start_booking.
func (d *Door) Start(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*direct.StartResult, error) {
	slug, ok := target(d.svc, OpStart, args)
	if !ok {
		return d.local.Start(ctx, c, args)
	}
	phone, form := d.route(slug, args)
	if r := d.svc.CheckDeployment(c, phone, form); r != nil {
		return nil, wordCode(r, catalogue.Rule(string(r.Code), true))
	}
	var out direct.StartResult
	if err := d.client.Call(ctx, slug, OpStart, Mutation, args, &out); err != nil {
		return nil, d.failed(err, direct.CodeCannotCheck, direct.CodeCannotCheck, phone, form, true)
	}
	return &out, nil
}

// Confirm is confirm_booking.
func (d *Door) Confirm(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*direct.ConfirmResult, error) {
	slug, ok := target(d.svc, OpConfirm, args)
	if !ok {
		return d.local.Confirm(ctx, c, args)
	}
	phone, _ := d.route(slug, nil)
	if r := d.svc.CheckDeployment(c, phone, ""); r != nil {
		return nil, wordCode(r, catalogue.Rule(string(r.Code), false))
	}
	var out direct.ConfirmResult
	if err := d.client.Call(ctx, slug, OpConfirm, Mutation, args, &out); err != nil {
		return nil, d.failed(err, direct.CodeCannotCheck, direct.CodeOutcomeUnknown, phone, "", false)
	}
	return &out, nil
}

// Lookup is get_booking.
func (d *Door) Lookup(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*direct.LookupResult, error) {
	slug, ok := target(d.svc, OpLookup, args)
	if !ok {
		return d.local.Lookup(ctx, c, args)
	}
	phone, _ := d.route(slug, nil)
	if r := d.svc.CheckDeployment(c, phone, ""); r != nil {
		return nil, wordCode(r, catalogue.Rule(string(r.Code), false))
	}
	var out direct.LookupResult
	if err := d.client.Call(ctx, slug, OpLookup, Lookup, args, &out); err != nil {
		return nil, d.failed(err, direct.CodeLookupDown, direct.CodeLookupDown, phone, "", false)
	}
	return &out, nil
}

// Cancel is cancel_booking.
func (d *Door) Cancel(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*reservation.CancelResult, error) {
	slug, ok := target(d.svc, OpCancel, args)
	if !ok {
		return d.local.Cancel(ctx, c, args)
	}
	phone, _ := d.route(slug, nil)
	if r := d.svc.CheckDeployment(c, phone, ""); r != nil {
		return nil, wordCode(r, catalogue.Rule(string(r.Code), false))
	}
	uncertain := direct.CodeLookupDown
	if args["cancel_id"] != nil {
		uncertain = direct.CodeCancelUnknown // the second step may have cancelled
	}
	var out reservation.CancelResult
	if err := d.client.Call(ctx, slug, OpCancel, Mutation, args, &out); err != nil {
		return nil, d.failed(err, direct.CodeLookupDown, uncertain, phone, "", false)
	}
	return &out, nil
}

// route is the phone of slug and, for a start whose dates are real, its
// prefilled booking form.
func (d *Door) route(slug string, args chatdoor.Args) (phone, form string) {
	i := slices.IndexFunc(d.svc.Portfolio().Locations, func(l business.Location) bool { return l.Slug == slug })
	if i < 0 {
		return d.svc.PhoneFor(), ""
	}
	l := d.svc.Portfolio().Locations[i]
	in, _ := args["checkin"].(string)
	out, _ := args["checkout"].(string)
	_, err1 := civil.Parse(in)
	_, err2 := civil.Parse(out)
	if args == nil || err1 != nil || err2 != nil {
		return l.Phone, ""
	}
	typ, _ := args["roomtype"].(string)
	return l.Phone, d.svc.FormURL(l, strings.ToLower(strings.TrimSpace(typ)), in, out)
}

// failed words a relayed call that did not come back with the
// location's answer. The location layer's deployment refusals keep
// their sentence under the matching code; a location that took no call
// (or refused it unread) gets down; one that may have run it, uncertain.
func (d *Door) failed(err error, down, uncertain fault.Code, phone, form string, start bool) error {
	e, ok := AsError(err)
	if !ok {
		return err // the location's own refusal, worded there
	}
	code := down
	switch e.Code {
	case CodeDeployUnknown, CodeDeployDraft, CodeDeployUnpublished, CodeDeployNotCustom:
		return &direct.Error{Code: deployCodes[e.Code], Message: e.Message, Phone: e.Phone}
	case CodeUncertain, CodeUnavailable:
		code = uncertain
	}
	return wordCode(&direct.Error{Code: code, Phone: phone, Form: form, Err: err}, catalogue.Rule(string(code), start))
}

// deployCodes are the chat door's codes for the location layer's
// deployment refusals.
var deployCodes = map[Code]fault.Code{
	CodeDeployUnknown: direct.CodeDeployUnknown, CodeDeployDraft: direct.CodeDeployDraft,
	CodeDeployUnpublished: direct.CodeDeployStale, CodeDeployNotCustom: direct.CodeDeployNotCustom,
}

// wordCode gives e its catalogue sentence under rule.
func wordCode(e *direct.Error, rule string) *direct.Error {
	if e.Message != "" {
		return e
	}
	e.Message, _ = catalogue.Word(catalogue.Answer{Code: string(e.Code), Rule: rule, Phone: e.Phone, Form: e.Form, Values: e.Values})
	return e
}
