package booking

import (
	"context"
	"errors"
	"time"

	"frontdesk/message"
	"frontdesk/store"
)

// Notice delivery states. The scheduled sweep retries the ones due.
const (
	noticeQueued    = "queued"
	noticeSent      = "sent"
	noticeUncertain = "uncertain" // the provider's answer was lost; it may have arrived
	noticeFailed    = "failed"    // known not sent; retried later
)

// notice is one queued email with its delivery history.
type notice struct {
	ID        string        `json:"id"`
	Ref       string        `json:"ref"`
	Email     message.Email `json:"email"`
	State     string        `json:"state"`
	Attempts  int           `json:"attempts"`
	NextAt    time.Time     `json:"next_at,omitzero"`
	CreatedAt time.Time     `json:"created_at"`
}

// noticeRetry is the first retry delay; later retries back off (§11).
const noticeRetry = 15 * time.Minute

// queueNotices stores the notices under their stable ids, then attempts
// each once. It returns which were accepted by the provider. A failed
// notice stays queued for the sweep; it never undoes the reservation.
func (s *Service) queueNotices(ctx context.Context, now time.Time, ref string, emails []message.Email) map[string]bool {
	sent := map[string]bool{}
	for _, e := range emails {
		n := notice{ID: e.ID, Ref: ref, Email: e, State: noticeQueued, CreatedAt: now}
		if _, err := s.st.Create(ctx, record(kindNotice, n.ID, n, 0, now)); err != nil {
			if errors.Is(err, store.ErrExists) {
				// Queued by an earlier attempt of the same operation.
				cur, _, gerr := getJSON[notice](ctx, s.st, kindNotice, n.ID)
				sent[e.ID] = gerr == nil && cur.State == noticeSent
				continue
			}
			s.log.ErrorContext(ctx, "queue notice", "err", err)
		}
		sent[e.ID] = s.attemptNotice(ctx, now, n.ID)
	}
	return sent
}

// attemptNotice sends a queued notice once and records the outcome.
func (s *Service) attemptNotice(ctx context.Context, now time.Time, id string) bool {
	n, _, err := getJSON[notice](ctx, s.st, kindNotice, id)
	if err != nil {
		return false
	}
	if n.State == noticeSent {
		return true
	}
	err = s.mail.Send(ctx, n.Email)
	state := noticeSent
	switch {
	case message.NotSent(err):
		state = noticeFailed
	case err != nil:
		state = noticeUncertain
	}
	if err != nil {
		s.log.WarnContext(ctx, "notice not delivered", "state", state, "err", err)
	}
	_, uerr := update(ctx, s.st, kindNotice, id, now, func(v *notice) error {
		v.State = state
		v.Attempts++
		v.NextAt = time.Time{}
		if state != noticeSent {
			v.NextAt = now.Add(noticeRetry)
		}
		return nil
	})
	if uerr != nil {
		s.log.WarnContext(ctx, "record notice outcome", "err", uerr)
	}
	return state == noticeSent
}
