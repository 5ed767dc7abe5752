package booking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Notice delivery states. The scheduled sweep retries the ones due.
const (
	noticeQueued    = "queued"
	noticeSending   = "sending" // claimed by one attempt until its lease ends
	noticeSent      = "sent"
	noticeUncertain = "uncertain" // the provider's answer was lost; it may have arrived
	noticeFailed    = "failed"    // known not sent; retried later
	noticeExhausted = "exhausted" // failed for the whole retry window; staff must act
)

// notice is one queued email with its delivery history.
type notice struct {
	ID         string        `json:"id"`
	Ref        string        `json:"ref"`
	Email      message.Email `json:"email"`
	State      string        `json:"state"`
	Attempts   int           `json:"attempts"`
	NextAt     time.Time     `json:"next_at,omitzero"`
	LeaseUntil time.Time     `json:"lease_until,omitzero"`
	Due        string        `json:"due,omitempty"` // its key in the due index while it has one
	CreatedAt  time.Time     `json:"created_at"`
}

// Notice timing (§11, §14): a new notice is left to the operation that
// queued it for the grace period; a claim lasts its lease; retries back
// off from 15 minutes to 30, then hourly, and a notice still failing
// after the retry window is exhausted and flagged to staff.
const (
	noticeGrace  = 3 * time.Minute
	noticeLease  = 30 * time.Second
	noticeWindow = 36 * time.Hour
)

// kindNoticeDue is the due index of notices: one entry per notice still
// to deliver, keyed so that a listing reads the earliest due first and
// never the notices already delivered.
const kindNoticeDue = "booking-notice-due" // key: due instant as 20-digit unix nanos "/" notice id

func dueKey(at time.Time, id string) string { return fmt.Sprintf("%020d/%s", at.UnixNano(), id) }

// retryDelay is the wait after the given number of failed attempts.
func retryDelay(attempts int) time.Duration {
	switch attempts {
	case 1:
		return 15 * time.Minute
	case 2:
		return 30 * time.Minute
	}
	return time.Hour
}

// queuedNotice is a stored notice with its version, so it can be attempted
// and its outcome recorded without reading it again.
type queuedNotice struct {
	notice
	version int64
}

// newNotices are notices that cannot exist yet, such as those of a
// reference allocated just now, and the writes that queue them with their
// due entries, for a caller to commit with its own writes. No read is
// needed: a create refuses a notice that exists after all.
func newNotices(now time.Time, ref string, emails []message.Email) ([]queuedNotice, []store.Write) {
	queued := make([]queuedNotice, 0, len(emails))
	writes := make([]store.Write, 0, 2*len(emails))
	for _, e := range emails {
		n := notice{ID: e.ID, Ref: ref, Email: e, State: noticeQueued, CreatedAt: now, Due: dueKey(now.Add(noticeGrace), e.ID)}
		// A create always stores version 1.
		queued = append(queued, queuedNotice{notice: n, version: 1})
		writes = append(writes,
			store.Write{Op: store.OpCreate, Record: record(kindNotice, n.ID, n, 0, now)},
			store.Write{Op: store.OpCreate, Record: record(kindNoticeDue, n.Due, n.ID, 0, now)})
	}
	return queued, writes
}

// outcome sends n once and returns it with the outcome recorded, and the
// writes that record it: the notice's swap at version, and its due entry
// removed, or moved to the next retry.
func (s *Service) outcome(ctx context.Context, now time.Time, q queuedNotice) (notice, []store.Write) {
	n := q.notice
	err := s.send(ctx, n.Email)
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
	n.LeaseUntil, n.NextAt = time.Time{}, time.Time{}
	var writes []store.Write
	if n.Due != "" {
		writes = append(writes, store.Write{Op: store.OpDelete, Record: store.Record{Kind: kindNoticeDue, Key: n.Due, Version: 1}})
		n.Due = ""
	}
	if n.State != noticeSent {
		n.NextAt = now.Add(retryDelay(n.Attempts))
		n.Due = dueKey(n.NextAt, n.ID)
		writes = append(writes, store.Write{Op: store.OpCreate, Record: record(kindNoticeDue, n.Due, n.ID, 0, now)})
	}
	return n, append([]store.Write{{Op: store.OpSwap, Record: record(kindNotice, n.ID, n, q.version, now)}}, writes...)
}

// attemptNotices attempts every queued notice not sent yet once, then
// records all the outcomes in one transaction. It returns which notices
// the provider accepted, by id. The caller is the operation that queued
// them just now, within their grace, so no other attempt runs. Once the
// operation's deadline has passed, the rest stay queued untouched for the
// sweep, and are reported as not sent.
func (s *Service) attemptNotices(ctx context.Context, now time.Time, queued []queuedNotice) map[string]bool {
	sent := map[string]bool{}
	var writes []store.Write
	for _, q := range queued {
		if q.State == noticeSent {
			sent[q.ID] = true
			continue
		}
		if ctx.Err() != nil {
			sent[q.ID] = false
			continue
		}
		n, ws := s.outcome(ctx, now, q)
		sent[n.ID] = n.State == noticeSent
		writes = append(writes, ws...)
	}
	if len(writes) > 0 {
		if _, err := s.st.Apply(ctx, writes); err != nil {
			// The sends happened; an unrecorded outcome means the sweep
			// may send again, with the same Message-ID.
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

// retryNotice is the sweep's work on one due entry: it claims the notice
// with a lease (moving its due entry to the lease's end, so an attempt
// that dies is retried), sends it, and records the outcome; a notice that
// failed for the whole retry window is exhausted instead and its
// reservation flagged. It reports what it did.
func (s *Service) retryNotice(ctx context.Context, now time.Time, due store.Record) (string, error) {
	var id string
	if err := jsonValue(due, &id); err != nil {
		return "", err
	}
	n, version, err := getJSON[notice](ctx, s.st, kindNotice, id)
	dropDue := store.Write{Op: store.OpDelete, Record: store.Record{Kind: kindNoticeDue, Key: due.Key, Version: due.Version}}
	switch {
	case errors.Is(err, store.ErrNotFound):
		_, err := s.st.Apply(ctx, []store.Write{dropDue})
		return "stale", err
	case err != nil:
		return "", err
	case n.Due != due.Key || n.State == noticeSent || n.State == noticeExhausted:
		_, err := s.st.Apply(ctx, []store.Write{dropDue})
		return "stale", err
	}
	if n.Attempts > 0 && now.Sub(n.CreatedAt) >= noticeWindow {
		n.State, n.Due, n.NextAt, n.LeaseUntil = noticeExhausted, "", time.Time{}, time.Time{}
		writes := []store.Write{{Op: store.OpSwap, Record: record(kindNotice, n.ID, n, version, now)}, dropDue}
		r, err := reservation.Get(ctx, s.st, n.Ref)
		if err != nil {
			_, err := s.st.Apply(ctx, writes) // no reservation to flag
			return "exhausted", err
		}
		_, err = s.desk.Flag(ctx, reservation.Change{Read: r, At: now, Also: []reservation.Addition{reservation.Records(nil, writes...)}},
			"notice "+n.ID+" was not delivered within 36 hours")
		return "exhausted", err
	}
	n.State, n.LeaseUntil = noticeSending, now.Add(noticeLease)
	n.Due = dueKey(n.LeaseUntil, n.ID)
	if _, err := s.st.Apply(ctx, []store.Write{
		{Op: store.OpSwap, Record: record(kindNotice, n.ID, n, version, now)},
		dropDue,
		{Op: store.OpCreate, Record: record(kindNoticeDue, n.Due, n.ID, 0, now)},
	}); err != nil {
		return "", err // claimed by another attempt, or the store failed: leave it
	}
	done, writes := s.outcome(ctx, now, queuedNotice{notice: n, version: version + 1})
	if _, err := s.st.Apply(ctx, writes); err != nil {
		return "", fmt.Errorf("record notice outcome: %w", err)
	}
	return done.State, nil
}
