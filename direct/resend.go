package direct

import (
	"context"
	"errors"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/message"
	"frontdesk/store"
)

// resend sends a new code for an open intent. It checks the intent before
// charging anything, keeps the original expiry and wrong-try count, and
// replaces the code only once the new one was sent.
func (s *Service) resend(ctx context.Context, now time.Time, id string) (*StartResult, error) {
	l, rt := s.referenceRoute(id)
	in, _, err := getJSON[intent](ctx, s.st, kindIntent, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, refuse(CodeIntentGone, rt)
	}
	if err != nil {
		return nil, because(refuse(CodeCannotCheck, rt), err)
	}
	rt.form = s.formFor(l, in.Data)
	if !in.live(now) || in.State != stateOpen {
		return nil, refuse(CodeIntentGone, rt)
	}
	if in.Resends >= maxResends {
		return nil, refuse(CodeTwoResends, rt)
	}
	if last := in.SentAt[len(in.SentAt)-1]; now.Sub(last) < resendGap {
		return nil, refuse(CodeWait60, rt)
	}
	set, err := s.policy(ctx)
	if err != nil {
		return nil, because(refuse(CodeCannotCheck, rt), err)
	}
	var hub *Admitted
	if in.Contact != nil {
		if hub, err = s.admitAtHub(ctx, in.Contact.Email); err != nil {
			return nil, s.admissionRefusal(err, rt)
		}
	}
	adm, err := s.admit(ctx, now, s.groupBookingBudget(set), s.mailboxBudget(in.Mailbox), s.locationBudget(set, l.Slug))
	if refusal := s.admissionRefusal(err, rt); refusal != nil {
		s.refundAtHub(ctx, hub) // no code is sent under it
		return nil, refusal
	}
	adm.hub = hub
	code, salt, err := s.codeAndSalt()
	if err != nil {
		s.refund(ctx, adm, now)
		return nil, because(refuse(CodeCannotCheck, rt), err)
	}
	err = s.send(ctx, s.codeEmail(in, l, code, now))
	if message.NotSent(err) {
		s.refund(ctx, adm, now)
		return nil, notSent(err, rt)
	}
	updated, err := store.Update(ctx, s.st, kindIntent, id, now, func(v *intent, _ bool) error {
		if v.State != stateOpen {
			return errStop
		}
		v.Salt, v.Digest = salt, digest(salt, id, code)
		v.Resends++
		v.SentAt = append(v.SentAt, now)
		return nil
	})
	if errors.Is(err, errStop) {
		return nil, refuse(CodeIntentGone, rt)
	}
	if err != nil {
		return nil, because(refuse(CodeCannotCheck, rt), err)
	}
	return s.startResult(updated, l), nil
}

// ValidBookingID reports whether id has the shape of a booking_id of
// location l: its prefix, "_b_" and 48 lowercase hex characters.
func ValidBookingID(id string, l business.Location) bool { return validIntentID(id, l.Prefix+"_b_") }

// ValidCancelID reports whether id has the shape of a cancel_id of
// location l: its prefix, "_c_" and 48 lowercase hex characters.
func ValidCancelID(id string, l business.Location) bool { return validIntentID(id, l.Prefix+"_c_") }

// validIntentID checks the shape of a booking_id or cancel_id: the prefix
// and 48 lowercase hex characters.
func validIntentID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	return ok && len(rest) == 48 && isHex(rest, false)
}

func isHex(s string, upper bool) bool {
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
		case !upper && r >= 'a' && r <= 'f':
		case upper && r >= 'A' && r <= 'F':
		default:
			return false
		}
	}
	return true
}
