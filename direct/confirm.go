package direct

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/message"
	"frontdesk/reservation"
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

// ConfirmRequest is the second step of a booking: the booking_id Start
// returned and the six-digit code it emailed. A door checks their shapes
// first (ValidBookingID); an identifier of another shape names no intent.
type ConfirmRequest struct {
	BookingID string
	Code      string
}

// Confirm is confirm_booking: prove the code, then hold a room.
func (s *Service) Confirm(ctx context.Context, c reservation.Caller, req ConfirmRequest) (*ConfirmResult, error) {
	now := s.clock.Now()
	ctx, cancel := s.operation(ctx)
	defer cancel()
	id, code := req.BookingID, req.Code
	l, rt := s.referenceRoute(id)
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, r
	}
	var proof string
	var d draws
	// Every pass reads the intent afresh: a proved intent commits at the
	// version read, so a confirmation that lost to another re-reads and
	// answers with the state the winner left.
	var res *ConfirmResult
	err := store.Retry(ctx, func() error {
		irec, err := s.st.Get(ctx, kindIntent, id)
		if errors.Is(err, store.ErrNotFound) {
			return refuse(CodeIntentGone, rt)
		}
		var in intent
		if err == nil {
			err = json.Unmarshal(irec.Value, &in)
		}
		if err != nil {
			return because(refuse(CodeCannotCheck, rt), err)
		}
		rt.form = s.formFor(l, in.Data)
		if proof == "" {
			if proof, err = s.keyed(ctx, now, "proof", id+"\x00"+code); err != nil {
				return because(refuse(CodeCannotCheck, rt), err)
			}
		}
		switch in.State {
		case stateDone:
			// A proof made before a rotation holds until its version retires.
			if ok, err := s.provedBy(ctx, now, in.Proof, "proof", id+"\x00"+code); err != nil {
				return because(refuse(CodeCannotCheck, rt), err)
			} else if !ok {
				return refuse(CodeWrongCode, rt)
			}
			res, err = s.currentAnswer(ctx, in.Ref, l)
			return err
		case stateOpen, stateSending:
			// A code that proves a sending intent was delivered, whatever
			// became of the start that sent it.
			if !now.Before(in.Expires) {
				return refuse(CodeIntentGone, rt)
			}
			if !sameDigest(in.Digest, digest(in.Salt, id, code)) {
				return s.wrongCode(ctx, now, in, irec.Version, rt)
			}
			res, err = s.commitProved(ctx, now, in, irec.Version, proof, &d, l, rt)
			return err
		default:
			return refuse(CodeIntentGone, rt)
		}
	})
	if err := passesEnded(ctx, err, CodeOutcomeUnknown, CodeCannotCheck, rt); err != nil {
		return nil, err
	}
	return res, err
}

// wrongCode counts a wrong try at the version the code was compared
// against; the fifth ends the intent. When another call moved the intent
// on first, errAgain asks Confirm to read it and compare again, so a
// wrong code is answered only once its try is counted.
func (s *Service) wrongCode(ctx context.Context, now time.Time, in intent, version int64, rt route) error {
	in.Wrong++
	if err := s.countWrong(ctx, now, kindIntent, in.ID, in, version, in.Wrong >= wrongTries); err != nil {
		return err
	}
	if in.Wrong >= wrongTries {
		s.dropFingerprint(ctx, in.Fingerprint, in.ID)
	}
	return refuse(CodeWrongCode, rt)
}

// countWrong stores v, a proof step with one more wrong try, at version,
// or deletes it when its tries are spent. errAgain means another call
// wrote first; a failing store keeps the wrong answer, since the try may
// have been counted.
func (s *Service) countWrong(ctx context.Context, now time.Time, kind, key string, v any, version int64, spent bool) error {
	w := store.Write{Op: store.OpSwap, Record: record(kind, key, v, version, now)}
	if spent {
		w = store.Write{Op: store.OpDelete, Record: store.Record{Kind: kind, Key: key, Version: version}}
	}
	_, err := s.st.Apply(ctx, []store.Write{w})
	if _, refused := errors.AsType[*store.WriteError](err); refused {
		return errAgain
	}
	if err != nil {
		s.log.WarnContext(ctx, "count wrong code", "err", err)
	}
	return nil
}

// newBooked is the reservation of a proved intent, held as it commits.
func newBooked(in intent, token string, l business.Location, now time.Time) booked {
	d := in.Data
	checkin, _ := civil.Parse(d.Checkin)
	return booked{
		Reservation: reservation.Reservation{
			Reference: in.Ref, Location: l.Slug, Unit: d.RoomType, Slots: inventory.Nights(checkin, in.Price.Nights),
			Guests: d.Guests, Contact: reservation.Contact{Name: d.Name, Email: d.Email, Phone: d.Phone},
			ContactKey: in.Mailbox, Source: reservation.SourceChat, State: reservation.Reserved, Held: true,
			Total: in.Price.Total, Notes: CleanNotes(d.Notes), Token: token, CreatedAt: now,
			Audit: []reservation.Entry{{At: now, By: "guest", What: "→" + string(reservation.Reserved)}},
		},
		chat: chatDetail{
			AgreementAtCheckin: true, PhoneDigits: in.Contact.Phone, ChatPrice: in.Price.Total,
			RateBasis: in.Price.RateBasis, UncheckedProperties: []string{}, IntentID: in.ID,
		},
	}
}

// errAgain asks Confirm to read the intent again: a write at the version
// it read was refused, so another call moved the intent or a record the
// decision rested on.
var errAgain = fmt.Errorf("booking: read again: %w", store.ErrConflict)

// draws are the random values of one confirmation, drawn once however
// often it reads again, so the reference is allocated once, and how
// often it waited for a contact marker another call held.
type draws struct {
	ref, token  string
	markerWaits int
}

// A confirmation that finds its mailbox's marker held reads again up to
// markerWaits times, markerPoll apart (the worksheet's bounded polling),
// before it answers with contention.
const (
	markerWaits = 100
	markerPoll  = 50 * time.Millisecond
)

// errNoticeTaken means a notice of a new reservation was already queued:
// only a reference drawn twice collides there.
var errNoticeTaken = errors.New("booking: notice exists")

// commitProved runs §8 steps 6 to 9 for an intent proved just now, still
// open at version. The contact rules and both pending ceilings are
// decided from reads made right before one transaction that swaps the
// intent for its receipt at that version, moves the mailbox's contact
// marker on, claims a pending place of the group and of the location,
// saves the reservation, holds the room and queues the notices. The spec
// orders the registration before the record and the record before the
// hold so that no step is ever left without the one before it;
// committing them together keeps that promise with nothing to recover or
// clean up. A refused write means another call changed what was read:
// errAgain, and Confirm decides again.
func (s *Service) commitProved(ctx context.Context, now time.Time, in intent, version int64, proof string, d *draws, l business.Location, rt route) (*ConfirmResult, error) {
	var err error
	if d.ref == "" {
		if d.ref, err = s.core.NewReference(l); err != nil {
			return nil, because(refuse(CodeCannotCheck, rt), err)
		}
	}
	// The settings and the contact marker are one read. The marker is
	// read before the rows it guards: a confirmation of the same mailbox
	// that commits after this read moves it on and refuses this one's
	// transaction. The marker and the rows share the contact-read limit.
	contactCtx, contactDone := within(ctx, s.deadlines.Contact)
	defer contactDone()
	// The reservation is keyed under the newest version of the secret,
	// and the rules read the mailbox under every live one.
	keys, err := s.mailboxKeys(ctx, now, in)
	if err != nil {
		return nil, because(refuse(CodeCannotCheck, rt), err)
	}
	in.Mailbox = keys[0]
	set, read, err := s.policyAnd(contactCtx, store.Key{Kind: kindContact, Key: in.Mailbox})
	if err != nil {
		return nil, because(refuse(CodeCannotCheck, rt), err)
	}
	marker := read[0]
	if !set.Locations[l.Slug].BookingEnabled {
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, refuse(CodeSwitchedOff, rt)
	}
	if d.token == "" {
		if d.token, err = s.randomHex(16); err != nil {
			return nil, because(refuse(CodeCannotCheck, rt), err)
		}
	}
	// In a split deployment the mailbox's marker at the hub serializes its
	// confirmations across the group, and brings its stays elsewhere;
	// this call's work ends before the marker lapses.
	m, err := s.markAtHub(ctx, in.Contact.Email)
	if errors.Is(err, ErrControlBusy) && d.markerWaits < markerWaits {
		// Another call holds the marker, maybe an identical confirmation:
		// once it commits, this one reads its receipt and answers with
		// its reservation, as in one process.
		d.markerWaits++
		select {
		case <-ctx.Done():
		case <-time.After(markerPoll):
			return nil, errAgain
		}
	}
	if err != nil {
		return nil, because(refuse(CodePausedCall, rt), err)
	}
	var made *booked
	defer func() { s.settle(ctx, m, made) }()
	ctx, cancelMarked := markerDeadline(ctx, m, s.clock.Now())
	defer cancelMarked()
	// The proved intent is never stored as such: it becomes its receipt
	// in the same transaction as the reservation.
	proved := in
	proved.Proof, proved.Ref = proof, d.ref
	proved.Salt, proved.Digest = "", ""

	var marks int64
	if marker.Version > 0 {
		if err := jsonValue(marker, &marks); err != nil {
			return nil, because(refuse(CodeCannotCheck, rt), err)
		}
	}
	markerVersion := marker.Version

	// The contact rows and the two pending ceilings (the group's before
	// the location's) are read at once and judged in that order.
	r := newBooked(proved, d.token, l, now)
	if m.unread != nil {
		r.chat.UncheckedProperties = m.unread // named for staff
	}
	_, checkout, _ := r.Stay()
	until := pendingUntil(l, checkout)
	rows, rowsErr := s.contactRows(contactCtx, keys, in.Data, s.today(l, now))
	contactDone()
	if rowsErr != nil {
		return nil, because(refuse(CodeCannotCheck, rt), rowsErr)
	}
	rows = append(rows, m.elsewhere(l.Slug)...)
	if reuse, refused := s.contactVerdict(rows, l, in.Data, s.today(l, now)); reuse != nil {
		// The same proved email already holds this stay: report it.
		_, err := s.st.Apply(ctx, []store.Write{{Op: store.OpSwap, Record: record(kindIntent, in.ID, receipt(proved, reuse.Reference, now), version, now)}})
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
		return nil, refuse(CodeContact, rt)
	}

	// In a split deployment the group's place is the hub's, claimed
	// first; the reservation gives it back when it stops awaiting staff.
	full, unread := s.claimAtHub(ctx, r.Reference, until)
	if full {
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, refuse(CodePausedForStaff, rt)
	}
	r.chat.GroupPendingUnread = unread // named for staff
	// The pending ceilings are claimed in the reservation's transaction,
	// the group's before the location's, so a full group answers first.
	groupKey, groupClaim := reservation.Claim(scopeGroup, set.Group.Pending, until, now)
	localKey, localClaim := reservation.Claim(scopeLocation(l.Slug), set.Locations[l.Slug].Pending, until, now)
	r.Claims = []string{groupKey, localKey}
	unit, _ := l.Unit(r.Unit)
	notices, queue := newNotices(now, r.Reference, []message.Email{s.reservationEmail(r, l, now), s.ownerNotice(r, l, now)})
	_, err = s.desk.Create(ctx, reservation.New{
		Kind: reservation.KindBooking, Reference: r.Reference, Unit: reservation.UnitOf(l, unit), Slots: r.Slots,
		Guests: r.Guests, Contact: r.Contact, ContactKey: r.ContactKey, Source: r.Source, Total: r.Total,
		Notes: r.Notes, Token: r.Token, Claims: r.Claims, ClaimWrites: []store.Write{groupClaim, localClaim},
		Detail: r.withDetail().Detail, By: "guest", At: now,
		Also: []reservation.Addition{
			reservation.Records(errAgain,
				store.Write{Op: store.OpSwap, Record: record(kindIntent, in.ID, receipt(proved, r.Reference, now), version, now)},
				upsert(kindContact, in.Mailbox, marks+1, markerVersion, now)),
			reservation.Records(errNoticeTaken, queue...),
		},
	})
	switch reservation.ErrorCode(err) {
	case "":
		made = &r
	case reservation.CodeCeiling, reservation.CodeUnitTaken, reservation.CodeInternal, reservation.CodeConflict:
		// Nothing was written: the hub's place goes back.
		s.releaseAtHub(ctx, r.Reference)
	}
	switch reservation.ErrorCode(err) {
	case "":
	case reservation.CodeCeiling:
		// A pending ceiling is full. Nothing was written.
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, refuse(CodePausedForStaff, rt)
	case reservation.CodeUnitTaken:
		// The last room went while the guest was verifying. Nothing was
		// written, so there is no pending record or place to clean up.
		if err := s.endAt(ctx, in, version); err != nil {
			return nil, err
		}
		return nil, refuse(CodeLastRoom, rt)
	case reservation.CodeInternal:
		// Only a reference drawn twice collides here; reading again
		// would meet the same records.
		return nil, because(refuse(CodeOutcomeUnknown, rt), fmt.Errorf("reference collides: %w", err))
	case reservation.CodeConflict:
		if errors.Is(err, errNoticeTaken) {
			return nil, because(refuse(CodeOutcomeUnknown, rt), fmt.Errorf("reference collides: %w", err))
		}
		return nil, errAgain
	default:
		return nil, because(refuse(CodeOutcomeUnknown, rt), fmt.Errorf("commit reservation: %w", err))
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

// upsert is a conditional write of v: a create when version is 0 (the
// record was absent when read), a swap otherwise.
func upsert(kind, key string, v any, version int64, now time.Time) store.Write {
	if version == 0 {
		return store.Write{Op: store.OpCreate, Record: record(kind, key, v, 0, now)}
	}
	return store.Write{Op: store.OpSwap, Record: record(kind, key, v, version, now)}
}

// reservedAnswer is the answer for a reservation whose room was just held,
// saying truthfully which notices went out.
func (s *Service) reservedAnswer(r booked, l business.Location, sent map[string]bool) *ConfirmResult {
	res := s.answer(r, l)
	switch {
	case sent[noticeID(r.Reference, "reserved", "guest")]:
		res.Message += fmt.Sprintf(" A confirmation email was sent to %s.", MaskEmail(r.Contact.Email))
	default:
		res.Message += " The confirmation email could not be sent yet; it will be retried, and staff have the reservation."
	}
	if !sent[noticeID(r.Reference, "reserved", "staff")] {
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

// currentAnswer re-reads a reservation for a replay, so a cancelled,
// completed or moved reservation is never reported as a fresh hold.
func (s *Service) currentAnswer(ctx context.Context, ref string, l business.Location) (*ConfirmResult, error) {
	r, err := s.getBooked(ctx, ref)
	if err != nil {
		return nil, because(refuse(CodeOutcomeUnknown, route{phone: l.Phone}), err)
	}
	rt := route{phone: l.Phone, form: s.pricer.FormURL(l, r.Unit, r.Checkin(), r.Checkout())}
	switch r.State {
	case reservation.Cancelled, reservation.Declined:
		return nil, refuse(CodeReplayCancelled, rt, r.Reference)
	case reservation.Completed, reservation.NoShow:
		return nil, refuse(CodeReplayEnded, rt, r.Reference)
	case reservation.Moved:
		return nil, refuse(CodeReplayMoved, rt, r.Reference)
	}
	return s.answer(r, l), nil
}

func (s *Service) answer(r booked, l business.Location) *ConfirmResult {
	return &ConfirmResult{
		ReservationNumber: r.Reference, Status: string(r.State), Property: l.Name, RoomType: r.Unit,
		Checkin: r.Checkin(), Checkout: r.Checkout(), Total: s.pricer.Amount(r.Total), Phone: l.Phone,
		Message: fmt.Sprintf("Reservation %s is %s at %s: %s, %s to %s, total %s. %s",
			r.Reference, r.State, l.Name, r.Unit, r.Checkin(), r.Checkout(), s.pricer.Display(r.Total), s.confirmationMessage(r.State)),
	}
}
