package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/store"
)

// ConfirmResult is what confirm_booking returns.
type ConfirmResult struct {
	ReservationNumber string      `json:"reservation_number"`
	Status            string      `json:"status"`
	Property          string      `json:"property"`
	RoomType          string      `json:"roomtype"`
	Checkin           string      `json:"checkin"`
	Checkout          string      `json:"checkout"`
	Total             json.Number `json:"total"`
	Phone             string      `json:"phone"`
	Message           string      `json:"message"`
}

var confirmFields = []string{"booking_id", "code"}

// Confirm is confirm_booking: prove the code, then hold a room.
func (s *Service) Confirm(ctx context.Context, c Caller, args Args) (*ConfirmResult, error) {
	now := s.clock.Now()
	business := route{phone: s.cfg.Business.Phone}
	if args == nil {
		return nil, assemble("not_object", sentNotObject, AssembleP, business)
	}
	if f := args.unknownField(confirmFields); f != "" {
		return nil, assemble("unknown_field", sentUnknownField, AssembleP, business, f, strings.Join(confirmFields, ", "))
	}
	id, _, ok := args.str("booking_id", maxIdentifier)
	id = strings.TrimSpace(id)
	l, known := s.locationByPrefix(id)
	if !ok || !known || !validIntentID(id, l.Prefix+"_b_") {
		return nil, assemble("bad_booking_id", sentBadBookingID, AssembleP, business)
	}
	rt := route{phone: l.Phone}
	code, _, ok := args.str("code", codeDigits)
	if !ok || !sixDigits(code) {
		return nil, assemble("bad_code", sentBadCode, AssembleP, rt)
	}
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, r
	}
	in, _, err := getJSON[intent](ctx, s.st, kindIntent, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, assemble("intent_gone", sentIntentGone, AssembleP, rt)
	}
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
	}
	rt.form = s.formFor(l, in.Data)
	proof, err := s.keyed(ctx, now, "proof", id+"\x00"+code)
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
	}
	switch in.State {
	case stateDone, stateRecovery:
		if !sameDigest(in.Proof, proof) {
			return nil, assemble("wrong_code", sentWrongCode, assemblyForData(in.Data), rt)
		}
		if in.State == stateRecovery || in.Data == nil {
			return s.currentAnswer(ctx, in.Ref, l)
		}
	case stateCommitting:
		if !sameDigest(in.Proof, proof) {
			return nil, assemble("wrong_code", sentWrongCode, AssembleF, rt)
		}
		if now.Sub(in.CommitStart) < contactLease {
			return nil, assemble("in_progress", sentInProgress, AssembleNone, rt)
		}
		// The earlier confirmation stopped part way: finish it.
	case stateOpen:
		if !now.Before(in.Expires) {
			return nil, assemble("intent_gone", sentIntentGone, AssembleF, rt)
		}
		if !sameDigest(in.Digest, digest(in.Salt, id, code)) {
			return nil, s.wrongCode(ctx, now, in, rt)
		}
		ref, err := s.newReference(l)
		if err != nil {
			return nil, err
		}
		in, err = update(ctx, s.st, kindIntent, id, now, func(v *intent) error {
			if v.State != stateOpen {
				return errStop
			}
			v.State, v.Proof, v.Ref, v.CommitStart = stateCommitting, proof, ref, now
			v.Salt, v.Digest = "", ""
			return nil
		})
		if errors.Is(err, errStop) {
			// A competing confirmation proved the same code first.
			return nil, assemble("in_progress", sentInProgress, AssembleNone, rt)
		}
		if err != nil {
			return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
		}
	default:
		return nil, assemble("intent_gone", sentIntentGone, assemblyForData(in.Data), rt)
	}
	return s.commit(ctx, now, in, l, rt)
}

func sixDigits(s string) bool {
	if len(s) != codeDigits {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// wrongCode counts a wrong try; the fifth ends the intent.
func (s *Service) wrongCode(ctx context.Context, now time.Time, in intent, rt route) error {
	updated, err := update(ctx, s.st, kindIntent, in.ID, now, func(v *intent) error {
		if v.State != stateOpen {
			return errStop
		}
		v.Wrong++
		return nil
	})
	if err == nil && updated.Wrong >= wrongTries {
		s.removeIntent(ctx, updated)
	}
	return assemble("wrong_code", sentWrongCode, AssembleF, rt)
}

// commit runs §8 steps 6 to 9 for a proved intent. Every step is keyed by
// the intent's one reference, so a retry finishes the same reservation
// instead of starting another.
func (s *Service) commit(ctx context.Context, now time.Time, in intent, l config.Location, rt route) (*ConfirmResult, error) {
	unlock, err := s.lockContact(ctx, now, in.Mailbox)
	if err != nil {
		return nil, assemble("in_progress", sentInProgress, AssembleNone, rt)
	}
	defer unlock()

	existing, _, err := getJSON[reservation](ctx, s.st, kindReservation, in.Ref)
	switch {
	case err == nil && existing.RoomTaken:
		return s.finish(ctx, now, in, existing, l)
	case err == nil:
		return s.hold(ctx, now, in, existing, l, rt)
	case !errors.Is(err, store.ErrNotFound):
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	}

	rows, err := s.reservationsOf(ctx, in.Mailbox)
	if err != nil {
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	}
	reuse, refused := s.contactVerdict(rows, l, in.Data)
	if reuse != nil {
		// The same proved email already holds this stay: report it.
		return s.finishWith(ctx, now, in, *reuse, l)
	}
	if refused {
		s.endIntent(ctx, now, in)
		return nil, assemble("contact", sentCannotBook, AssembleL, rt)
	}
	if l.BookingOff {
		s.endIntent(ctx, now, in)
		return nil, assemble("switched_off", sentSwitchedOff, AssembleF, rt)
	}
	if err := s.admitPending(ctx, now, "group", in.Ref, s.cfg.Limits.PortfolioPending); err != nil {
		return nil, s.pendingRefusal(ctx, now, in, err, rt)
	}
	if err := s.admitPending(ctx, now, l.Slug, in.Ref, s.cfg.Limits.LocationPending); err != nil {
		s.releasePending(ctx, now, l.Slug, in.Ref)
		return nil, s.pendingRefusal(ctx, now, in, err, rt)
	}
	token, err := s.randomHex(16)
	if err != nil {
		return nil, err
	}
	d := in.Data
	r := reservation{
		Ref: in.Ref, Token: token, Source: "assistant", AgreementAtCheckin: true, Location: l.Slug,
		Name: d.Name, Email: d.Email, Mailbox: in.Mailbox, Phone: d.Phone, PhoneDigits: in.Contact.Phone,
		RoomType: d.RoomType, Checkin: d.Checkin, Checkout: d.Checkout, Nights: in.Price.Nights, Guests: d.Guests,
		QuotedTotal: in.Price.Total, ChatPrice: in.Price.Total, RateBasis: in.Price.RateBasis,
		Notes: CleanNotes(d.Notes), UncheckedProperties: []string{}, State: resPending, CreatedAt: now, IntentID: in.ID,
	}
	// The reference is registered with the mailbox and the recoverable
	// record saved before the conditional hold, so an interruption leaves
	// work the sweep can finish or clean.
	if err := s.register(ctx, now, r); err != nil {
		s.releasePending(ctx, now, l.Slug, in.Ref)
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	}
	return s.hold(ctx, now, in, r, l, rt)
}

func (s *Service) pendingRefusal(ctx context.Context, now time.Time, in intent, err error, rt route) error {
	if errors.Is(err, errPendingFull) {
		s.endIntent(ctx, now, in)
		return assemble("paused_for_staff", sentPausedForStaff, AssembleF, rt)
	}
	return assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
}

// register saves the pending record and adds its reference to the
// mailbox's index, in one transaction.
func (s *Service) register(ctx context.Context, now time.Time, r reservation) error {
	for range maxCASAttempts {
		index, version, err := getJSON[refs](ctx, s.st, kindByEmail, r.Mailbox)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		index.Refs = append(index.Refs, r.Ref)
		op := store.OpSwap
		if version == 0 {
			op = store.OpCreate
		}
		_, err = s.st.Apply(ctx, []store.Write{
			{Op: store.OpCreate, Record: record(kindReservation, r.Ref, r, 0, now)},
			{Op: op, Record: record(kindByEmail, r.Mailbox, index, version, now)},
		})
		var we *store.WriteError
		if errors.As(err, &we) && we.Index == 1 {
			continue
		}
		return err
	}
	return store.ErrConflict
}

// hold takes the room through the index's conditional write. A lost last
// room cleans up the pending record and answers with the form and phone.
func (s *Service) hold(ctx context.Context, now time.Time, in intent, r reservation, l config.Location, rt route) (*ConfirmResult, error) {
	unit, _ := l.Unit(r.RoomType)
	checkin, _ := civil.Parse(r.Checkin)
	err := s.inv.Hold(ctx, r.Ref, l, unit, inventory.Nights(checkin, r.Nights), now)
	switch {
	case errors.Is(err, inventory.ErrTaken):
		s.abandon(ctx, now, in, r, l)
		return nil, assemble("last_room", sentLastRoom, AssembleF, rt)
	case errors.Is(err, store.ErrExists):
		// Held by an earlier attempt of this same commit.
	case err != nil:
		s.log.ErrorContext(ctx, "hold room", "location", l.Slug, "err", err)
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	}
	held, err := update(ctx, s.st, kindReservation, r.Ref, now, func(v *reservation) error {
		if v.RoomTaken {
			return errStop
		}
		v.State, v.RoomTaken = resReserved, true
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		// The index holds the room; the sweep repairs the record from it.
		s.log.ErrorContext(ctx, "mark reservation held", "err", err)
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	}
	return s.finish(ctx, now, in, held, l)
}

// abandon cleans up after a lost last room: the pending record, its
// registration and pending slots go, and the intent ends.
func (s *Service) abandon(ctx context.Context, now time.Time, in intent, r reservation, l config.Location) {
	if cur, err := s.st.Get(ctx, kindReservation, r.Ref); err == nil {
		_ = s.st.Delete(ctx, kindReservation, r.Ref, cur.Version)
	}
	_, _ = update(ctx, s.st, kindByEmail, r.Mailbox, now, func(v *refs) error {
		for i, ref := range v.Refs {
			if ref == r.Ref {
				v.Refs = append(v.Refs[:i], v.Refs[i+1:]...)
				return nil
			}
		}
		return errStop
	})
	s.releasePending(ctx, now, l.Slug, r.Ref)
	s.endIntent(ctx, now, in)
}

// endIntent removes a proved intent that will never make a reservation.
func (s *Service) endIntent(ctx context.Context, now time.Time, in intent) {
	s.removeIntent(ctx, in)
}

// finish turns the intent into a receipt and sends the notices.
func (s *Service) finish(ctx context.Context, now time.Time, in intent, r reservation, l config.Location) (*ConfirmResult, error) {
	sent := s.queueNotices(ctx, now, r.Ref, []message.Email{s.reservationEmail(r, l, now), s.ownerNotice(r, l, now)})
	res, err := s.finishWith(ctx, now, in, r, l)
	if err != nil {
		return nil, err
	}
	switch {
	case sent[noticeID(r.Ref, "reserved", "guest")]:
		res.Message += fmt.Sprintf(" A confirmation email was sent to %s.", MaskEmail(r.Email))
	default:
		res.Message += " The confirmation email could not be sent yet; it will be retried, and staff have the reservation."
	}
	if !sent[noticeID(r.Ref, "reserved", "staff")] {
		res.Message += " Staff were not notified by email yet; the reservation is on the staff screen."
	}
	return res, nil
}

// finishWith stores the receipt for the proved intent and answers with the
// reservation's current state.
func (s *Service) finishWith(ctx context.Context, now time.Time, in intent, r reservation, l config.Location) (*ConfirmResult, error) {
	_, err := update(ctx, s.st, kindIntent, in.ID, now, func(v *intent) error {
		if v.State == stateDone {
			return errStop
		}
		v.State, v.Ref = stateDone, r.Ref
		v.Data, v.Contact = nil, nil
		v.KeepUntil = now.Add(400 * 24 * time.Hour)
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		s.log.WarnContext(ctx, "store receipt", "err", err)
	}
	return s.answer(r, l), nil
}

// currentAnswer re-reads a reservation for a replay, so a cancelled,
// completed or moved reservation is never reported as a fresh hold.
func (s *Service) currentAnswer(ctx context.Context, ref string, l config.Location) (*ConfirmResult, error) {
	r, _, err := getJSON[reservation](ctx, s.st, kindReservation, ref)
	if err != nil {
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, route{phone: l.Phone})
	}
	rt := route{phone: l.Phone, form: s.pricer.FormURL(l, r.RoomType, r.Checkin, r.Checkout)}
	switch r.State {
	case resCancelled:
		return nil, assemble("replay_cancelled", sentCanceled, AssembleL, rt, r.Ref)
	case resCompleted:
		return nil, assemble("replay_ended", sentEnded, AssembleL, rt, r.Ref)
	case resMoved:
		return nil, assemble("replay_moved", sentMoved, AssembleL, rt, r.Ref)
	}
	return s.answer(r, l), nil
}

func (s *Service) answer(r reservation, l config.Location) *ConfirmResult {
	return &ConfirmResult{
		ReservationNumber: r.Ref, Status: r.State, Property: l.Name, RoomType: r.RoomType,
		Checkin: r.Checkin, Checkout: r.Checkout, Total: s.pricer.Amount(r.QuotedTotal), Phone: l.Phone,
		Message: fmt.Sprintf("Reservation %s is %s at %s: %s, %s to %s, total %s. %s",
			r.Ref, r.State, l.Name, r.RoomType, r.Checkin, r.Checkout, s.pricer.Display(r.QuotedTotal), s.confirmationMessage(r.State)),
	}
}

// lockContact takes the proved mailbox's short lease, so two
// confirmations for one person apply the contact rules one at a time.
func (s *Service) lockContact(ctx context.Context, now time.Time, mailbox string) (func(), error) {
	type lease struct {
		Until time.Time `json:"until"`
	}
	for range 240 {
		r, err := s.st.Create(ctx, record(kindContactLock, mailbox, lease{Until: now.Add(contactLease)}, 0, now))
		if err == nil {
			return func() { _ = s.st.Delete(context.WithoutCancel(ctx), kindContactLock, mailbox, r.Version) }, nil
		}
		if !errors.Is(err, store.ErrExists) {
			return nil, err
		}
		cur, version, gerr := getJSON[lease](ctx, s.st, kindContactLock, mailbox)
		if gerr == nil && !now.Before(cur.Until) {
			// An abandoned lease: take it over.
			if r, err := s.st.Swap(ctx, record(kindContactLock, mailbox, lease{Until: now.Add(contactLease)}, version, now)); err == nil {
				return func() { _ = s.st.Delete(context.WithoutCancel(ctx), kindContactLock, mailbox, r.Version) }, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil, errors.New("contact lease busy")
}
