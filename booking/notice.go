package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// queuedNotice is a stored notice with its version, so it can be attempted
// and its outcome recorded without reading it again.
type queuedNotice struct {
	notice
	version int64
}

// queueNotices stores the notices under their stable ids in one
// transaction, then attempts each once. It returns which were accepted by
// the provider. A failed notice stays queued for the sweep; it never
// undoes the reservation.
func (s *Service) queueNotices(ctx context.Context, now time.Time, ref string, emails []message.Email) map[string]bool {
	queued, created, writes, err := s.noticeQueue(ctx, now, ref, emails)
	if err == nil && len(writes) > 0 {
		if _, err = s.st.Apply(ctx, writes); err == nil {
			queued = append(queued, created...)
		}
	}
	if err != nil && !errors.Is(err, store.ErrExists) {
		s.log.ErrorContext(ctx, "queue notices", "err", err)
	}
	// Notices queued by someone else meanwhile are theirs to attempt.
	return s.attemptNotices(ctx, now, queued)
}

// noticeQueue reads which notices an earlier attempt of the same
// operation queued already, and returns them with the notices still to
// queue and the creates that queue those.
func (s *Service) noticeQueue(ctx context.Context, now time.Time, ref string, emails []message.Email) (queued, created []queuedNotice, writes []store.Write, err error) {
	var missing []message.Email
	for _, e := range emails {
		r, err := s.st.Get(ctx, kindNotice, e.ID)
		if errors.Is(err, store.ErrNotFound) {
			missing = append(missing, e)
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		var n notice
		if err := json.Unmarshal(r.Value, &n); err != nil {
			return nil, nil, nil, fmt.Errorf("decode notice: %w", err)
		}
		queued = append(queued, queuedNotice{notice: n, version: r.Version})
	}
	created, writes = newNotices(now, ref, missing)
	return queued, created, writes, nil
}

// newNotices are notices that cannot exist yet, such as those of a
// reference allocated just now, and the creates that queue them, for a
// caller to commit with its own writes. No read is needed: a create
// refuses a notice that exists after all.
func newNotices(now time.Time, ref string, emails []message.Email) ([]queuedNotice, []store.Write) {
	queued := make([]queuedNotice, 0, len(emails))
	writes := make([]store.Write, 0, len(emails))
	for _, e := range emails {
		n := notice{ID: e.ID, Ref: ref, Email: e, State: noticeQueued, CreatedAt: now}
		// A create always stores version 1.
		queued = append(queued, queuedNotice{notice: n, version: 1})
		writes = append(writes, store.Write{Op: store.OpCreate, Record: record(kindNotice, n.ID, n, 0, now)})
	}
	return queued, writes
}

// attemptNotices attempts every queued notice not sent yet once, then
// records all the outcomes in one transaction. It returns which notices
// the provider accepted, by id.
func (s *Service) attemptNotices(ctx context.Context, now time.Time, queued []queuedNotice) map[string]bool {
	sent := map[string]bool{}
	var writes []store.Write
	for _, q := range queued {
		n := q.notice
		if n.State == noticeSent {
			sent[n.ID] = true
			continue
		}
		err := s.mail.Send(ctx, n.Email)
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
		sent[n.ID] = n.State == noticeSent
		writes = append(writes, store.Write{Op: store.OpSwap, Record: record(kindNotice, n.ID, n, q.version, now)})
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
