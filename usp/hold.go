package usp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/requestid"
	"frontdesk/inventory"
	"frontdesk/referral"
	"frontdesk/reservation"
	"frontdesk/store"
)

// HoldTTL is how long a hold keeps its units (§4.2 asks for 5 to 10
// minutes).
const HoldTTL = 10 * time.Minute

// holdPrefix starts a hold id; the rest is the reference of the
// reservation the hold is.
const holdPrefix = "hold_"

// Hold states (§4.2).
const (
	HoldActive    = "active"
	HoldExpired   = "expired"
	HoldReleased  = "released"
	HoldConverted = "converted"
)

// detail is what USP keeps on a reservation (Reservation.Detail): a hold
// and the booking it may become are one reservation of the core, so a
// conversion is a conditional write of that one row and the units never
// leave it.
type detail struct {
	Kind        string    `json:"kind"` // "hold" or "booking"
	ServiceID   string    `json:"service_id"`
	SlotID      string    `json:"slot_id"`
	Spots       int       `json:"spots"`
	HoldExpires time.Time `json:"hold_expires"`
	// HoldEnd is how a hold ended without converting: released or
	// expired.
	HoldEnd string `json:"hold_end,omitempty"`
	// FromHold is set on a booking converted from a hold.
	FromHold  bool   `json:"from_hold,omitempty"`
	Buyer     *Buyer `json:"buyer,omitempty"`
	Recipient *Buyer `json:"recipient,omitempty"`
	// Mode is the booking's confirmation_mode, its service's when it was
	// made; empty (older bookings) is manual.
	Mode string `json:"confirmation_mode,omitempty"`
	// DeliveryAddress is echoed on the booking (§5.2).
	DeliveryAddress *DeliveryAddress `json:"delivery_address,omitempty"`
	// Expires is the deadline of a pending booking: the slot's start.
	Expires      time.Time     `json:"expires,omitzero"`
	Cancellation *Cancellation `json:"cancellation,omitempty"`
	Reschedules  int           `json:"reschedules,omitempty"`
	// Pay is the payment of a booking of a service that takes money
	// when booking (payment.go); nil for any other.
	Pay *payDetail `json:"pay,omitempty"`
}

func detailOf(r reservation.Reservation) (detail, bool) {
	var d detail
	if !strings.HasPrefix(string(r.Source), "usp:") || len(r.Detail) == 0 || json.Unmarshal(r.Detail, &d) != nil || d.Kind == "" {
		return detail{}, false
	}
	return d, true
}

func (d detail) raw() json.RawMessage {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // plain fields always encode
	}
	return b
}

// HoldRequest is usp_availability_hold / POST /availability/holds.
type HoldRequest struct {
	SlotID    string `json:"slot_id"`
	ServiceID string `json:"service_id"`
	Spots     *int   `json:"spots"`
}

// HoldView is a hold as platforms see it (availability.json Hold).
type HoldView struct {
	ID        string `json:"id"`
	SlotID    string `json:"slot_id"`
	ServiceID string `json:"service_id"`
	Spots     int    `json:"spots"`
	ExpiresAt string `json:"expires_at"`
	Status    string `json:"status"`
}

// HoldResult answers a hold or a release.
type HoldResult struct {
	USP      Meta      `json:"usp"`
	Hold     *HoldView `json:"hold,omitempty"`
	Messages []Message `json:"messages,omitempty"`
}

// wantSlot is a slot a platform names, resolved against the service.
type wantSlot struct {
	id         string
	start, end time.Time
	day        civil.Date
	core       []string // the inventory slots: nights, or one timed start
}

// resolveSlot reads a slot id of the service: the slot must be one the
// service offers (on its grid, at a local time that exists).
func (b *Business) resolveSlot(s Service, id string) (wantSlot, bool) {
	prefix := "slot_" + s.loc.Slug + "_" + s.unit.Type + "_"
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return wantSlot{}, false
	}
	t, err := time.Parse("20060102T1504Z", rest)
	if err != nil {
		return wantSlot{}, false
	}
	day := civil.Of(t, s.zone)
	if s.unit.Kind == business.KindTimed {
		length := time.Duration(s.unit.DurationMinutes) * time.Minute
		for _, st := range inventory.TimedStarts(*s.unit, day, s.zone) {
			if st.At.Equal(t) {
				return wantSlot{id: id, start: st.At, end: st.At.Add(length), day: day, core: []string{st.Slot}}, true
			}
		}
		return wantSlot{}, false
	}
	checkin := business.Minutes(s.loc.CheckinHour)
	start, ok := day.Exact(checkin, s.zone)
	end, endOK := day.AddDays(s.nights).Exact(checkin, s.zone)
	if !ok || !endOK || !start.Equal(t) {
		return wantSlot{}, false
	}
	return wantSlot{id: id, start: start, end: end, day: day, core: inventory.Nights(day, s.nights)}, true
}

// window is the business outcome of a slot outside the booking window,
// or nil.
func (b *Business) window(s Service, w wantSlot, now time.Time) *Message {
	switch inventory.Window(w.start, w.day, now, s.zone, b.cfg.Limits.AdvanceDays) {
	case inventory.ErrStarted:
		return outcomeMsg("slot_unavailable", "The slot has already started.", "recoverable")
	case inventory.ErrTooFarAhead:
		return outcomeMsg("booking_window_violated", fmt.Sprintf("Slots can be booked at most %d days ahead.", b.cfg.Limits.AdvanceDays), "requires_buyer_input")
	}
	return nil
}

func outcomeMsg(code, content, severity string) *Message {
	return &Message{Type: "error", Code: code, Content: content, Severity: severity}
}

// remaining is how many places or rooms of the slot are free now.
func (b *Business) remaining(ctx context.Context, s Service, w wantSlot) (int, error) {
	var free []inventory.Free
	var err error
	if s.unit.Kind == business.KindTimed {
		free, err = b.inv.FreeSlots(ctx, *s.loc, *s.unit, w.day)
	} else {
		free, err = b.inv.FreeNights(ctx, *s.loc, w.day, s.nights)
	}
	if err != nil {
		return 0, fmt.Errorf("read free places: %w", err)
	}
	for _, f := range free {
		if f.Unit.Type == s.unit.Type && (s.unit.Kind != business.KindTimed || len(f.Slots) > 0 && f.Slots[0] == w.core[0]) {
			return f.Free, nil
		}
	}
	return 0, nil
}

// taken words a refused hold of n places: none left is slot_unavailable,
// some but fewer than n capacity_exceeded.
func (b *Business) taken(ctx context.Context, s Service, w wantSlot, n int) (*Message, error) {
	free, err := b.remaining(ctx, s, w)
	if err != nil {
		return nil, err
	}
	if free > 0 && free < n {
		return outcomeMsg("capacity_exceeded", fmt.Sprintf("Only %d of the %d places asked for are free in this slot.", free, n), "recoverable"), nil
	}
	return outcomeMsg("slot_unavailable", "The requested slot is no longer available.", "recoverable"), nil
}

// price is the total of n places of a slot, in minor units: a timed
// service's price per place, a stay's quote per room.
func (b *Business) price(s Service, w wantSlot, n int, now time.Time) int64 {
	if s.unit.Kind != business.KindTimed && b.pricer != nil {
		q, err := b.pricer.Quote(pricingStay(s, w), civil.Of(now, s.zone))
		if err == nil {
			return q.Total * int64(n)
		}
	}
	return s.Pricing.Amount * int64(n)
}

// HoldSlot holds places of one slot for HoldTTL (§4.3.2): a reservation of
// the core, taking its units through the same conditional write as every
// other door. An appointment slot has one place, so a second hold on it
// is refused: slot_unavailable.
func (b *Business) HoldSlot(ctx context.Context, call Call, in HoldRequest) (res *HoldResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_availability_hold", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	if in.SlotID == "" || in.ServiceID == "" {
		return nil, fail(CodeInvalidRequest, "slot_id and service_id are required.")
	}
	res = &HoldResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	return once(ctx, b, call, p, "usp_availability_hold", in, func(keep keeper[HoldResult]) (*HoldResult, error) {
		s, ok := b.catalog.get(in.ServiceID)
		if !ok {
			return nil, fail(CodeValidation, "service_id %q names no service of this business.", in.ServiceID)
		}
		w, ok := b.resolveSlot(s, in.SlotID)
		if !ok {
			return nil, fail(CodeValidation, "slot_id %q is not a slot of %s.", in.SlotID, s.ID)
		}
		spots := 1
		if in.Spots != nil {
			if spots = *in.Spots; spots < 1 {
				return nil, fail(CodeValidation, "spots must be 1 or more.")
			}
		}
		now := b.clock.Now()
		if m := b.window(s, w, now); m != nil {
			res.Messages = append(res.Messages, *m)
			return res, nil
		}
		d := detail{Kind: "hold", ServiceID: s.ID, SlotID: w.id, Spots: spots, HoldExpires: now.Add(HoldTTL)}
		// The hold is a tentative hold of the desk, awaiting no one; the
		// note tells staff who see it that it is not a booking yet.
		note := fmt.Sprintf("USP hold by %s until %s: not a booking yet; it becomes one or lapses by itself.", p.Platform, d.HoldExpires.In(s.zone).Format("15:04 MST"))
		// The answer is recorded for the idempotency key with the hold.
		var kept *HoldResult
		also := func(r reservation.Reservation) []store.Write {
			v := b.holdView(r, d, now)
			kept = &HoldResult{USP: res.USP, Hold: &v, Messages: []Message{}}
			return keep(kept)
		}
		_, err := b.book(ctx, p, s, w, spots, reservation.KindHold, d, reservation.Contact{}, note, now, also, referral.Mark{})
		if errors.Is(err, reservation.ErrUnitTaken) && b.expireLapsed(ctx) {
			_, err = b.book(ctx, p, s, w, spots, reservation.KindHold, d, reservation.Contact{}, note, now, also, referral.Mark{})
		}
		if errors.Is(err, reservation.ErrUnitTaken) {
			m, err := b.taken(ctx, s, w, spots)
			if err != nil {
				return nil, err
			}
			// §4.2: a hold beyond the free places is slot_unavailable.
			m.Code, m.Content = "slot_unavailable", "The requested slot does not have "+places(spots)+" free."
			res.Messages = append(res.Messages, *m)
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		return kept, nil
	})
}

// book stores a new reservation of the platform through the desk: a
// tentative hold (KindHold, lapsing at d.HoldExpires) or a booking.
// also gives the door's records committed with it; one of them refused
// is errKeyTaken.
func (b *Business) book(ctx context.Context, p Principal, s Service, w wantSlot, n int, kind reservation.Kind, d detail, contact reservation.Contact, notes string, now time.Time,
	also func(reservation.Reservation) []store.Write, mark referral.Mark) (reservation.Reservation, error) {
	if b.bookings == nil {
		return reservation.Reservation{}, errors.New("usp: no booking core")
	}
	req := reservation.BookRequest{
		Location: s.loc.Slug, Unit: s.unit.Type, Slots: w.core, Guests: n, Units: n,
		Contact: contact, Source: reservation.USP(p.Platform), Total: b.price(s, w, n, now), Notes: notes,
		Kind: kind, By: "usp:" + p.Platform, Detail: d.raw(), Also: []reservation.Addition{{Build: also, Refused: errKeyTaken}},
		Referral: mark,
	}
	if kind == reservation.KindHold {
		req.Expires = d.HoldExpires
	}
	r, err := b.bookings.Book(ctx, req)
	if err == nil {
		requestid.SetReference(ctx, r.Reference)
	}
	return r, err
}

// errKeyTaken means a record the door commits with a reservation was
// refused: the idempotency key's record, which a parallel request with
// the same key committed first.
var errKeyTaken = errors.New("usp: a parallel request committed first")

// holdView is the hold a reservation is or was.
func (b *Business) holdView(r reservation.Reservation, d detail, now time.Time) HoldView {
	v := HoldView{ID: holdPrefix + r.Reference, SlotID: d.SlotID, ServiceID: d.ServiceID, Spots: d.Spots, Status: HoldActive}
	zone := time.UTC
	if s, ok := b.catalog.get(d.ServiceID); ok {
		zone = s.zone
	}
	v.ExpiresAt = d.HoldExpires.In(zone).Format(time.RFC3339)
	switch {
	case d.Kind == "booking":
		v.Status = HoldConverted
	case d.HoldEnd != "":
		v.Status = d.HoldEnd
	case !r.State.HoldsUnits() || !now.Before(d.HoldExpires):
		v.Status = HoldExpired
	}
	return v
}

// ReleaseSlot releases a hold before it expires (§4.3.3). Releasing a hold
// that already ended answers its state and changes nothing.
func (b *Business) ReleaseSlot(ctx context.Context, call Call, holdID string) (res *HoldResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_availability_release", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	res = &HoldResult{USP: meta}
	if outcome != nil {
		res.Messages = []Message{*outcome}
		return res, nil
	}
	return once(ctx, b, call, p, "usp_availability_release", holdID, func(keeper[HoldResult]) (*HoldResult, error) {
		var freed *detail
		err := store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
			r, d, err := b.ownHold(ctx, p, holdID)
			if err != nil {
				return err
			}
			now := b.clock.Now()
			if r, d, err = b.settle(ctx, r, d, now); err != nil {
				return err
			}
			if d.Kind != "hold" || r.State != reservation.OnHold {
				v := b.holdView(r, d, now)
				res.Hold = &v
				return nil
			}
			d.HoldEnd = HoldReleased
			moved, err := b.end(ctx, b.desk().Release, r, d, "usp:"+p.Platform, "hold released", now)
			if err != nil {
				return err // errStale reads again
			}
			freed = &d
			v := b.holdView(moved, d, now)
			res.Hold = &v
			return nil
		})
		if freed != nil {
			defer b.offerSlot(ctx, freed.ServiceID, freed.SlotID) // the freed place goes to the waitlist
		}
		if _, lost := errors.AsType[*store.LostRaces](err); lost {
			return nil, fmt.Errorf("release hold: %w", err)
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	})
}

// maxAttempts bounds the re-reads of a write that lost a race.
const maxAttempts = 5

// errStale means the reservation changed between read and write: read it
// again. It is a lost race to store.Retrier.
var errStale = fmt.Errorf("usp: reservation changed meanwhile: %w", store.ErrConflict)

// ownHold reads the reservation a hold id names, when it is the caller's.
// Anything else is booking_not_found: the hold is the first stage of a
// booking, and another platform's is not visible.
func (b *Business) ownHold(ctx context.Context, p Principal, holdID string) (reservation.Reservation, detail, error) {
	ref, ok := strings.CutPrefix(holdID, holdPrefix)
	if !ok || ref == "" {
		return reservation.Reservation{}, detail{}, fail(CodeBookingNotFound, "hold_id %q names no hold of this platform.", holdID)
	}
	r, d, err := b.own(ctx, p, ref)
	if err != nil {
		if e, _ := AsError(err); e.Code == CodeBookingNotFound {
			return r, d, fail(CodeBookingNotFound, "hold_id %q names no hold of this platform.", holdID)
		}
	}
	return r, d, err
}

// own reads a USP reservation of the caller's platform by reference.
func (b *Business) own(ctx context.Context, p Principal, ref string) (reservation.Reservation, detail, error) {
	notFound := fail(CodeBookingNotFound, "%q names no booking of this platform.", ref)
	if b.st == nil {
		return reservation.Reservation{}, detail{}, notFound
	}
	r, err := reservation.Get(ctx, b.st, ref)
	if errors.Is(err, store.ErrNotFound) {
		return r, detail{}, notFound
	}
	if err != nil {
		return r, detail{}, fmt.Errorf("read reservation: %w", err)
	}
	d, ok := detailOf(r)
	if !ok || (p.Staff == "" && r.Source != reservation.USP(p.Platform)) || (p.Booking != "" && p.Booking != ref) {
		return r, detail{}, notFound
	}
	requestid.SetReference(ctx, ref) // the request's lines name the reservation it works on
	return r, d, nil
}

// end runs desk operation op on r (an ending: release, expiry,
// cancellation), with d as its new detail, in one conditional write
// that releases its units. errStale when r changed meanwhile.
func (b *Business) end(ctx context.Context, op func(context.Context, reservation.Change) (reservation.Reservation, error),
	r reservation.Reservation, d detail, by, note string, now time.Time) (reservation.Reservation, error) {
	if b.bookings == nil {
		return r, errors.New("usp: no booking core")
	}
	moved, err := op(ctx, reservation.Change{Read: r, By: by, Note: note, At: now, Edit: func(m *reservation.Reservation) { m.Detail = d.raw() }})
	if err := deskError("save reservation", err); err != nil {
		return r, err
	}
	return moved, nil
}

// deskError is how this door reads a refusal of the reservation desk,
// in one place: a write that lost a race is errStale (read again), the
// door's own record refused is errKeyTaken, no place left is
// reservation.ErrUnitTaken (worded as slot_unavailable by the caller), and
// anything else is an internal error under op, which the binding's
// error mapper logs once.
func deskError(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errKeyTaken):
		return err
	case errors.Is(err, reservation.ErrUnitTaken):
		return reservation.ErrUnitTaken
	case reservation.ErrorCode(err) == reservation.CodeConflict:
		return errStale
	}
	return fmt.Errorf("%s: %w", op, err)
}

// desk is the reservation desk every write of this door goes through;
// nil without the booking core, whose absence the privileged operations
// that write refuse first.
func (b *Business) desk() *reservation.Desk {
	if b.bookings == nil {
		return nil
	}
	return b.bookings.Desk()
}

// settle applies the deadlines a read may find passed: a hold past its
// TTL expires and a pending booking past its deadline is cancelled, both
// freeing their units. The sweep does the same for reservations nobody
// reads.
func (b *Business) settle(ctx context.Context, r reservation.Reservation, d detail, now time.Time) (reservation.Reservation, detail, error) {
	first := true
	err := store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
		if !first {
			fresh, err := reservation.Get(ctx, b.st, r.Reference)
			if err != nil {
				return fmt.Errorf("read reservation: %w", err)
			}
			r = fresh
			d, _ = detailOf(fresh)
		}
		first = false
		lapsedCheckout := r.State == reservation.Requested && d.checkoutLapsed()
		if !r.State.HoldsUnits() && !lapsedCheckout {
			return nil
		}
		var moved reservation.Reservation
		var err error
		switch {
		case lapsedCheckout && now.Before(d.Expires):
			return nil
		case lapsedCheckout:
			// The checkout was never completed before its slot started.
			pay := *d.Pay
			pay.Status = "expired"
			d.Pay = &pay
			d.Cancellation = &Cancellation{Reason: "The checkout was not completed before the slot started.", ReasonCode: "payment_expired", CanceledBy: "system", CanceledAt: now.UTC().Format(time.RFC3339)}
			moved, err = b.end(ctx, b.desk().Expire, r, d, "sweep", "lapsed checkout expired", now)
		case d.Kind == "booking" && r.State == reservation.Reserved && !d.Expires.IsZero() && !now.Before(d.Expires) && d.payPending() && d.Pay.Via == viaCheckout:
			// §7.5, flow vector 101: the checkout's places go back, but the
			// checkout stays open until its slot starts, to be completed
			// with a new hold.
			pay := *d.Pay
			pay.Status = payLapsed
			d.Pay = &pay
			s, _ := b.catalog.get(d.ServiceID)
			w, ok := b.resolveSlot(s, d.SlotID)
			if !ok || !now.Before(w.start) {
				w.start = now
			}
			d.Expires = w.start
			moved, err = b.end(ctx, b.desk().Lapse, r, d, "sweep", "checkout hold lapsed", now)
		case r.State == reservation.OnHold && !now.Before(r.HoldExpires):
			d.HoldEnd = HoldExpired
			moved, err = b.end(ctx, b.desk().ExpireHold, r, d, "sweep", "hold expired", now)
		case d.Kind == "hold" && r.State != reservation.OnHold && !now.Before(d.HoldExpires):
			// A hold stored before holds had a state of their own: a
			// reservation awaiting staff, which lapses all the same.
			d.HoldEnd = HoldExpired
			moved, err = b.end(ctx, b.desk().Cancel, r, d, "sweep", "hold expired", now)
		case d.Kind == "booking" && r.State == reservation.Reserved && !d.Expires.IsZero() && !now.Before(d.Expires) && d.payPending():
			// §8.5.4: the payment action expired unpaid; the booking is
			// cancelled and its places go back.
			pay := *d.Pay
			pay.Status = "expired"
			d.Pay = &pay
			d.Cancellation = &Cancellation{Reason: "The payment was not made before the payment action expired.", ReasonCode: "payment_expired", CanceledBy: "system", CanceledAt: now.UTC().Format(time.RFC3339)}
			moved, err = b.end(ctx, b.desk().Expire, r, d, "sweep", "unpaid booking expired", now)
		case d.Kind == "booking" && r.State == reservation.Reserved && !d.Expires.IsZero() && !now.Before(d.Expires):
			d.Cancellation = &Cancellation{Reason: "Not confirmed by the business before the slot started.", ReasonCode: "expired", CanceledBy: "system", CanceledAt: now.UTC().Format(time.RFC3339)}
			if d.Pay != nil {
				// The business let it lapse: all that was paid goes back (§8.5.7).
				d.Cancellation.RefundAmount = d.Pay.Paid
			}
			moved, err = b.end(ctx, b.desk().Expire, r, d, "sweep", "pending booking expired", now)
		default:
			return nil
		}
		if err != nil {
			return err // errStale reads again
		}
		r = moved
		return nil
	})
	if _, lost := errors.AsType[*store.LostRaces](err); lost {
		return r, d, fmt.Errorf("settle reservation: %w", err)
	}
	return r, d, err
}

// expireLapsed ends lapsed holds and bookings before a refusal for want of
// places, so a place a lapsed hold still keeps is not refused in the
// minute before the sweep frees it. It reports whether it ended any.
func (b *Business) expireLapsed(ctx context.Context) bool {
	n, err := b.Expire(ctx)
	if err != nil {
		b.log.WarnContext(ctx, "usp expiry before a refusal", "err", err)
	}
	return n > 0
}

// Expire runs the deadlines of every USP hold and pending booking whose
// time has passed, for the sweep: it returns how many it ended.
func (b *Business) Expire(ctx context.Context) (int, error) {
	if b.st == nil {
		return 0, nil
	}
	n, err := b.expire(ctx, b.clock.Now(), store.ReservationFilter{States: []string{string(reservation.OnHold), string(reservation.Reserved), string(reservation.Requested)}})
	if err == nil {
		// Places freed by any door, and offers past their time, go to
		// the waitlists.
		_, err = b.OfferWaitlist(ctx)
	}
	return n, err
}

// expire settles every USP reservation matching f, a page at a time.
func (b *Business) expire(ctx context.Context, now time.Time, f store.ReservationFilter) (int, error) {
	n := 0
	var after store.ReservationCursor
	for {
		f.After, f.Limit = after, 500
		rows, err := reservation.List(ctx, b.st, f)
		if err != nil {
			return n, err
		}
		for _, r := range rows {
			d, ok := detailOf(r)
			if !ok {
				continue
			}
			// A payment the ledger holds for a booking still waiting is
			// applied before its deadline is judged (flow vector 104); it
			// ends nothing, so it is not counted.
			if changed, err := b.reconcile(ctx, r, d); err != nil {
				return n, err
			} else if changed {
				continue
			}
			settled, _, err := b.settle(ctx, r, d, now)
			if err != nil {
				return n, err
			}
			if settled.State != r.State {
				n++
			}
		}
		if len(rows) < 500 {
			return n, nil
		}
		last := rows[len(rows)-1]
		after = store.ReservationCursor{FirstSlot: last.FirstSlot(), Reference: last.Reference}
	}
}
