package booking

import (
	"context"
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

// noticesSent reads which of the given notices the provider accepted.
// A notice that cannot be read counts as not sent: the answer then
// promises less, never more.
func (s *Service) noticesSent(ctx context.Context, ids ...string) map[string]bool {
	sent := map[string]bool{}
	for _, id := range ids {
		n, _, err := getJSON[notice](ctx, s.st, kindNotice, id)
		sent[id] = err == nil && n.State == noticeSent
	}
	return sent
}
