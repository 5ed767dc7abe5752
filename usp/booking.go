package usp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/pricing"
	"frontdesk/referral"
	"frontdesk/reservation"
	"frontdesk/store"
	"frontdesk/usp/credential"
)

// Buyer is the person booking (booking.json Buyer).
type Buyer struct {
	FirstName   string `json:"first_name"`
	LastName    string `json:"last_name"`
	Email       string `json:"email"`
	PhoneNumber string `json:"phone_number,omitempty"`
}

// SlotRef is the booked slot.
type SlotRef struct {
	ID       string `json:"id"`
	Start    string `json:"start"`
	End      string `json:"end"`
	Duration string `json:"duration"`
}

// Cancellation says how a booking ended (booking.json Cancellation).
type Cancellation struct {
	Reason       string `json:"reason,omitempty"`
	ReasonCode   string `json:"reason_code,omitempty"`
	CanceledBy   string `json:"canceled_by"`
	Fee          int64  `json:"fee"`
	RefundAmount int64  `json:"refund_amount"`
	CanceledAt   string `json:"canceled_at"`
}

// Booking is a booking as platforms see it (booking.json Booking).
type Booking struct {
	ID               string           `json:"id"`
	ServiceID        string           `json:"service_id"`
	ServiceName      string           `json:"service_name"`
	Slot             SlotRef          `json:"slot"`
	Buyer            Buyer            `json:"buyer"`
	Recipient        *Buyer           `json:"recipient,omitempty"`
	DeliveryAddress  *DeliveryAddress `json:"delivery_address,omitempty"`
	PartySize        int              `json:"party_size"`
	Resources        []SlotResource   `json:"resources,omitempty"`
	Location         *Place           `json:"location,omitempty"`
	Status           string           `json:"status"`
	ConfirmationMode string           `json:"confirmation_mode"`
	Payment          *Payment         `json:"payment,omitempty"`
	Actions          []Action         `json:"actions,omitempty"`
	Notes            string           `json:"notes,omitempty"`
	Cancellation     *Cancellation    `json:"cancellation,omitempty"`
	CreatedAt        string           `json:"created_at"`
	UpdatedAt        string           `json:"updated_at"`
	ExpiresAt        string           `json:"expires_at,omitempty"`
	Revision         string           `json:"revision"`
}

// Payment is a booking's payment (§8.5.1). For a service paid at the
// property nothing is owed online (not_required, amount_due 0), and
// amount and tax_amount are the stay's price before tax and its tax, as
// the price lines of the guest site and the mails split it; a service
// that takes money when booking has its payment from payment.go.
type Payment struct {
	Status         string `json:"status"`
	Timing         string `json:"timing"`
	Amount         int64  `json:"amount"`
	Currency       string `json:"currency"`
	AmountDue      int64  `json:"amount_due"`
	TaxAmount      int64  `json:"tax_amount,omitempty"`
	DepositAmount  int64  `json:"deposit_amount,omitempty"`
	TransactionID  string `json:"transaction_id,omitempty"`
	OrderReference string `json:"order_reference,omitempty"`
}

// BookingResult answers every booking operation. Booking is absent only
// when a creation did not create one; messages[] then says why.
type BookingResult struct {
	USP      Meta      `json:"usp"`
	Booking  *Booking  `json:"booking,omitempty"`
	Messages []Message `json:"messages"`
	// Credential is the booking-scoped credential, on the creation that
	// made the booking only: never on reads, never on a replay, and never
	// in the idempotency record.
	Credential *credential.Credential `json:"booking_scoped_credential,omitempty"`
}

// Created reports whether the result is a new booking (REST answers 201).
func (r *BookingResult) Created() bool { return r.Booking != nil }

// CreateRequest is usp_bookings_create / POST /bookings.
type CreateRequest struct {
	ServiceID  string `json:"service_id"`
	SlotID     string `json:"slot_id"`
	HoldID     string `json:"hold_id,omitempty"`
	Buyer      *Buyer `json:"buyer"`
	Recipient  *Buyer `json:"recipient,omitempty"`
	PartySize  *int   `json:"party_size,omitempty"`
	ResourceID string `json:"resource_id,omitempty"`
	Notes      string `json:"notes,omitempty"`
	// DeliveryAddress is validated and echoed on the booking;
	// PostPaymentReturnRequest is where the payment page returns the
	// buyer of a paid booking (paypage.go).
	DeliveryAddress          *DeliveryAddress          `json:"delivery_address,omitempty"`
	PostPaymentReturnRequest *PostPaymentReturnRequest `json:"post_payment_return_request,omitempty"`
	// via is viaCheckout when a UCP checkout makes the booking.
	via string
	// Meta is the request's _meta member (in the MCP binding the tool
	// call's _meta, beside _meta.usp). Its orp member passes a partner's
	// code (T9) or click id the platform was given, so the booking is
	// attributed to that partner: {"_meta": {"orp": {"code": "…"}}}.
	Meta struct {
		ORP *Referral `json:"orp,omitempty"`
	} `json:"_meta"`
}

// Referral is a partner's code or click id a platform passes with a
// booking; one of the two.
type Referral struct {
	Code  string `json:"code,omitempty"`
	Click string `json:"click,omitempty"`
}

// mark is the referral as the booking core takes it; a code wins over a
// click id.
func (in CreateRequest) mark() referral.Mark {
	r := in.Meta.ORP
	switch {
	case r == nil:
		return referral.Mark{}
	case r.Code != "":
		return referral.Mark{Code: r.Code}
	}
	return referral.Mark{Click: r.Click}
}

// UpdateRequest is usp_bookings_update / PUT /bookings/{booking_id}.
type UpdateRequest struct {
	Buyer     *Buyer  `json:"buyer,omitempty"`
	Recipient *Buyer  `json:"recipient,omitempty"`
	Notes     *string `json:"notes,omitempty"`
}

// CancelRequest is usp_bookings_cancel / POST /bookings/{id}/cancel.
type CancelRequest struct {
	Reason string `json:"reason,omitempty"`
}

// RescheduleRequest is usp_bookings_reschedule.
type RescheduleRequest struct {
	SlotID string `json:"slot_id"`
	HoldID string `json:"hold_id,omitempty"`
}

// Status maps the core's reservation states onto the booking statuses of
// §5.1 (see the package comment for the table).
func Status(s reservation.State) string {
	switch s {
	case reservation.Requested, reservation.Reserved:
		return "pending"
	case reservation.Confirmed:
		return "confirmed"
	case reservation.Completed:
		return "completed"
	case reservation.NoShow:
		return "no_show"
	default: // declined, cancelled, moved
		return "canceled"
	}
}

// revision is the booking's concurrency token: the row version, which
// grows with every change and is never reused.
func revision(r reservation.Reservation) string { return "v" + strconv.FormatInt(r.Version, 10) }

func pricingStay(s Service, w wantSlot) pricing.Stay {
	return pricing.Stay{Location: *s.loc, RoomType: s.unit.Type, Checkin: w.day.String(), Checkout: w.day.AddDays(s.nights).String()}
}

func checkBuyer(path string, by *Buyer) error {
	if by == nil || strings.TrimSpace(by.FirstName) == "" || strings.TrimSpace(by.LastName) == "" || strings.TrimSpace(by.Email) == "" {
		return fail(CodeInvalidRequest, "%s needs first_name, last_name and email.", path)
	}
	if at := strings.LastIndexByte(by.Email, '@'); at < 1 || at == len(by.Email)-1 || strings.ContainsAny(by.Email, " \t\r\n") {
		return fail(CodeValidation, "%s.email is not an email address.", path)
	}
	return nil
}

func contactOf(by Buyer) reservation.Contact {
	return reservation.Contact{Name: strings.TrimSpace(by.FirstName + " " + by.LastName), Email: by.Email, Phone: by.PhoneNumber}
}

// CreateBooking books a slot (§5.3.1), converting the caller's hold when
// hold_id names one (§4.2.1) or taking the units directly otherwise. The
// booking is pending until staff confirm it; its deadline is the slot's
// start.
func (b *Business) CreateBooking(ctx context.Context, call Call, in CreateRequest) (*BookingResult, error) {
	res, err := b.createBooking(ctx, call, in)
	if b.count != nil {
		if err != nil {
			e, _ := AsError(err)
			b.count.Refused("usp", string(e.Code))
		} else {
			b.count.Booked("usp")
		}
	}
	return res, err
}

func (b *Business) createBooking(ctx context.Context, call Call, in CreateRequest) (res *BookingResult, err error) {
	name := "usp_bookings_create"
	if in.via == viaCheckout {
		name = ucpCheckoutCreate
	}
	meta, p, outcome, err := b.begin(ctx, name, call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	if in.ServiceID == "" || in.SlotID == "" {
		return nil, fail(CodeInvalidRequest, "service_id, slot_id and buyer are required.")
	}
	if err := checkBuyer("buyer", in.Buyer); err != nil {
		return nil, err
	}
	if in.Recipient != nil && strings.TrimSpace(in.Recipient.FirstName+in.Recipient.LastName) == "" {
		return nil, fail(CodeValidation, "recipient needs a first_name or last_name.")
	}
	if err := in.DeliveryAddress.check(); err != nil {
		return nil, err
	}
	if err := in.PostPaymentReturnRequest.check(); err != nil {
		return nil, err
	}
	if m := in.mark(); m.Code != "" && !referral.ValidCode(m.Code) {
		return nil, fail(CodeValidation, "_meta.orp.code must be 4 to 32 letters or digits.")
	}
	res = &BookingResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	res, err = once(ctx, b, call, p, name, in, func(keep keeper[BookingResult]) (*BookingResult, error) {
		s, ok := b.catalog.get(in.ServiceID)
		if !ok {
			return nil, fail(CodeValidation, "service_id %q names no service of this business.", in.ServiceID)
		}
		w, ok := b.resolveSlot(s, in.SlotID)
		if !ok {
			return nil, fail(CodeValidation, "slot_id %q is not a slot of %s.", in.SlotID, s.ID)
		}
		if err := b.checkoutRequired(s, in.via); err != nil {
			return nil, err
		}
		if in.ResourceID != "" && (len(s.Resources) == 0 || in.ResourceID != "res_"+s.loc.Slug+"_"+s.unit.Type) {
			return nil, fail(CodeValidation, "resource_id %q is not a resource of %s.", in.ResourceID, s.ID)
		}
		party := 1
		if in.PartySize != nil {
			if party = *in.PartySize; party < 1 {
				return nil, fail(CodeValidation, "party_size must be 1 or more.")
			}
		}
		if in.HoldID != "" {
			return b.convert(ctx, p, s, w, party, in, res, keep)
		}
		now := b.clock.Now()
		if m := b.window(s, w, now); m != nil {
			res.Messages = append(res.Messages, *m)
			return res, nil
		}
		d := detail{Kind: "booking", ServiceID: s.ID, SlotID: w.id, Spots: party, Buyer: in.Buyer, Recipient: in.Recipient, DeliveryAddress: in.DeliveryAddress, Expires: w.start,
			Mode: confirmationMode(*s.unit)}
		// A booking of an auto service is confirmed in the transaction
		// that creates it (§5.2); a manual one holds its units for staff.
		kind := reservation.KindBooking
		if d.mode() == business.ConfirmAuto {
			kind = reservation.KindConfirmed
		}
		// A paid service's booking waits for its payment (§8.5), holding
		// its places until the payment action expires.
		pay, err := b.newPay(s, w, b.price(s, w, party, now), now, in.PostPaymentReturnRequest, in.via)
		if err != nil {
			return nil, err
		}
		if pay != nil {
			d.Pay, d.Expires, kind = pay, pay.Expires, reservation.KindBooking
		}
		// The answer is recorded for the idempotency key with the booking,
		// and the credential is stored with it, outside the answer kept.
		var kept *BookingResult
		var cred *credential.Credential
		also := func(r reservation.Reservation) []store.Write {
			kept = &BookingResult{USP: res.USP, Booking: b.view(r, d), Messages: confirmationNote(s)}
			var writes []store.Write
			cred, writes = b.credentialFor(ctx, p, kept.Booking.ID, w.end)
			writes = append(writes, tokenWrite(d.Pay, r.Reference, now)...)
			return append(keep(kept), writes...)
		}
		r, err := b.book(ctx, p, s, w, party, kind, d, contactOf(*in.Buyer), in.Notes, now, also, in.mark())
		if errors.Is(err, reservation.ErrUnitTaken) && b.expireLapsed(ctx) {
			r, err = b.book(ctx, p, s, w, party, kind, d, contactOf(*in.Buyer), in.Notes, now, also, in.mark())
		}
		if errors.Is(err, reservation.ErrUnitTaken) {
			m, err := b.taken(ctx, s, w, party)
			if err != nil {
				return nil, err
			}
			res.Messages = append(res.Messages, *m)
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		b.log.InfoContext(ctx, "usp booking created", "platform", p.Platform, "service", s.ID, "reference", r.Reference)
		kept.Credential = cred // after the answer was recorded: no credential is ever kept
		return kept, nil
	})
	return res, err
}

// mode is the booking's confirmation_mode.
func (d detail) mode() string {
	if d.Mode == business.ConfirmAuto {
		return business.ConfirmAuto
	}
	return business.ConfirmManual
}

// confirmationNote is what a new booking's answer says of its
// confirmation: nothing for an auto service, whose booking is confirmed
// already, and that staff decide for a manual one.
func confirmationNote(s Service) []Message {
	if s.unit.AutoConfirms() {
		return []Message{}
	}
	return []Message{{Type: "info", Code: "manual_confirmation", Content: "The business confirms bookings by hand; the booking stays pending until staff confirm it."}}
}

// convert turns the caller's hold into the booking (§4.2.1) with one
// conditional write of the reservation the hold is: either it becomes the
// booking with its units, or nothing changes.
func (b *Business) convert(ctx context.Context, p Principal, s Service, w wantSlot, party int, in CreateRequest, res *BookingResult, keep keeper[BookingResult]) (*BookingResult, error) {
	if err := b.checkoutRequired(s, in.via); err != nil {
		return nil, err // a waitlist offer's acceptance comes here too
	}
	var done *BookingResult
	err := store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
		r, d, err := b.ownHold(ctx, p, in.HoldID)
		if err != nil {
			// §4.2.1: an unknown hold is validation_error, not hold_expired.
			return store.Final(fail(CodeValidation, "hold_id %q names no hold of this platform.", in.HoldID))
		}
		if d.ServiceID != s.ID || d.SlotID != w.id {
			return store.Final(fail(CodeValidation, "hold_id %q holds another slot than slot_id %q.", in.HoldID, w.id))
		}
		now := b.clock.Now()
		if r, d, err = b.settle(ctx, r, d, now); err != nil {
			return store.Final(err)
		}
		switch {
		case d.Kind == "booking":
			// A converted hold replayed returns the booking it became.
			res.Booking = b.view(r, d)
			done = res
			return nil
		case r.State != reservation.OnHold:
			free, err := b.remaining(ctx, s, w)
			if err != nil {
				return store.Final(err)
			}
			if free >= party && w.start.After(now) {
				res.Messages = append(res.Messages, *outcomeMsg("hold_expired", "The hold ended before it was converted; hold the slot again.", "recoverable"))
			} else {
				res.Messages = append(res.Messages, *outcomeMsg("slot_unavailable", "The hold ended and the slot is no longer available.", "recoverable"))
			}
			done = res
			return nil
		case party > d.Spots:
			res.Messages = append(res.Messages, *outcomeMsg("capacity_exceeded", fmt.Sprintf("party_size %d is more than the %d spots held; the hold stays active.", party, d.Spots), "recoverable"))
			done = res
			return nil
		}
		d.Kind, d.FromHold, d.Buyer, d.Recipient, d.Expires = "booking", true, in.Buyer, in.Recipient, w.start
		d.DeliveryAddress, d.Mode = in.DeliveryAddress, confirmationMode(*s.unit)
		// An auto booking is confirmed in the conversion's own write (§5.2).
		to := reservation.Reserved
		if d.mode() == business.ConfirmAuto {
			to = reservation.Confirmed
		}
		total := b.price(s, w, party, now)
		pay, err := b.newPay(s, w, total, now, in.PostPaymentReturnRequest, in.via)
		if err != nil {
			return store.Final(err)
		}
		if pay != nil {
			d.Pay, d.Expires, to = pay, pay.Expires, reservation.Reserved
		}
		units := 0
		if party < d.Spots {
			units = party // the unused spots go back in the same write (§4.2.1)
		}
		d.Spots = party
		var out *BookingResult
		var cred *credential.Credential
		attributed, err := b.bookings.Attribution(ctx, in.mark(), reservation.New{Reference: r.Reference, Total: total, Source: r.Source, At: now})
		if err != nil {
			return store.Final(err)
		}
		_, err = b.desk().Convert(ctx, reservation.Change{
			Read: r, By: "usp:" + p.Platform, At: now, Unit: reservation.Unit{Location: s.loc.Slug, Type: s.unit.Type, Capacity: s.unit.Count}, Units: units,
			Edit: func(m *reservation.Reservation) {
				m.Detail = d.raw()
				m.Guests, m.Contact, m.Notes = party, contactOf(*in.Buyer), in.Notes
				m.Total = total
			},
			Also: append([]reservation.Addition{{Refused: errKeyTaken, Build: func(stored reservation.Reservation) []store.Write {
				out = &BookingResult{USP: res.USP, Booking: b.view(stored, d), Messages: append(append([]Message{}, res.Messages...), confirmationNote(s)...)}
				var credWrites []store.Write
				cred, credWrites = b.credentialFor(ctx, p, out.Booking.ID, w.end)
				credWrites = append(credWrites, tokenWrite(d.Pay, stored.Reference, now)...)
				return append(credWrites, keep(out)...)
			}}}, attributed...),
		}, to)
		switch err := deskError("convert hold", err); {
		case errors.Is(err, errKeyTaken):
			return store.Final(err) // the key's record: a parallel request committed first
		case errors.Is(err, errStale):
			return errStale
		case err != nil:
			return store.Final(err)
		}
		b.log.InfoContext(ctx, "usp hold converted", "platform", p.Platform, "service", s.ID)
		out.Credential = cred // after the answer was recorded, as above
		done = out
		return nil
	})
	switch _, lost := errors.AsType[*store.LostRaces](err); {
	case lost:
		return nil, fmt.Errorf("convert hold: %w", store.ErrConflict)
	case err != nil && err == ctx.Err():
		// It ended between passes: the next pass's read of the hold
		// would have failed.
		return nil, fail(CodeValidation, "hold_id %q names no hold of this platform.", in.HoldID)
	case err != nil:
		return nil, err
	}
	return done, nil
}

// ownBooking reads a booking of the caller and settles its deadline.
func (b *Business) ownBooking(ctx context.Context, p Principal, id string) (reservation.Reservation, detail, error) {
	r, d, err := b.own(ctx, p, id)
	if err != nil {
		return r, d, err
	}
	if d.Kind != "booking" {
		return r, d, fail(CodeBookingNotFound, "%q names no booking of this platform.", id)
	}
	if changed, err := b.reconcile(ctx, r, d); err != nil {
		return r, d, err
	} else if changed {
		if r, d, err = b.own(ctx, p, id); err != nil {
			return r, d, err
		}
	}
	return b.settle(ctx, r, d, b.clock.Now())
}

// GetBooking returns one of the caller's bookings (§5.3.2).
func (b *Business) GetBooking(ctx context.Context, call Call, id string) (res *BookingResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_bookings_get", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	r, d, err := b.ownBooking(ctx, p, id)
	if err != nil {
		return nil, err
	}
	res = &BookingResult{USP: meta, Booking: b.view(r, d), Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
	}
	return res, nil
}

// edit is one booking change as an operation decides it: the desk
// operation to run with the door's addition (nil when nothing changes),
// the detail after it, or a business outcome when the operation is not
// legal now.
type edit func(ctx context.Context, p Principal, r reservation.Reservation, d detail, now time.Time) (run func(reservation.Addition) (reservation.Reservation, error), nd detail, msg *Message, err error)

// change is one booking write: it reads the caller's booking, checks the
// precondition and the transition, and runs edit's desk operation at the
// version read, again from the start when another write came first.
func (b *Business) change(ctx context.Context, call Call, name, id string, in any, ed edit) (res *BookingResult, err error) {
	meta, p, outcome, err := b.begin(ctx, name, call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	res = &BookingResult{USP: meta, Messages: []Message{}}
	return once(ctx, b, call, p, name, struct {
		ID string `json:"id"`
		In any    `json:"in"`
	}{id, in}, func(keep keeper[BookingResult]) (*BookingResult, error) {
		done, err := b.changes.take(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer done()
		var answer *BookingResult
		err = store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
			r, d, err := b.ownBooking(ctx, p, id)
			if err != nil {
				return store.Final(err)
			}
			if call.IfMatch != "" && call.IfMatch != revision(r) {
				return store.Final(fail(CodeRevisionMismatch, "The booking changed since revision %s; read it again.", call.IfMatch))
			}
			if outcome != nil {
				res.Booking, res.Messages = b.view(r, d), append(res.Messages, *outcome)
				answer = res
				return nil
			}
			now := b.clock.Now()
			run, nd, msg, err := ed(ctx, p, r, d, now)
			if err != nil {
				return store.Final(err)
			}
			if msg != nil {
				res.Booking, res.Messages = b.view(r, d), append(res.Messages, *msg)
				answer = res
				return nil
			}
			if run == nil {
				res.Booking = b.view(r, nd)
				answer = res
				return nil
			}
			var out *BookingResult
			_, err = run(reservation.Addition{Refused: errKeyTaken, Build: func(stored reservation.Reservation) []store.Write {
				out = &BookingResult{USP: res.USP, Booking: b.view(stored, nd), Messages: []Message{}}
				return keep(out)
			}})
			switch err := deskError(name, err); {
			case errors.Is(err, reservation.ErrUnitTaken):
				// The new slot has no room (reschedule): nothing changed.
				s, _ := b.catalog.get(nd.ServiceID)
				w, _ := b.resolveSlot(s, nd.SlotID)
				m, err := b.taken(ctx, s, w, r.Guests)
				if err != nil {
					return store.Final(err)
				}
				res.Booking, res.Messages = b.view(r, d), append(res.Messages, *m)
				answer = res
				return nil
			case errors.Is(err, errKeyTaken):
				return store.Final(err) // the key's record: a parallel request committed first
			case errors.Is(err, errStale):
				return errStale
			case err != nil:
				return store.Final(err)
			}
			answer = out
			return nil
		})
		switch _, lost := errors.AsType[*store.LostRaces](err); {
		case lost:
			return nil, fmt.Errorf("%s: %w", name, store.ErrConflict)
		case err != nil && err == ctx.Err():
			// It ended between passes: answer as the next pass's read
			// of the booking would have.
			if _, _, err := b.ownBooking(ctx, p, id); err != nil {
				return nil, err
			}
			return nil, err
		case err != nil:
			return nil, err
		}
		return answer, nil
	})
}

// invalidTransition is the outcome of §5.1.1's "No" cells. §9.4.2 gives
// it the severity unrecoverable, which the snapshot's Message schema does
// not accept; severity is optional, so it is left out, as for
// capabilities_incompatible.
func invalidTransition(from string, op string) *Message {
	return outcomeMsg("invalid_transition", fmt.Sprintf("A %s booking cannot be %s.", from, op), "")
}

// UpdateBooking changes the buyer, recipient or notes (§5.3.3); a booking
// that ended is a record and is not changed.
func (b *Business) UpdateBooking(ctx context.Context, call Call, id string, in UpdateRequest) (*BookingResult, error) {
	if in.Buyer != nil {
		if err := checkBuyer("buyer", in.Buyer); err != nil {
			return nil, err
		}
	}
	return b.change(ctx, call, "usp_bookings_update", id, in, func(ctx context.Context, p Principal, r reservation.Reservation, d detail, now time.Time) (func(reservation.Addition) (reservation.Reservation, error), detail, *Message, error) {
		if r.State.Terminal() {
			return nil, d, invalidTransition(Status(r.State), "updated"), nil
		}
		contact := r.Contact
		if in.Buyer != nil {
			d.Buyer = in.Buyer
			contact = contactOf(*in.Buyer)
		}
		if in.Recipient != nil {
			d.Recipient = in.Recipient
		}
		notes := r.Notes
		if in.Notes != nil {
			notes = *in.Notes
		}
		return func(a reservation.Addition) (reservation.Reservation, error) {
			return b.desk().Update(ctx, reservation.Change{Read: r, By: "platform", At: now, Also: []reservation.Addition{a},
				Edit: func(m *reservation.Reservation) { m.Contact, m.Notes, m.Detail = contact, notes, d.raw() }})
		}, d, nil, nil
	})
}

// CancelBooking cancels a pending, requires_action or confirmed booking
// and releases its units (§5.3.5). The answer and the webhook state the
// fee and the refund of its service's cancellation policy (cancellation
// below).
func (b *Business) CancelBooking(ctx context.Context, call Call, id string, in CancelRequest) (*BookingResult, error) {
	res, err := b.cancel(ctx, call, id, in)
	if err == nil && res.Booking != nil && res.Booking.Status == "canceled" {
		// The freed place goes to the slot's waitlist at once.
		b.offerSlot(ctx, res.Booking.ServiceID, res.Booking.Slot.ID)
	}
	return res, err
}

func (b *Business) cancel(ctx context.Context, call Call, id string, in CancelRequest) (*BookingResult, error) {
	return b.change(ctx, call, "usp_bookings_cancel", id, in, func(ctx context.Context, p Principal, r reservation.Reservation, d detail, now time.Time) (func(reservation.Addition) (reservation.Reservation, error), detail, *Message, error) {
		if !r.State.CanMove(reservation.Cancelled) {
			return nil, d, invalidTransition(Status(r.State), "cancelled"), nil
		}
		c, err := b.cancellation(ctx, r, d, in.Reason, now)
		if err != nil {
			return nil, d, nil, err
		}
		d.Cancellation = c
		return func(a reservation.Addition) (reservation.Reservation, error) {
			// Its credentials end with it: the door's end hook deletes them.
			return b.desk().Cancel(ctx, reservation.Change{Read: r, By: "platform", Note: "cancelled by the platform", At: now,
				Also: []reservation.Addition{a}, Edit: func(m *reservation.Reservation) { m.Detail = d.raw() }})
		}, d, nil, nil
	})
}

// ConfirmBooking is the business's manual confirmation (§5.3.4): staff
// only. Confirming a confirmed booking returns it unchanged.
func (b *Business) ConfirmBooking(ctx context.Context, call Call, id string) (*BookingResult, error) {
	meta, p, _, err := b.begin(ctx, "usp_bookings_confirm", call)
	if err != nil {
		return nil, err
	}
	res := &BookingResult{USP: meta, Messages: []Message{}}
	return once(ctx, b, call, p, "usp_bookings_confirm", id, func(keeper[BookingResult]) (*BookingResult, error) {
		r, d, err := b.ownBooking(ctx, p, id)
		if err != nil {
			return nil, err
		}
		if call.IfMatch != "" && call.IfMatch != revision(r) {
			return nil, fail(CodeRevisionMismatch, "The booking changed since revision %s; read it again.", call.IfMatch)
		}
		switch {
		case r.State == reservation.Confirmed:
		case d.payPending() && r.State == reservation.Reserved:
			// §5.1.1: a booking waiting for its payment is confirmed by
			// the payment, never by hand.
			res.Messages = append(res.Messages, *invalidTransition("requires_action", "confirmed"))
		case d.checkoutLapsed():
			res.Messages = append(res.Messages, *invalidTransition(Status(r.State), "confirmed"))
		case d.mode() == business.ConfirmAuto:
			// §5.3.4: confirm from pending is the business's decision
			// only in manual mode (flow vector 105).
			res.Messages = append(res.Messages, *invalidTransition(Status(r.State), "confirmed"))
		case !r.State.CanMove(reservation.Confirmed):
			res.Messages = append(res.Messages, *invalidTransition(Status(r.State), "confirmed"))
		default:
			if _, _, err = b.bookings.Decide(ctx, reservation.Decision{Reference: r.Reference, To: reservation.Confirmed, By: p.Staff}); err != nil {
				return nil, fmt.Errorf("confirm booking: %w", err)
			}
			// Read it back for the version the decision wrote.
			if r, err = reservation.Get(ctx, b.st, r.Reference); err != nil {
				return nil, fmt.Errorf("confirm booking: %w", err)
			}
		}
		res.Booking = b.view(r, d)
		return res, nil
	})
}

// RescheduleBooking moves a pending or confirmed booking to another slot
// of its service (§5.3.6) in one write: the new slot's units are taken and
// the old ones given back together, or nothing changes. With hold_id the
// caller's hold on the new slot is used up in the same write. The place
// the booking leaves goes to the old slot's waitlist at once.
func (b *Business) RescheduleBooking(ctx context.Context, call Call, id string, in RescheduleRequest) (*BookingResult, error) {
	if in.SlotID == "" {
		return nil, fail(CodeInvalidRequest, "slot_id is required.")
	}
	left := "" // the slot the booking moves off, once the move is written
	res, err := b.change(ctx, call, "usp_bookings_reschedule", id, in, func(ctx context.Context, p Principal, r reservation.Reservation, d detail, now time.Time) (func(reservation.Addition) (reservation.Reservation, error), detail, *Message, error) {
		if r.State != reservation.Reserved && r.State != reservation.Confirmed || d.payPending() {
			// §5.1.1 leaves requires_action to the business (MAY): its
			// payment is priced against the slot, so it stays.
			return nil, d, invalidTransition(b.status(r, d), "rescheduled"), nil
		}
		s, _ := b.catalog.get(d.ServiceID)
		w, ok := b.resolveSlot(s, in.SlotID)
		if !ok {
			return nil, d, nil, fail(CodeValidation, "slot_id %q is not a slot of %s.", in.SlotID, s.ID)
		}
		if m := b.window(s, w, now); m != nil {
			return nil, d, m, nil
		}
		if w.id == d.SlotID {
			return nil, d, nil, nil
		}
		rs := reservation.Reschedule{Slots: w.core}
		if in.HoldID != "" {
			hr, hd, err := b.ownHold(ctx, p, in.HoldID)
			if err != nil || hd.Kind != "hold" {
				return nil, d, nil, fail(CodeValidation, "hold_id %q names no hold of this platform.", in.HoldID)
			}
			if hd.ServiceID != s.ID || hd.SlotID != w.id {
				return nil, d, nil, fail(CodeValidation, "hold_id %q holds another slot than slot_id %q.", in.HoldID, w.id)
			}
			if hr.State != reservation.OnHold || !now.Before(hd.HoldExpires) {
				return nil, d, outcomeMsg("hold_expired", "The hold on the new slot ended; the booking stays on its slot.", "recoverable"), nil
			}
			if hd.Spots < r.Guests {
				return nil, d, outcomeMsg("capacity_exceeded", "The hold has fewer spots than the booking's party; the booking stays on its slot.", "recoverable"), nil
			}
			hd.HoldEnd = HoldConverted
			rs.Hold, rs.HoldEdit = &hr, func(m *reservation.Reservation) { m.Detail = hd.raw() }
		}
		left = d.SlotID
		d.SlotID, d.Reschedules = w.id, d.Reschedules+1
		if r.State == reservation.Reserved {
			d.Expires = w.start
		}
		total := b.price(s, w, r.Guests, now)
		rs.Change = reservation.Change{Read: r, By: "platform", Note: "to " + w.start.In(s.zone).Format(time.RFC3339), At: now,
			Unit: reservation.Unit{Location: s.loc.Slug, Type: s.unit.Type, Capacity: s.unit.Count}, Units: max(r.Guests, 1),
			Edit: func(m *reservation.Reservation) { m.Detail, m.Total = d.raw(), total }}
		return func(a reservation.Addition) (reservation.Reservation, error) {
			rs.Also = []reservation.Addition{a}
			return b.desk().Reschedule(ctx, rs)
		}, d, nil, nil
	})
	if err == nil && left != "" && res.Booking != nil && res.Booking.Slot.ID != left {
		b.offerSlot(ctx, res.Booking.ServiceID, left)
	}
	return res, err
}
