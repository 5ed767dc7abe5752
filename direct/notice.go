package direct

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Notice delivery states. The scheduled sweep retries the ones due.
const (
	noticeQueued    = "queued"
	noticeSending   = "sending" // claimed by one attempt until its lease ends
	noticeSent      = reservation.NoticeSent
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
	// PossiblySent records that an attempt was claimed and never
	// recorded its outcome (the process died while sending), so the
	// email may have gone out already; its retry is flagged to staff.
	PossiblySent bool      `json:"possibly_sent,omitempty"`
	Due          string    `json:"due,omitempty"` // its key in the due index while it has one
	CreatedAt    time.Time `json:"created_at"`
}

// Notice timing (§11, §14): a new notice is claimed by the operation that
// queued it for one lease, and every later attempt claims it likewise; an
// unfinished cancellation's notices are left to it for the grace period; retries back
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
// due entries, for a caller to commit with its own writes and then attempt
// (attemptNotices). They are stored claimed by that attempt, under a
// lease, so a process that dies while sending leaves a claim the sweep
// recognises as possibly sent, never a notice that looks untouched. No
// read is needed: a create refuses a notice that exists after all.
func newNotices(now time.Time, ref string, emails []message.Email) ([]queuedNotice, []store.Write) {
	queued := make([]queuedNotice, 0, len(emails))
	writes := make([]store.Write, 0, 2*len(emails))
	for _, e := range emails {
		lease := now.Add(noticeLease)
		n := notice{ID: e.ID, Ref: ref, Email: e, State: noticeSending, LeaseUntil: lease, CreatedAt: now, Due: dueKey(lease, e.ID)}
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

// claim moves q to sending under a lease before it is sent, with its due
// entry moved to the lease's end: a process that dies while sending leaves
// the claim, and the sweep that finds its lease ended knows the email may
// have gone out. It returns the claimed notice at its new version and the
// writes that claim it.
func claim(now time.Time, q queuedNotice) (queuedNotice, []store.Write) {
	n := q.notice
	var writes []store.Write
	if n.Due != "" {
		writes = append(writes, store.Write{Op: store.OpDelete, Record: store.Record{Kind: kindNoticeDue, Key: n.Due, Version: 1}})
	}
	n.State, n.LeaseUntil = noticeSending, now.Add(noticeLease)
	n.Due = dueKey(n.LeaseUntil, n.ID)
	writes = append([]store.Write{{Op: store.OpSwap, Record: record(kindNotice, n.ID, n, q.version, now)}},
		append(writes, store.Write{Op: store.OpCreate, Record: record(kindNoticeDue, n.Due, n.ID, 0, now)})...)
	return queuedNotice{notice: n, version: q.version + 1}, writes
}

// unclaim gives back a claim whose notice was not attempted, due at once
// for the sweep, with nothing to suspect.
func unclaim(now time.Time, q queuedNotice) []store.Write {
	n := q.notice
	writes := []store.Write{{Op: store.OpDelete, Record: store.Record{Kind: kindNoticeDue, Key: n.Due, Version: 1}}}
	n.State, n.LeaseUntil = noticeQueued, time.Time{}
	n.Due = dueKey(now, n.ID)
	return append([]store.Write{{Op: store.OpSwap, Record: record(kindNotice, n.ID, n, q.version, now)}},
		append(writes, store.Write{Op: store.OpCreate, Record: record(kindNoticeDue, n.Due, n.ID, 0, now)})...)
}

// attemptNotices attempts every notice an operation just queued (claimed
// by newNotices) once, then records all the outcomes in one transaction.
// It returns which notices the provider accepted, by id. Once the
// operation's deadline has passed, the rest are given back unsent for the
// sweep, and reported as not sent.
func (s *Service) attemptNotices(ctx context.Context, now time.Time, queued []queuedNotice) map[string]bool {
	sent := map[string]bool{}
	var writes []store.Write
	var ids []string
	for _, q := range queued {
		if q.State == noticeSent {
			sent[q.ID] = true
			continue
		}
		if ctx.Err() != nil {
			sent[q.ID] = false
			writes = append(writes, unclaim(now, q)...)
			continue
		}
		n, ws := s.outcome(ctx, now, q)
		sent[n.ID] = n.State == noticeSent
		writes = append(writes, ws...)
		ids = append(ids, n.ID)
	}
	s.recordLater(ctx, ids, writes)
	return sent
}

// recordLater records the outcomes after the answer, which they do not
// change: the guest waits for the sends, not for their bookkeeping. The
// notices stay claimed under their lease until the write lands, so a
// process that stops first leaves them to the sweep as possibly sent,
// as a process that stops while sending does. The write keeps the
// request's values and deadline but not its cancellation, which comes
// with the answer.
func (s *Service) recordLater(ctx context.Context, ids []string, writes []store.Write) {
	if len(writes) == 0 {
		return
	}
	var cancel context.CancelFunc
	if end, ok := ctx.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), end)
	} else {
		ctx, cancel = within(context.WithoutCancel(ctx), s.deadlines.Operation)
	}
	s.after.run(ids, func() {
		defer cancel()
		s.recordOutcomes(ctx, writes)
	})
}

// Wait returns once every write left behind by an answer is stored (or
// given up); the store must stay open until then. It is for shutdown,
// once no request runs; Settle waits while they do.
func (s *Service) Wait() { s.after.wg.Wait() }

// Settle returns once the writes left behind by the answers given so far
// are stored (or given up), or ctx ends.
func (s *Service) Settle(ctx context.Context) {
	s.after.wait(ctx, func(string) bool { return true })
}

// laterWrites runs the writes an answer leaves behind and lets a reader
// of the notices they record wait for them.
type laterWrites struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	pending map[string]chan struct{} // by notice id; closed once the write is done
}

func (l *laterWrites) run(ids []string, write func()) {
	done := make(chan struct{})
	l.mu.Lock()
	if l.pending == nil {
		l.pending = map[string]chan struct{}{}
	}
	for _, id := range ids {
		l.pending[id] = done
	}
	l.mu.Unlock()
	l.wg.Go(func() {
		defer func() {
			l.mu.Lock()
			for _, id := range ids {
				if l.pending[id] == done {
					delete(l.pending, id)
				}
			}
			l.mu.Unlock()
			close(done)
		}()
		write()
	})
}

// wait returns once the writes under way for the notices that match are
// done, or ctx ends.
func (l *laterWrites) wait(ctx context.Context, match func(id string) bool) {
	l.mu.Lock()
	var pending []chan struct{}
	for id, done := range l.pending {
		if match(id) {
			pending = append(pending, done)
		}
	}
	l.mu.Unlock()
	for _, done := range pending {
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// recordOutcomes stores the outcomes of sends that happened, within the
// operation's deadline. A store failure is tried again twice: an outcome
// left unrecorded would make the sweep send again. A refused write means the outcome is stored already
// (a commit whose answer was lost) or the lease was taken over; either
// way there is nothing left to record.
func (s *Service) recordOutcomes(ctx context.Context, writes []store.Write) {
	if len(writes) == 0 {
		return
	}
	var err error
	for range 3 {
		_, err = s.st.Apply(ctx, writes)
		if _, refused := errors.AsType[*store.WriteError](err); err == nil || refused || ctx.Err() != nil {
			break
		}
	}
	if _, refused := errors.AsType[*store.WriteError](err); err != nil && !refused {
		// The notices stay claimed; the sweep retries them when the
		// lease ends, as possibly sent, with the same Message-ID.
		s.log.WarnContext(ctx, "record notice outcomes", "err", err)
	}
}

// noticesSent reads which of the given notices the provider accepted,
// once their outcomes are stored if this process is still storing them.
// A notice that cannot be read counts as not sent: the answer then
// promises less, never more.
func (s *Service) noticesSent(ctx context.Context, ids ...string) map[string]bool {
	sent := map[string]bool{}
	for _, id := range ids {
		s.after.wait(ctx, func(other string) bool { return other == id })
		n, _, err := getJSON[notice](ctx, s.st, kindNotice, id)
		sent[id] = err == nil && n.State == noticeSent
	}
	return sent
}

// claimRetry commits the claim of a retry; one that follows an
// interrupted send also flags the reservation, in the same transaction.
func (s *Service) claimRetry(ctx context.Context, now time.Time, n notice, writes []store.Write) error {
	if n.State != noticeSending {
		_, err := s.st.Apply(ctx, writes)
		return err
	}
	r, err := reservation.Get(ctx, s.st, n.Ref)
	if err != nil {
		_, err := s.st.Apply(ctx, writes) // no reservation to flag
		return err
	}
	_, err = s.desk.Flag(ctx, reservation.Change{Read: r, At: now, Also: []reservation.Addition{reservation.Records(nil, writes...)}},
		"notice "+n.ID+" may have been sent already (its sending was interrupted); it was sent again")
	return err
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
	claimed, writes := claim(now, queuedNotice{notice: n, version: version})
	if n.State == noticeSending {
		// A claim whose lease ended without an outcome: the process died
		// while sending, and the email may have arrived. It is sent again
		// with the same Message-ID, and staff see that it may be twice.
		claimed.PossiblySent = true
		writes[0] = store.Write{Op: store.OpSwap, Record: record(kindNotice, n.ID, claimed.notice, version, now)}
	}
	if err := s.claimRetry(ctx, now, n, writes); err != nil {
		return "", err // claimed by another attempt, or the store failed: leave it
	}
	done, writes := s.outcome(ctx, now, claimed)
	s.recordOutcomes(ctx, writes)
	return done.State, nil
}
