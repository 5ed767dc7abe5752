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
	if r := checkFields(args, confirmFields, business); r != nil {
		return nil, r
	}
	id, code, l, rt, refusal := s.proofArgs(c, args, "booking_id", "_b_", sentBadBookingID)
	if refusal != nil {
		return nil, refusal
	}
	var proof string
	var d draws
	// Every pass reads the intent afresh: a proved intent commits at the
	// version read, so a confirmation that lost to another re-reads and
	// answers with the state the winner left.
	for range maxCASAttempts {
		irec, err := s.st.Get(ctx, kindIntent, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, assemble("intent_gone", sentIntentGone, AssembleP, rt)
		}
		var in intent
		if err == nil {
			err = json.Unmarshal(irec.Value, &in)
		}
		if err != nil {
			return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
		}
		rt.form = s.formFor(l, in.Data)
		if proof == "" {
			if proof, err = s.keyed(ctx, now, "proof", id+"\x00"+code); err != nil {
				return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
			}
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
			if now.Sub(in.CommitStart) < commitLease {
				return nil, assemble("in_progress", sentInProgress, AssembleNone, rt)
			}
			// An earlier confirmation stopped part way: finish it.
		case stateOpen:
			if !now.Before(in.Expires) {
				return nil, assemble("intent_gone", sentIntentGone, AssembleF, rt)
			}
			if !sameDigest(in.Digest, digest(in.Salt, id, code)) {
				return nil, s.wrongCode(ctx, now, in, rt)
			}
			res, err := s.commitProved(ctx, now, in, irec.Version, proof, &d, l, rt)
			if errors.Is(err, errAgain) {
				continue
			}
			return res, err
		default:
			return nil, assemble("intent_gone", sentIntentGone, assemblyForData(in.Data), rt)
		}
		return s.commit(ctx, now, in, l, rt)
	}
	return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
}

// proofArgs reads the second step of a booking or a cancellation: an
// identifier of the given shape and its six-digit code, then checks the
// deployment with the identifier's location as the human route.
func (s *Service) proofArgs(c Caller, args Args, field, marker, badID string) (id, code string, l config.Location, rt route, refusal *Refusal) {
	id, _, ok := args.str(field, maxIdentifier)
	id = strings.TrimSpace(id)
	l, known := s.locationByPrefix(id)
	if !ok || !known || !validIntentID(id, l.Prefix+marker) {
		return "", "", l, rt, assemble("bad_"+field, badID, AssembleP, route{phone: s.cfg.Business.Phone})
	}
	rt = route{phone: l.Phone}
	code, _, ok = args.str("code", codeDigits)
	if !ok || !sixDigits(code) {
		return "", "", l, rt, assemble("bad_code", sentBadCode, AssembleP, rt)
	}
	return id, code, l, rt, s.checkDeployment(c, rt)
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

// commit runs §8 steps 6 to 9 step by step for a proved intent that an
// interrupted confirmation left committing, as older releases did before
// commitProved did it in one transaction. Every step is keyed by the
// intent's one reference, so a retry finishes the same reservation
// instead of starting another.
func (s *Service) commit(ctx context.Context, now time.Time, in intent, l config.Location, rt route) (*ConfirmResult, error) {
	existing, _, err := getJSON[reservation](ctx, s.st, kindReservation, in.Ref)
	switch {
	case err == nil && existing.RoomTaken:
		return s.settle(ctx, now, in, existing.Ref, l, rt)
	case err == nil:
		return s.hold(ctx, now, in, existing, l, rt)
	case !errors.Is(err, store.ErrNotFound):
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	}
	if l.BookingOff {
		s.endIntent(ctx, now, in)
		return nil, assemble("switched_off", sentSwitchedOff, AssembleF, rt)
	}
	token, err := s.randomHex(16)
	if err != nil {
		return nil, err
	}
	r := newReservation(in, token, l, now)
	reuse, refusal, err := s.reserve(ctx, now, in, r, l, rt)
	switch {
	case err != nil:
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	case refusal != nil:
		s.endIntent(ctx, now, in)
		return nil, refusal
	case reuse != nil:
		// The same proved email already holds this stay: report it.
		return s.finishWith(ctx, now, in, *reuse, l)
	}
	return s.hold(ctx, now, in, r, l, rt)
}

// newReservation is the pending reservation of a proved intent, before
// its room is held.
func newReservation(in intent, token string, l config.Location, now time.Time) reservation {
	d := in.Data
	return reservation{
		Ref: in.Ref, Token: token, Source: "assistant", AgreementAtCheckin: true, Location: l.Slug,
		Name: d.Name, Email: d.Email, Mailbox: in.Mailbox, Phone: d.Phone, PhoneDigits: in.Contact.Phone,
		RoomType: d.RoomType, Checkin: d.Checkin, Checkout: d.Checkout, Nights: in.Price.Nights, Guests: d.Guests,
		QuotedTotal: in.Price.Total, ChatPrice: in.Price.Total, RateBasis: in.Price.RateBasis,
		Notes: CleanNotes(d.Notes), UncheckedProperties: []string{}, State: resPending, CreatedAt: now, IntentID: in.ID,
	}
}

// errAgain asks Confirm to read the intent again: a write at the version
// it read was refused, so another call moved the intent or a record the
// decision rested on.
var errAgain = errors.New("booking: read again")

// draws are the random values of one confirmation, drawn once however
// often it reads again, so the reference is allocated once.
type draws struct{ ref, token string }

// Positions of the writes of commitProved's one transaction.
const (
	wIntent = iota
	wReservation
	wByEmail
	wGroup
	wLocal
	wHold
	wNotices
)

// commitProved runs §8 steps 6 to 9 for an intent proved just now, still
// open at version. The contact rules and both pending ceilings are
// decided from reads made right before one transaction that swaps the
// intent for its receipt at that version, registers the reference with
// the mailbox, takes the pending slots, saves the reservation, holds the
// room and queues the notices. The spec orders the registration before
// the record and the record before the hold so that no step is ever left
// without the one before it; committing them together keeps that promise
// with nothing to recover or clean up. A refused write means another call
// changed what was read: errAgain, and Confirm decides again.
func (s *Service) commitProved(ctx context.Context, now time.Time, in intent, version int64, proof string, d *draws, l config.Location, rt route) (*ConfirmResult, error) {
	var err error
	if d.ref == "" {
		if d.ref, err = s.newReference(l); err != nil {
			return nil, err
		}
	}
	if l.BookingOff {
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, assemble("switched_off", sentSwitchedOff, AssembleF, rt)
	}
	if d.token == "" {
		if d.token, err = s.randomHex(16); err != nil {
			return nil, err
		}
	}
	// The proved intent is what the committing state held; it is never
	// stored as such, since it becomes its receipt in the same
	// transaction as the reservation.
	proved := in
	proved.Proof, proved.Ref, proved.CommitStart = proof, d.ref, now
	proved.Salt, proved.Digest = "", ""

	index, indexVersion, err := getJSON[refs](ctx, s.st, kindByEmail, in.Mailbox)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
	}
	rows, err := s.rowsOf(ctx, index.Refs)
	if err != nil {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
	}
	if reuse, refused := s.contactVerdict(rows, l, in.Data); reuse != nil {
		// The same proved email already holds this stay: report it.
		_, err := s.st.Apply(ctx, []store.Write{{Op: store.OpSwap, Record: record(kindIntent, in.ID, receipt(proved, reuse.Ref, now), version, now)}})
		if _, moved := errors.AsType[*store.WriteError](err); moved {
			return nil, errAgain
		}
		if err != nil {
			s.log.WarnContext(ctx, "store receipt", "err", err)
		}
		return s.answer(*reuse, l), nil
	} else if refused {
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, assemble("contact", sentCannotBook, AssembleL, rt)
	}
	group, groupVersion, err := getJSON[refs](ctx, s.st, kindPending, "group")
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
	}
	local, localVersion, err := getJSON[refs](ctx, s.st, kindPending, l.Slug)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, assemble("cannot_check", sentCannotCheck, AssembleL, rt)
	}
	// The group ceiling is checked before the local one.
	if len(group.Refs) >= s.cfg.Limits.PortfolioPending || len(local.Refs) >= s.cfg.Limits.LocationPending {
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, assemble("paused_for_staff", sentPausedForStaff, AssembleF, rt)
	}

	// The record is written as reserved: it commits only with its hold, so
	// it never claims a room the index does not hold.
	r := newReservation(proved, d.token, l, now)
	r.State, r.RoomTaken = resReserved, true
	unit, _ := l.Unit(r.RoomType)
	checkin, _ := civil.Parse(r.Checkin)
	hold := inventory.NewHold(r.Ref, l, unit, inventory.Nights(checkin, r.Nights), now)
	notices, queue := newNotices(now, r.Ref, []message.Email{s.reservationEmail(r, l, now), s.ownerNotice(r, l, now)})
	index.Refs = append(index.Refs, r.Ref)
	group.Refs = append(group.Refs, r.Ref)
	local.Refs = append(local.Refs, r.Ref)
	_, err = s.st.Apply(ctx, append([]store.Write{
		wIntent:      {Op: store.OpSwap, Record: record(kindIntent, in.ID, receipt(proved, r.Ref, now), version, now)},
		wReservation: {Op: store.OpCreate, Record: record(kindReservation, r.Ref, r, 0, now)},
		wByEmail:     upsert(kindByEmail, in.Mailbox, index, indexVersion, now),
		wGroup:       upsert(kindPending, "group", group, groupVersion, now),
		wLocal:       upsert(kindPending, l.Slug, local, localVersion, now),
		wHold:        {Op: store.OpHold, Hold: &hold},
	}, queue...))
	we, refused := errors.AsType[*store.WriteError](err)
	switch {
	case refused && we.Index == wHold && we.Err == store.ErrFull:
		// The last room went while the guest was verifying. Nothing was
		// written, so there is no pending record or slot to clean up.
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, assemble("last_room", sentLastRoom, AssembleF, rt)
	case refused && we.Err == store.ErrExists && (we.Index == wReservation || we.Index == wHold || we.Index >= wNotices):
		// Only a reference drawn twice collides here; reading again
		// would meet the same records.
		s.log.ErrorContext(ctx, "reference collides", "location", l.Slug)
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	case refused:
		return nil, errAgain
	case err != nil:
		s.log.ErrorContext(ctx, "commit reservation", "location", l.Slug, "err", err)
		return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
	}
	return s.reservedAnswer(r, l, s.attemptNotices(ctx, now, notices)), nil
}

// endAt removes a proved intent that will make no reservation, at the
// version its refusal was decided on: a competing confirmation that
// committed meanwhile keeps its receipt, and this one reads again.
func (s *Service) endAt(ctx context.Context, in intent, version int64) error {
	err := s.st.Delete(ctx, kindIntent, in.ID, version)
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		return errAgain
	}
	// A failed delete leaves an intent that expires on its own; the
	// refusal stands.
	s.dropFingerprint(ctx, in.Fingerprint, in.ID)
	return nil
}

// reserve applies the proved mailbox's contact rules and both pending
// ceilings, then registers the reference with the mailbox, takes the
// pending slots and saves the recoverable record, all in one transaction
// before the conditional hold. The mailbox index's version serializes two
// confirmations of one person: the later one re-reads and applies the
// rules again with the earlier reservation in view.
func (s *Service) reserve(ctx context.Context, now time.Time, in intent, r reservation, l config.Location, rt route) (reuse *reservation, refusal *Refusal, err error) {
	for range maxCASAttempts {
		index, indexVersion, err := getJSON[refs](ctx, s.st, kindByEmail, in.Mailbox)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, nil, err
		}
		rows, err := s.rowsOf(ctx, index.Refs)
		if err != nil {
			return nil, nil, err
		}
		if reuse, refused := s.contactVerdict(rows, l, in.Data); reuse != nil {
			return reuse, nil, nil
		} else if refused {
			return nil, assemble("contact", sentCannotBook, AssembleL, rt), nil
		}
		group, groupVersion, err := getJSON[refs](ctx, s.st, kindPending, "group")
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, nil, err
		}
		local, localVersion, err := getJSON[refs](ctx, s.st, kindPending, l.Slug)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, nil, err
		}
		// The group ceiling is checked before the local one.
		if len(group.Refs) >= s.cfg.Limits.PortfolioPending || len(local.Refs) >= s.cfg.Limits.LocationPending {
			return nil, assemble("paused_for_staff", sentPausedForStaff, AssembleF, rt), nil
		}
		index.Refs = append(index.Refs, r.Ref)
		group.Refs = append(group.Refs, r.Ref)
		local.Refs = append(local.Refs, r.Ref)
		_, err = s.st.Apply(ctx, []store.Write{
			{Op: store.OpCreate, Record: record(kindReservation, r.Ref, r, 0, now)},
			upsert(kindByEmail, in.Mailbox, index, indexVersion, now),
			upsert(kindPending, "group", group, groupVersion, now),
			upsert(kindPending, l.Slug, local, localVersion, now),
		})
		var we *store.WriteError
		if errors.As(err, &we) && we.Index > 0 {
			continue // another confirmation moved a counter or this mailbox on
		}
		return nil, nil, err
	}
	return nil, nil, store.ErrConflict
}

// upsert is a conditional write of v: a create when version is 0 (the
// record was absent when read), a swap otherwise.
func upsert(kind, key string, v any, version int64, now time.Time) store.Write {
	if version == 0 {
		return store.Write{Op: store.OpCreate, Record: record(kind, key, v, 0, now)}
	}
	return store.Write{Op: store.OpSwap, Record: record(kind, key, v, version, now)}
}

// register saves a reservation record and adds its reference to the
// mailbox's index, in one transaction.
func (s *Service) register(ctx context.Context, now time.Time, r reservation) error {
	for range maxCASAttempts {
		index, version, err := getJSON[refs](ctx, s.st, kindByEmail, r.Mailbox)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		index.Refs = append(index.Refs, r.Ref)
		_, err = s.st.Apply(ctx, []store.Write{
			{Op: store.OpCreate, Record: record(kindReservation, r.Ref, r, 0, now)},
			upsert(kindByEmail, r.Mailbox, index, version, now),
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
	return s.settle(ctx, now, in, r.Ref, l, rt)
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

// settle records the held room, the intent's receipt and the queued
// notices in one transaction, then sends the notices. When that write
// fails the index still holds the room: the sweep repairs the record from
// it, and the answer says the outcome is uncertain.
func (s *Service) settle(ctx context.Context, now time.Time, in intent, ref string, l config.Location, rt route) (*ConfirmResult, error) {
	var r reservation
	var notices []queuedNotice
	for attempt := 0; ; attempt++ {
		rrec, err := s.st.Get(ctx, kindReservation, ref)
		if err != nil {
			return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
		}
		irec, err := s.st.Get(ctx, kindIntent, in.ID)
		if err != nil {
			return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
		}
		var cur intent
		if json.Unmarshal(rrec.Value, &r) != nil || json.Unmarshal(irec.Value, &cur) != nil {
			return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
		}
		var writes []store.Write
		if !r.RoomTaken {
			r.State, r.RoomTaken = resReserved, true
			writes = append(writes, store.Write{Op: store.OpSwap, Record: record(kindReservation, ref, r, rrec.Version, now)})
		}
		if cur.State != stateDone {
			writes = append(writes, store.Write{Op: store.OpSwap, Record: record(kindIntent, in.ID, receipt(cur, ref, now), irec.Version, now)})
		}
		var created []queuedNotice
		var queue []store.Write
		notices, created, queue, err = s.noticeQueue(ctx, now, ref, []message.Email{s.reservationEmail(r, l, now), s.ownerNotice(r, l, now)})
		if err != nil {
			return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
		}
		notices = append(notices, created...)
		if len(writes)+len(queue) == 0 {
			break
		}
		_, err = s.st.Apply(ctx, append(writes, queue...))
		var we *store.WriteError
		if errors.As(err, &we) && attempt < maxCASAttempts {
			continue // a concurrent step moved a record on: re-read
		}
		if err != nil {
			s.log.ErrorContext(ctx, "settle reservation", "err", err)
			return nil, assemble("outcome_unknown", sentOutcomeUnknown, AssembleNone, rt)
		}
		break
	}
	return s.reservedAnswer(r, l, s.attemptNotices(ctx, now, notices)), nil
}

// reservedAnswer is the answer for a reservation whose room was just held,
// saying truthfully which notices went out.
func (s *Service) reservedAnswer(r reservation, l config.Location, sent map[string]bool) *ConfirmResult {
	res := s.answer(r, l)
	switch {
	case sent[noticeID(r.Ref, "reserved", "guest")]:
		res.Message += fmt.Sprintf(" A confirmation email was sent to %s.", MaskEmail(r.Email))
	default:
		res.Message += " The confirmation email could not be sent yet; it will be retried, and staff have the reservation."
	}
	if !sent[noticeID(r.Ref, "reserved", "staff")] {
		res.Message += " Staff were not notified by email yet; the reservation is on the staff screen."
	}
	return res
}

// receipt is a proved intent once its reservation exists: the guest's
// data leaves it, the reference and proof stay for replays.
func receipt(in intent, ref string, now time.Time) intent {
	in.State, in.Ref = stateDone, ref
	in.Data, in.Contact = nil, nil
	in.KeepUntil = now.Add(400 * 24 * time.Hour)
	return in
}

// finishWith stores the receipt for the proved intent and answers with the
// reservation's current state.
func (s *Service) finishWith(ctx context.Context, now time.Time, in intent, r reservation, l config.Location) (*ConfirmResult, error) {
	_, err := update(ctx, s.st, kindIntent, in.ID, now, func(v *intent) error {
		if v.State == stateDone {
			return errStop
		}
		*v = receipt(*v, r.Ref, now)
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
