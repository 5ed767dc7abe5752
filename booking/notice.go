package booking

import (
	"context"
	"encoding/json"
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

// queueNotices stores the notices under their stable ids in one
// transaction, then attempts each once. It returns which were accepted by
// the provider. A failed notice stays queued for the sweep; it never
// undoes the reservation.
func (s *Service) queueNotices(ctx context.Context, now time.Time, ref string, emails []message.Email) map[string]bool {
	writes, err := s.noticeWrites(ctx, now, ref, emails)
	if err == nil && len(writes) > 0 {
		_, err = s.st.Apply(ctx, writes)
	}
	if err != nil && !errors.Is(err, store.ErrExists) {
		s.log.ErrorContext(ctx, "queue notices", "err", err)
	}
	return s.sendNotices(ctx, now, emails)
}

// noticeWrites are the creates of the notices not queued yet, for a
// caller to commit with its own writes.
func (s *Service) noticeWrites(ctx context.Context, now time.Time, ref string, emails []message.Email) ([]store.Write, error) {
	var writes []store.Write
	for _, e := range emails {
		_, err := s.st.Get(ctx, kindNotice, e.ID)
		if err == nil {
			continue // queued by an earlier attempt of the same operation
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		n := notice{ID: e.ID, Ref: ref, Email: e, State: noticeQueued, CreatedAt: now}
		writes = append(writes, store.Write{Op: store.OpCreate, Record: record(kindNotice, n.ID, n, 0, now)})
	}
	return writes, nil
}

// sendNotices attempts every queued notice once, then records all the
// outcomes in one transaction.
func (s *Service) sendNotices(ctx context.Context, now time.Time, emails []message.Email) map[string]bool {
	sent := map[string]bool{}
	var writes []store.Write
	for _, e := range emails {
		r, err := s.st.Get(ctx, kindNotice, e.ID)
		if err != nil {
			continue // not queued: nothing durable to attempt or record
		}
		var n notice
		if err := json.Unmarshal(r.Value, &n); err != nil {
			continue
		}
		if n.State == noticeSent {
			sent[e.ID] = true
			continue
		}
		err = s.mail.Send(ctx, n.Email)
		n.State = noticeSent
		switch {
		case message.NotSent(err):
			n.State = noticeFailed
		case err != nil:
			n.State = noticeUncertain
		}
		if err != nil {
			s.log.WarnContext(ctx, "notice not delivered", "state", n.State, "err", err)
		}
		n.Attempts++
		n.NextAt = time.Time{}
		if n.State != noticeSent {
			n.NextAt = now.Add(noticeRetry)
		}
		sent[e.ID] = n.State == noticeSent
		writes = append(writes, store.Write{Op: store.OpSwap, Record: record(kindNotice, n.ID, n, r.Version, now)})
	}
	if len(writes) > 0 {
		if _, err := s.st.Apply(ctx, writes); err != nil {
			// The sends happened; an unrecorded outcome means the sweep
			// may send again, which the stable ids let a provider drop.
			s.log.WarnContext(ctx, "record notice outcomes", "err", err)
		}
	}
	return sent
}
