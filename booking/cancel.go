package booking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/message"
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
}

// CancelResult answers either step: the first fills the code fields, the
// second the reservation's current state.
type CancelResult struct {
	CancelID          string `json:"cancel_id,omitempty"`
	CodeExpiresAt     string `json:"code_expires_at,omitempty"`
	CodeExpiresLocal  string `json:"code_expires_local,omitempty"`
	CodeSentTo        string `json:"code_sent_to,omitempty"`
	Channel           string `json:"channel,omitempty"`
	ReservationNumber string `json:"reservation_number,omitempty"`
	Status            string `json:"status,omitempty"`
	Property          string `json:"property,omitempty"`
	RoomType          string `json:"roomtype,omitempty"`
	Checkin           string `json:"checkin,omitempty"`
	Checkout          string `json:"checkout,omitempty"`
	Message           string `json:"message"`
}

var cancelFields = []string{"reservation_number", "phone_last4", "cancel_id", "code"}

// Cancel is cancel_booking: mode one sends a code to the stored address,
// mode two proves it and cancels. No answer carries a booking-form link.
func (s *Service) Cancel(ctx context.Context, c Caller, args Args) (*CancelResult, error) {
	now := s.clock.Now()
	business := route{phone: s.cfg.Business.Phone}
	if r := checkFields(args, cancelFields, business); r != nil {
		return nil, r
	}
	if args.filled("cancel_id") || args.filled("code") {
		for _, f := range []string{"reservation_number", "phone_last4"} {
			if args.filled(f) {
				return nil, assemble("cancel_fields", sentCancelFields, AssembleP, business, f)
			}
		}
		return s.cancelFinish(ctx, now, c, args)
	}
	ref, l, refusal := s.parseReference(args, business)
	if refusal != nil {
		return nil, refusal
	}
	rt := route{phone: l.Phone}
	if r := s.checkDeployment(c, rt); r != nil {
		return nil, r
	}
	r, err := s.find(ctx, now, ref, args, rt)
	if err != nil {
		return nil, err
	}
	if refusal := s.cancellable(r, l, now, rt); refusal != nil {
		return nil, refusal
	}
	if open, ok := s.openCancellation(ctx, now, ref); ok {
		return s.cancelStartAnswer(open, l), nil
	}
	adm, err := s.admit(ctx, now, s.cancelGroupBudget(), s.cancelReferenceBudget(ref))
	if err != nil {
		return nil, assemble("cancel_not_in_chat", sentCancelNotInChat, AssembleNone, rt)
	}
	id, err := s.newCancelID(l)
	if err != nil {
		s.refund(ctx, adm, now)
		return nil, err
	}
	code, salt, err := s.codeAndSalt()
	if err != nil {
		s.refund(ctx, adm, now)
		return nil, err
	}
	cn := cancellation{ID: id, Ref: ref, Location: l.Slug, Salt: salt, Digest: digest(salt, id, code), Expires: now.Add(codeLifetime), State: stateOpen}
	if _, err := s.st.Apply(ctx, []store.Write{{Op: store.OpCreate, Record: record(kindCancel, id, cn, 0, now)}}); err != nil {
		s.refund(ctx, adm, now)
		return nil, assemble("cancel_not_in_chat", sentCancelNotInChat, AssembleNone, rt)
	}
	if err := s.mail.Send(ctx, s.cancelCodeEmail(cn, r, l, code, now)); err != nil {
		if message.NotSent(err) {
			s.refund(ctx, adm, now)
			if cur, gerr := s.st.Get(ctx, kindCancel, id); gerr == nil {
				_ = s.st.Delete(ctx, kindCancel, id, cur.Version)
			}
			return nil, assemble("cancel_not_in_chat", sentCancelNotInChat, AssembleNone, rt)
		}
		s.log.WarnContext(ctx, "cancellation code uncertain", "location", l.Slug, "err", err)
	}
	_, _ = update(ctx, s.st, kindCancelOpen, ref, now, func(v *string) error { *v = id; return nil })
	return s.cancelStartAnswer(cn, l), nil
}

func (s *Service) cancelStartAnswer(cn cancellation, l config.Location) *CancelResult {
	return &CancelResult{
		CancelID: cn.ID, CodeExpiresAt: cn.Expires.UTC().Format(time.RFC3339), CodeExpiresLocal: localTime(cn.Expires, l),
		CodeSentTo: "the booking email address", Channel: "email",
		Message: fmt.Sprintf("A six-digit cancellation code was emailed to the booking email address. It expires at %s. The reservation stays in place until the code is confirmed with cancel_booking.", localTime(cn.Expires, l)),
	}
}

// openCancellation returns a live open cancellation for ref, if any.
func (s *Service) openCancellation(ctx context.Context, now time.Time, ref string) (cancellation, bool) {
	id, _, err := getJSON[string](ctx, s.st, kindCancelOpen, ref)
	if err != nil {
		return cancellation{}, false
	}
	cn, _, err := getJSON[cancellation](ctx, s.st, kindCancel, id)
	if err != nil || cn.State != stateOpen || !now.Before(cn.Expires) {
		return cancellation{}, false
	}
	return cn, true
}

// cancellable applies the chat cancellation gates, on both steps: the
// reservation holds a room, it is strictly more than the cutoff before the
// local check-in time, and the office is open now.
func (s *Service) cancellable(r reservation, l config.Location, now time.Time, rt route) *Refusal {
	switch r.State {
	case resCancelled:
		return assemble("already_cancelled", sentCanceled, AssembleNone, rt, r.Ref)
	case resCompleted:
		return assemble("ended", sentEnded, AssembleNone, rt, r.Ref)
	case resMoved:
		return assemble("moved", sentMoved, AssembleNone, rt, r.Ref)
	case resReserved, resConfirmed:
	default:
		return assemble("cancel_not_in_chat", sentCancelNotInChat, AssembleNone, rt)
	}
	checkin, _ := civil.Parse(r.Checkin)
	cutoff := checkinInstant(l, checkin).Add(-time.Duration(s.cfg.Limits.CancelBeforeHours) * time.Hour)
	if !now.Before(cutoff) {
		return assemble("cancel_by_phone", sentCancelByPhone, AssembleNone, rt)
	}
	if !s.cfg.OfficeOpen(now, l) {
		return assemble("cancel_not_in_chat", sentCancelNotInChat, AssembleNone, rt)
	}
	return nil
}

// cancelFinish is mode two: prove the code, record the decision, release
// the room through the index and notify guest and staff.
func (s *Service) cancelFinish(ctx context.Context, now time.Time, c Caller, args Args) (*CancelResult, error) {
	id, code, l, rt, refusal := s.proofArgs(c, args, "cancel_id", "_c_", sentBadCancelID)
	if refusal != nil {
		return nil, refusal
	}
	wrong := assemble("wrong_code", sentWrongCode, AssembleP, rt)
	cn, _, err := getJSON[cancellation](ctx, s.st, kindCancel, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, wrong
	}
	if err != nil {
		return nil, assemble("cancel_unknown", sentCancelUnknown, AssembleNone, rt)
	}
	proof, err := s.keyed(ctx, now, "cancel-proof", id+"\x00"+code)
	if err != nil {
		return nil, assemble("cancel_unknown", sentCancelUnknown, AssembleNone, rt)
	}
	switch cn.State {
	case stateDone, stateCommitting:
		if !sameDigest(cn.Proof, proof) {
			return nil, wrong
		}
		if cn.State == stateDone {
			return s.cancelAnswer(ctx, cn.Ref, l, rt)
		}
	case stateOpen:
		if !now.Before(cn.Expires) {
			return nil, wrong
		}
		if !sameDigest(cn.Digest, digest(cn.Salt, id, code)) {
			updated, err := update(ctx, s.st, kindCancel, id, now, func(v *cancellation) error {
				if v.State != stateOpen {
					return errStop
				}
				v.Wrong++
				return nil
			})
			if err == nil && updated.Wrong >= wrongTries {
				if cur, gerr := s.st.Get(ctx, kindCancel, id); gerr == nil {
					_ = s.st.Delete(ctx, kindCancel, id, cur.Version)
				}
			}
			return nil, wrong
		}
		r, _, err := getJSON[reservation](ctx, s.st, kindReservation, cn.Ref)
		if err != nil {
			return nil, assemble("cancel_unknown", sentCancelUnknown, AssembleNone, rt)
		}
		if refusal := s.cancellable(r, l, now, rt); refusal != nil {
			return nil, refusal
		}
		cn, err = update(ctx, s.st, kindCancel, id, now, func(v *cancellation) error {
			if v.State != stateOpen {
				return errStop
			}
			v.State, v.Proof, v.Salt, v.Digest = stateCommitting, proof, "", ""
			return nil
		})
		if err != nil {
			return nil, assemble("cancel_unknown", sentCancelUnknown, AssembleNone, rt)
		}
	}
	return s.cancelCommit(ctx, now, cn, l, rt)
}

// cancelCommit saves the decision first, then releases the room and sends
// the notices. A failed release leaves a repair marker for the sweep and
// answers that the cancellation may have gone through.
func (s *Service) cancelCommit(ctx context.Context, now time.Time, cn cancellation, l config.Location, rt route) (*CancelResult, error) {
	r, err := update(ctx, s.st, kindReservation, cn.Ref, now, func(v *reservation) error {
		if v.State == resCancelled {
			return errStop
		}
		v.State, v.CancelledAt = resCancelled, now
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, assemble("cancel_unknown", sentCancelUnknown, AssembleNone, rt)
	}
	if errors.Is(err, errStop) {
		r, _, _ = getJSON[reservation](ctx, s.st, kindReservation, cn.Ref)
	}
	if !r.Released {
		if err := s.inv.Release(ctx, r.Ref, now); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.ErrorContext(ctx, "release room", "location", l.Slug, "err", err)
			return nil, assemble("cancel_maybe", sentCancelMaybe, AssembleNone, rt)
		}
		r, _ = update(ctx, s.st, kindReservation, cn.Ref, now, func(v *reservation) error {
			v.Released = true
			return nil
		})
		s.releasePending(ctx, now, l.Slug, r.Ref)
	}
	s.queueNotices(ctx, now, r.Ref, s.cancellationEmails(r, l, now))
	_, _ = update(ctx, s.st, kindCancel, cn.ID, now, func(v *cancellation) error {
		v.State = stateDone
		return nil
	})
	return s.cancelAnswer(ctx, r.Ref, l, rt)
}

// cancelAnswer reports the reservation's current state, so a replay of
// the same cancel_id and code reports the same outcome.
func (s *Service) cancelAnswer(ctx context.Context, ref string, l config.Location, rt route) (*CancelResult, error) {
	r, _, err := getJSON[reservation](ctx, s.st, kindReservation, ref)
	if err != nil {
		return nil, assemble("cancel_maybe", sentCancelMaybe, AssembleNone, rt)
	}
	msg := fmt.Sprintf("Reservation %s is %s.", r.Ref, r.State)
	if r.State == resCancelled {
		msg = fmt.Sprintf("Reservation %s is cancelled and its room released. The guest and staff are notified by email. No payment or refund is processed.", r.Ref)
	}
	return &CancelResult{ReservationNumber: r.Ref, Status: r.State, Property: l.Name, RoomType: r.RoomType,
		Checkin: r.Checkin, Checkout: r.Checkout, Message: msg}, nil
}
