package directmcp

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/direct"
	"frontdesk/direct/chatdoor"
	"frontdesk/direct/chatdoor/catalogue"
	"frontdesk/internal/requestid"
	"frontdesk/mcpfront"
	"frontdesk/reservation"
)

// Booking-tool descriptions, as direct-booking.md §6 gives them.
const (
	describeStart   = "Validates and prices a stay, checks current availability without holding a room, and emails a six-digit code. The intent and code last 15 minutes. An identical open start returns the same booking_id without another email. Resend takes only booking_id, allows two resends at least 60 seconds apart, and keeps the original expiry. Mailbox, location and group code limits apply. A room is held only after confirm_booking accepts the code. Unavailable chat booking returns the requested form link and public phone."
	describeConfirm = "Verifies the emailed code for a booking_id, then holds an available room and submits the reservation for staff confirmation within 24 hours. Repeating the valid pair returns the same reservation. Proved-email rules cover pending reservations, overlap and the 30-day continuous span, including a one-night gap. The guest brings photo ID and signs the agreement at check-in. No payment is taken."
	describeGet     = "Reads reservation status, property, room type, dates and total using the reservation number and the last four digits of its contact phone. It returns no guest name, email or full phone. Incorrect details produce the same no-reservation answer. Failed lookups count toward a per-reference limit."
	describeCancel  = "Cancels in two steps. Reservation number and phone last four start an email-code challenge. cancel_id and code complete cancellation, release the room and notify staff and guest. Automated cancellation is available more than 48 hours before check-in during office hours. Other cases return the property phone. Codes have separate reservation and group budgets. No payment or refund is processed."
)

// BookingTools are the names the batch guard limits to one per batch.
var BookingTools = []string{"start_booking", "confirm_booking", "get_booking", "cancel_booking"}

func pattern(p, description string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: p, Description: description}
}

var (
	bookingIDArg  = mcpfront.Str(100, "Opaque identifier returned by the first step.")
	codeArg       = pattern(`^\d{6}$`, "The six-digit code received by the guest by email.")
	referenceArg  = mcpfront.Str(100, "Reservation number.")
	last4Arg      = pattern(`^\d{4}$`, "Last four digits of the booking contact phone number.")
	cancelIDArg   = mcpfront.Str(100, "Opaque identifier returned by the first step.")
	startSchema   = startInput()
	confirmSchema = mcpfront.Object([]string{"booking_id", "code"}, map[string]*jsonschema.Schema{"booking_id": bookingIDArg, "code": codeArg}, "booking_id", "code")
	getSchema     = mcpfront.Object([]string{"reservation_number", "phone_last4"}, map[string]*jsonschema.Schema{"reservation_number": referenceArg, "phone_last4": last4Arg}, "reservation_number", "phone_last4")
	cancelSchema  = mcpfront.Object([]string{"reservation_number", "phone_last4", "cancel_id", "code"}, map[string]*jsonschema.Schema{
		"reservation_number": referenceArg, "phone_last4": last4Arg, "cancel_id": cancelIDArg, "code": codeArg,
	})
)

func startInput() *jsonschema.Schema {
	one := 1.0
	return mcpfront.Object(
		[]string{"property", "roomtype", "checkin", "checkout", "guest_name", "email", "phone", "guests", "notes", "booking_id"},
		map[string]*jsonschema.Schema{
			"property":   mcpfront.Str(120, "Property name, slug, domain or unique short name."),
			"roomtype":   mcpfront.Str(20, "Room type: single, double or studio; case-insensitive."),
			"checkin":    mcpfront.Str(10, "Arrival date, YYYY-MM-DD."),
			"checkout":   mcpfront.Str(10, "Departure date, YYYY-MM-DD."),
			"guest_name": mcpfront.Str(120, "Guest name."),
			"email":      mcpfront.Str(254, "Email address for the verification code."),
			"phone":      mcpfront.Str(40, "Contact phone number, with country code for international numbers."),
			"guests":     {Type: "integer", Minimum: &one, Description: "Guest count, subject to the room limit."},
			"notes":      mcpfront.Str(500, "Optional plain-text arrival details or requests."),
			"booking_id": bookingIDArg,
		})
}

// Door is what the booking tools call: the chat door over this
// process's booking core, or, in a split deployment, the relay to the
// location that owns the call.
type Door interface {
	Start(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*direct.StartResult, error)
	Confirm(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*direct.ConfirmResult, error)
	Lookup(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*direct.LookupResult, error)
	Cancel(ctx context.Context, c reservation.Caller, args chatdoor.Args) (*reservation.CancelResult, error)
}

var _ Door = (*chatdoor.Door)(nil)

// bookingTools adds the four booking tools to the hub.
type bookingTools struct {
	door  Door
	phone string // the business phone, for faults with no better route
}

func caller(ctx context.Context) reservation.Caller {
	host, overHTTP := mcpfront.RequestHost(ctx)
	return reservation.Caller{Host: host, Local: !overHTTP}
}

// answer is the booking door's one mapping from the core's errors to an
// answer: the message of the chat door's answer, as the door worded it,
// else the catalogue's failed-check sentence with the business phone.
// Every answer that is not a success is counted by code in
// /metrics, and an internal cause is logged here, once, with its code and
// no guest data. code is the answer's (the door's or the core's), "fault" for
// an error it did not word; internal reports such a fault.
func (b bookingTools) answer(env mcpfront.Env, err error) (text, code string, internal bool) {
	code, cause := "fault", err
	text, _ = catalogue.Word(catalogue.Answer{Code: "cannot_check", Phone: b.phone})
	if e, ok := chatdoor.AsError(err); ok {
		code, cause, text = string(e.Code), e.Err, e.Message
	}
	if env.Metrics != nil {
		env.Metrics.BookingErrors.WithLabelValues(code, fmt.Sprint(cause != nil)).Inc()
		env.Metrics.Refused("chat", code)
	}
	if cause != nil && code != "fault" {
		env.Log.Error("booking answer with an internal cause", "code", code, "err", cause)
	}
	return text, code, code == "fault"
}

func addBookingTools(s *mcp.Server, env mcpfront.Env, b bookingTools) {
	env.Safe = func(err error) (string, string, bool) { return b.answer(env, err) }
	door := b.door
	mcpfront.Add(s, env, mcpfront.Tool[chatdoor.Args, direct.StartResult]{
		Name: "start_booking", Title: "Start a booking", Description: describeStart,
		Destructive: true, OpenWorld: true, Input: startSchema, OwnValidation: true,
		Run: func(ctx context.Context, args chatdoor.Args) (direct.StartResult, string, error) {
			res, err := door.Start(ctx, caller(ctx), args)
			if err != nil {
				return direct.StartResult{}, "", err
			}
			return *res, res.Message, nil
		},
	})
	mcpfront.Add(s, env, mcpfront.Tool[chatdoor.Args, direct.ConfirmResult]{
		Name: "confirm_booking", Title: "Confirm a booking", Description: describeConfirm,
		Destructive: true, Idempotent: true, OpenWorld: true, Input: confirmSchema, OwnValidation: true,
		Run: func(ctx context.Context, args chatdoor.Args) (direct.ConfirmResult, string, error) {
			res, err := door.Confirm(ctx, caller(ctx), args)
			if err != nil {
				return direct.ConfirmResult{}, "", err
			}
			requestid.SetReference(ctx, res.ReservationNumber)
			env.Metrics.Booked("chat")
			return *res, res.Message, nil
		},
	})
	mcpfront.Add(s, env, mcpfront.Tool[chatdoor.Args, direct.LookupResult]{
		Name: "get_booking", Title: "Look up a booking", Description: describeGet,
		ReadOnly: true, Idempotent: true, Input: getSchema, OwnValidation: true,
		Run: func(ctx context.Context, args chatdoor.Args) (direct.LookupResult, string, error) {
			res, err := door.Lookup(ctx, caller(ctx), args)
			if err != nil {
				return direct.LookupResult{}, "", err
			}
			requestid.SetReference(ctx, res.ReservationNumber)
			return *res, fmt.Sprintf("Reservation %s is %s: %s, %s, %s to %s.", res.ReservationNumber, res.Status, res.Property, res.RoomType, res.Checkin, res.Checkout), nil
		},
	})
	mcpfront.Add(s, env, mcpfront.Tool[chatdoor.Args, reservation.CancelResult]{
		Name: "cancel_booking", Title: "Cancel a booking", Description: describeCancel,
		Destructive: true, Idempotent: true, OpenWorld: true, Input: cancelSchema, OwnValidation: true,
		Run: func(ctx context.Context, args chatdoor.Args) (reservation.CancelResult, string, error) {
			res, err := door.Cancel(ctx, caller(ctx), args)
			if err != nil {
				return reservation.CancelResult{}, "", err
			}
			if res.ReservationNumber != "" {
				requestid.SetReference(ctx, res.ReservationNumber)
			}
			return *res, res.Message, nil
		},
	})
}
