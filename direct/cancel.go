package direct

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// cancellation is a two-step cancellation: its code, then its receipt.
type cancellation struct {
	ID       string    `json:"id"`
	Ref      string    `json:"ref"`
	Location string    `json:"location"`
	Salt     string    `json:"salt,omitempty"`
	Digest   string    `json:"digest,omitempty"`
	Expires  time.Time `json:"expires"`
	Wrong    int       `json:"wrong"`
	State    string    `json:"state"` // open, committing, done
	Proof    string    `json:"proof,omitempty"`
	// Guest marks a cancellation asked for on the guest's own page,
	// which keeps the notice period but not the office-hours condition.
	Guest bool `json:"guest,omitempty"`
}

// CancelRequest is either step of a cancellation: the first names the
// reservation by Reference and Last4 (as LookupRequest), the second gives
// the CancelID of the first step and the code it emailed. A CancelID or
// Code makes it the second step. A door checks their shapes first.
type CancelRequest struct {
	Reference string
	Last4     string
	CancelID  string
	Code      string
	// Guest makes a first step the guest's own page's: the cancellation
	// then needs the notice period only, not open office hours (the
	// page's rule until payments set their own).
	Guest bool
}

// Cancel is cancel_booking: mode one sends a code to the stored address,
// mode two proves it and cancels. No answer carries a booking-form link.
func (s *Service) Cancel(ctx context.Context, c reservation.Caller, req CancelRequest) (*reservation.CancelResult, error) {
	now := s.clock.Now()
	ctx, cancel := s.operation(ctx)
	defer cancel()
	if req.CancelID != "" || req.Code != "" {
		return s.cancelFinish(ctx, now, c, req.CancelID, req.Code)
	}
	ref := req.Reference
	l, rt := s.referenceRoute(ref)
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, r
	}
	r, err := s.find(ctx, now, ref, req.Last4, rt)
	if err != nil {
		return nil, err
	}
	set, err := s.policy(ctx)
	if err != nil {
		return nil, because(refuse(CodeCancelNotInChat, rt), err)
	}
	if refusal := s.cancellable(r, l, set, now, rt, req.Guest); refusal != nil {
		return nil, refusal
	}
	id, err := s.newCancelID(l)
	if err != nil {
		return nil, because(refuse(CodeCancelNotInChat, rt), err)
	}
	code, salt, err := s.codeAndSalt()
	if err != nil {
		return nil, because(refuse(CodeCancelNotInChat, rt), err)
	}
	cn := cancellation{ID: id, Ref: ref, Location: l.Slug, Salt: salt, Digest: digest(salt, id, code), Expires: now.Add(codeLifetime), State: stateOpen, Guest: req.Guest}
	// The reference's open-cancellation pointer, the cancellation and the
	// charges to both code budgets commit together: of parallel first
	// steps exactly one creates a cancellation and sends its code, and the
	// others answer with that one. The budget reads and the write share the
	// admission deadline, as start_booking's do.
	var adm admission
	admitting := s.admitDeadline(ctx)
	defer admitting.stop()
	var answer *reservation.CancelResult
	var hub *Admitted // the hub's admission, in a split deployment
	full := false
	err = store.Retrier{Attempts: maxCASAttempts + 1}.Run(ctx, func() error {
		version, open, ok := s.openCancellation(ctx, now, ref)
		if ok && open.Guest == req.Guest {
			answer = s.cancelStartAnswer(open, l)
			return nil
		}
		if hub == nil && s.control != nil {
			// The group's budget is the hub's, charged once and first.
			var err error
			if hub, err = s.admitCancelAtHub(ctx); err != nil {
				full = true // no acknowledged allowance: no code
				return store.Final(err)
			}
		}
		charges, a := s.chargeWrites(now, s.cancelGroupBudget(set), s.cancelReferenceBudget(ref))
		a.hub = hub
		_, err := s.st.Apply(admitting.context(), append([]store.Write{
			{Op: store.OpCreate, Record: record(kindCancel, id, cn, 0, now)},
			upsert(kindCancelOpen, ref, id, version, now),
		}, charges...))
		if a.full(err) != nil {
			full = true // nothing was written
			return store.Final(err)
		}
		adm = a
		return err // another first step or send came first: read again
	})
	if answer != nil || full || err != nil || admitting.passed() {
		// No code is sent under the hub's admission: it is known unused.
		s.refundAtHub(ctx, hub)
		adm.hub = nil
	}
	switch {
	case answer != nil:
		return answer, nil
	case full:
		return nil, refuse(CodeCancelNotInChat, rt)
	case err == nil && admitting.passed():
		// Acknowledged too late: no code is sent, the known-unused
		// charges go back, and so does the cancellation, so that no
		// later first step answers with a code never mailed.
		s.refund(ctx, adm, now)
		s.dropCancellation(ctx, id)
		return nil, because(refuse(CodeCancelNotInChat, rt), errLateAdmission)
	case err != nil:
		// The write may have committed: its charges stay, but no code
		// was sent, so a cancellation it created goes.
		s.dropCancellation(ctx, id)
		return nil, because(refuse(CodeCancelNotInChat, rt), err)
	}
	admitting.stop()
	if err := s.send(ctx, s.cancelCodeEmail(cn, r, l, code, now)); err != nil {
		if message.NotSent(err) {
			s.refund(ctx, adm, now)
			s.dropCancellation(ctx, id)
			return nil, refuse(CodeCancelNotInChat, rt)
		}
		s.log.WarnContext(ctx, "cancellation code uncertain", "location", l.Slug, "err", err)
	}
	return s.cancelStartAnswer(cn, l), nil
}

// dropCancellation removes a first step whose code was never sent, at
// the version its create stored. The pointer stays; it names a
// cancellation that is gone, which the next first step replaces.
func (s *Service) dropCancellation(ctx context.Context, id string) {
	if err := s.st.Delete(ctx, kindCancel, id, 1); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.log.WarnContext(ctx, "drop unsent cancellation", "err", err)
	}
}

func (s *Service) cancelStartAnswer(cn cancellation, l business.Location) *reservation.CancelResult {
	return &reservation.CancelResult{
		CancelID: cn.ID, CodeExpiresAt: cn.Expires.UTC().Format(time.RFC3339), CodeExpiresLocal: localTime(cn.Expires, l),
		CodeSentTo: "the booking email address", Channel: "email",
		Message: fmt.Sprintf("A six-digit cancellation code was emailed to the booking email address. It expires at %s. The reservation stays in place until the code is confirmed with cancel_booking.", localTime(cn.Expires, l)),
	}
}

// openCancellation reads the version of ref's open-cancellation pointer
// (0 when absent) and the cancellation it names when that is still open.
func (s *Service) openCancellation(ctx context.Context, now time.Time, ref string) (version int64, open cancellation, ok bool) {
	id, version, err := getJSON[string](ctx, s.st, kindCancelOpen, ref)
	if err != nil {
		return 0, cancellation{}, false
	}
	cn, _, err := getJSON[cancellation](ctx, s.st, kindCancel, id)
	if err != nil || cn.State != stateOpen || !now.Before(cn.Expires) {
		return version, cancellation{}, false
	}
	return version, cn, true
}

// cancellable applies the chat cancellation gates, on both steps: the
// reservation holds a room, it is strictly more than the cutoff before the
// local check-in time, and the office is open now. A cancellation from the
// guest's own page (guest) needs no open office; one in chat of a unit
// that takes money when booking is by phone.
func (s *Service) cancellable(r booked, l business.Location, set reservation.Settings, now time.Time, rt route, guest bool) *Error {
	switch r.State {
	case reservation.Cancelled, reservation.Declined:
		return refuse(CodeAlreadyCancelled, rt, r.Reference)
	case reservation.Completed, reservation.NoShow:
		return refuse(CodeEnded, rt, r.Reference)
	case reservation.Moved:
		return refuse(CodeMoved, rt, r.Reference)
	case reservation.Reserved, reservation.Confirmed:
	default:
		return refuse(CodeCancelNotInChat, rt)
	}
	checkin, _ := civil.Parse(r.Checkin())
	cutoff := checkinInstant(l, checkin).Add(-time.Duration(s.cfg.Limits.CancelBeforeHours) * time.Hour)
	if !now.Before(cutoff) {
		return refuse(CodeCancelByPhone, rt)
	}
	if !guest && s.paidUnit(r, l) {
		// Chat processes no payment or refund (§6): a stay whose unit
		// takes money when booking is cancelled by phone or on the
		// guest's page, under the published policy.
		return refuse(CodeCancelByPhone, rt)
	}
	if !guest && !officeOpen(set, s.cfg, now, l) {
		return refuse(CodeCancelNotInChat, rt)
	}
	return nil
}

// cancelFinish is mode two: prove the code, record the decision, release
// the room through the index and notify guest and staff.
func (s *Service) cancelFinish(ctx context.Context, now time.Time, c reservation.Caller, id, code string) (*reservation.CancelResult, error) {
	l, rt := s.referenceRoute(id)
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, r
	}
	wrong := refuse(CodeWrongCode, rt)
	proof, err := s.keyed(ctx, now, "cancel-proof", id+"\x00"+code)
	if err != nil {
		return nil, because(refuse(CodeCancelUnknown, rt), err)
	}
	// Every pass reads the cancellation afresh, and every outcome is
	// written at the version its code was compared against: a wrong code
	// is answered only once its try is counted, so parallel guesses get
	// no more answers than there are tries.
	var res *reservation.CancelResult
	err = store.Retry(ctx, func() error {
		cn, version, err := getJSON[cancellation](ctx, s.st, kindCancel, id)
		if errors.Is(err, store.ErrNotFound) {
			return wrong
		}
		if err != nil {
			return because(refuse(CodeCancelUnknown, rt), err)
		}
		switch cn.State {
		case stateDone, stateCommitting:
			// A proof made before a rotation holds until its version retires.
			if ok, err := s.provedBy(ctx, now, cn.Proof, "cancel-proof", id+"\x00"+code); err != nil {
				return because(refuse(CodeCancelUnknown, rt), err)
			} else if !ok {
				return wrong
			}
			if cn.State == stateDone {
				r, err := s.getBooked(ctx, cn.Ref)
				if err != nil {
					return because(refuse(CodeCancelMaybe, rt), err)
				}
				res, err = s.cancelAnswer(ctx, r, l, nil)
				return err
			}
		case stateOpen:
			if !now.Before(cn.Expires) {
				return wrong
			}
			if !sameDigest(cn.Digest, digest(cn.Salt, id, code)) {
				cn.Wrong++
				if err := s.countWrong(ctx, now, kindCancel, id, cn, version, cn.Wrong >= wrongTries); errors.Is(err, errAgain) {
					return errAgain
				}
				return wrong
			}
			r, err := s.getBooked(ctx, cn.Ref)
			if err != nil {
				return because(refuse(CodeCancelUnknown, rt), err)
			}
			set, err := s.policy(ctx)
			if err != nil {
				return because(refuse(CodeCancelUnknown, rt), err)
			}
			if refusal := s.cancellable(r, l, set, now, rt, cn.Guest); refusal != nil {
				if cur, _, err := getJSON[cancellation](ctx, s.st, kindCancel, id); err == nil && cur.State != stateOpen {
					// A parallel step with this code moved the
					// cancellation on after it was read: answer as it.
					return errAgain
				}
				return refusal
			}
			cn.State, cn.Proof, cn.Salt, cn.Digest = stateCommitting, proof, "", ""
			_, err = s.st.Apply(ctx, []store.Write{{Op: store.OpSwap, Record: record(kindCancel, id, cn, version, now)}})
			if _, refused := errors.AsType[*store.WriteError](err); refused {
				return errAgain
			}
			if err != nil {
				return because(refuse(CodeCancelUnknown, rt), err)
			}
		default:
			return wrong
		}
		res, err = s.cancelCommit(ctx, now, cn, l, rt)
		return err
	})
	if err := passesEnded(ctx, err, CodeCancelUnknown, CodeCancelUnknown, rt); err != nil {
		return nil, err
	}
	return res, err
}

// cancelCommit cancels the reservation of a proved cancellation in one
// transaction: the reservation's state, the release of its room and of
// its pending places, the queued notices and the cancellation's receipt
// commit together or not at all, so a failure at any point leaves either
// nothing done, which a retry finishes, or everything done, which a
// retry reports. Of parallel attempts exactly one commits and attempts
// the notices; the others read the outcome it left.
func (s *Service) cancelCommit(ctx context.Context, now time.Time, cn cancellation, l business.Location, rt route) (*reservation.CancelResult, error) {
	var res *reservation.CancelResult
	err := store.Retry(ctx, func() error {
		// The cancellation first, then the reservation: both commit in
		// one transaction, so a cancellation read as done is always
		// followed by its cancelled reservation, never a stale one.
		cur, cnVersion, err := getJSON[cancellation](ctx, s.st, kindCancel, cn.ID)
		if err != nil {
			return because(refuse(CodeCancelUnknown, rt), err)
		}
		r, err := s.getBooked(ctx, cn.Ref)
		if err != nil {
			return because(refuse(CodeCancelUnknown, rt), err)
		}
		if cur.State == stateDone {
			res, err = s.cancelAnswer(ctx, r, l, nil)
			return err
		}
		cur.State = stateDone
		done := store.Write{Op: store.OpSwap, Record: record(kindCancel, cn.ID, cur, cnVersion, now)}
		var notices []queuedNotice
		if r.State == reservation.Cancelled {
			_, err = s.st.Apply(ctx, []store.Write{done})
		} else {
			var queue []store.Write
			_, err = s.desk.Cancel(ctx, reservation.Change{
				Read: r.Reservation, By: "guest", Note: "cancelled in chat", At: now,
				Edit: func(m *reservation.Reservation) {
					r.Reservation, r.chat.CancelledAt = *m, now
					*m = r.withDetail()
				},
				Also: []reservation.Addition{reservation.Records(nil, done), {Build: func(moved reservation.Reservation) []store.Write {
					r.Reservation = moved
					notices, queue = newNotices(now, r.Reference, s.cancellationEmails(r, l, now))
					return queue
				}}},
			})
			if reservation.ErrorCode(err) == reservation.CodeIllegalTransition {
				// Staff moved it on meanwhile: the cancellation ends with
				// the reservation as staff left it.
				if _, err := s.st.Apply(ctx, []store.Write{done}); err != nil {
					return because(refuse(CodeCancelUnknown, rt), err)
				}
				res, err = s.cancelAnswer(ctx, r, l, nil)
				return err
			}
		}
		if _, refused := errors.AsType[*store.WriteError](err); refused || reservation.ErrorCode(err) == reservation.CodeConflict {
			return errAgain // another attempt or a staff decision came first: read again
		}
		if err != nil {
			// The transaction may or may not have committed.
			return because(refuse(CodeCancelMaybe, rt), fmt.Errorf("commit cancellation: %w", err))
		}
		res, err = s.cancelAnswer(ctx, r, l, s.attemptNotices(ctx, now, notices))
		return err
	})
	if err := passesEnded(ctx, err, CodeCancelMaybe, CodeCancelUnknown, rt); err != nil {
		return nil, err
	}
	return res, err
}

// cancelAnswer reports the reservation's current state, so a replay of
// the same cancel_id and code reports the same outcome, and says
// truthfully which cancellation notices went out: from sent when they
// were just attempted, else from their records.
func (s *Service) cancelAnswer(ctx context.Context, r booked, l business.Location, sent map[string]bool) (*reservation.CancelResult, error) {
	msg := fmt.Sprintf("Reservation %s is %s.", r.Reference, r.State)
	if r.State == reservation.Cancelled {
		guest, staff := noticeID(r.Reference, "cancelled", "guest"), noticeID(r.Reference, "cancelled", "staff")
		if sent == nil {
			sent = s.noticesSent(ctx, guest, staff)
		}
		msg = fmt.Sprintf("Reservation %s is cancelled and its room released.", r.Reference)
		switch {
		case sent[guest] && sent[staff]:
			msg += " The guest and staff are notified by email."
		case sent[guest]:
			msg += " The guest is notified by email. Staff were not notified by email yet; the cancellation is on the staff screen."
		case sent[staff]:
			msg += " Staff are notified by email. The cancellation email to the guest could not be sent yet; it will be retried."
		default:
			msg += " The cancellation emails could not be sent yet; they will be retried, and the cancellation is on the staff screen."
		}
		msg += " No payment or refund is processed."
	}
	return &reservation.CancelResult{ReservationNumber: r.Reference, Status: string(r.State), Property: l.Name, RoomType: r.Unit,
		Checkin: r.Checkin(), Checkout: r.Checkout(), Message: msg}, nil
}
