package direct

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"frontdesk/quota"
	"frontdesk/reservation"
	"frontdesk/store"
)

// SweepResult counts what one pass of the sweep did.
type SweepResult struct {
	Skipped   bool // another instance runs the pass now
	Batches   int
	Notices   int // notice attempts made
	Exhausted int // notices given up on and flagged to staff
	Purged    int // expired intents, receipts and cancellations removed
	Released  int // holds without a reservation given back
	Repaired  int // ended reservations whose units were still held
	Flagged   int // reservations past departure without a staff decision
	Failed    int // rows whose work failed; they are tried again next pass
}

// The bounds of §14: a pass stops at its work deadline; a batch selects
// up to twelve rows, at most nine of them due notices, and works on them
// three at a time.
const (
	sweepDeadline = 24 * time.Second
	batchRows     = 12
	priorityRows  = 9
	groupSize     = 3
	holdGrace     = 10 * time.Minute
	maxBatches    = 1000 // a backstop; the deadline normally ends a busy pass
)

// The ordinary audit visits these sources in turn, each from where the
// last batch left it, so old rows never starve new ones of attention.
var auditSources = []string{"intents", "cancellations", "lookups", "admissions", "reservations", "holds", "old-admissions", "old-lookups"}

// kindSweep keeps the audit's cursors between passes.
const kindSweep = "booking-sweep" // key: "cursors"

type sweepCursors struct {
	Source int               `json:"source"`
	After  map[string]string `json:"after"`
}

// Sweep runs one pass of the scheduled work of §14: due notices first,
// then an audit of intents, cancellations, reservations and holds that
// purges what expired and repairs what an interruption left. On an
// engine shared by several instances one of them runs a pass at a time.
func (s *Service) Sweep(ctx context.Context) (SweepResult, error) {
	var res SweepResult
	// The deadline covers taking the lock too: on a hung engine that wait
	// would otherwise have no end.
	ctx, cancel := context.WithTimeout(ctx, sweepDeadline)
	defer cancel()
	if s.locker != nil {
		release, got, err := s.locker.TryLock(ctx, "booking-sweep")
		if err != nil {
			return res, err
		}
		if !got {
			res.Skipped = true
			return res, nil
		}
		defer release()
	}
	now := s.clock.Now()
	wrapped := 0
	for res.Batches < maxBatches && ctx.Err() == nil {
		priority, round, err := s.sweepBatch(ctx, now, &res)
		res.Batches++
		if err != nil {
			return res, err
		}
		if round {
			wrapped++
		}
		if priority == 0 && wrapped >= len(auditSources) {
			break // nothing due, and every source audited once
		}
	}
	// The re-key pass after a rotation goes on from its stored cursor.
	if _, err := s.rekey(ctx, now, s.rekeySteps.pages, s.rekeySteps.rows); err != nil {
		s.log.WarnContext(ctx, "re-key pass", "error", err)
	}
	if res.Purged > 0 && s.scrubber != nil {
		if err := s.scrubber.Scrub(ctx); err != nil {
			s.log.WarnContext(ctx, "scrub purged data", "error", err)
		}
	}
	s.log.InfoContext(ctx, "booking sweep", "batches", res.Batches, "notices", res.Notices, "exhausted", res.Exhausted,
		"purged", res.Purged, "released", res.Released, "repaired", res.Repaired, "flagged", res.Flagged, "failed", res.Failed)
	return res, nil
}

// sweepJob is the work on one selected row. It returns the counter it
// adds to.
type sweepJob func(ctx context.Context) (counter *int, err error)

// sweepBatch selects up to nine due notices and fills the batch with
// rows of the current audit source, works on them in groups of three,
// and moves the audit's cursor on. round reports that the source was
// read to its end.
func (s *Service) sweepBatch(ctx context.Context, now time.Time, res *SweepResult) (priority int, round bool, err error) {
	due, err := s.st.List(ctx, kindNoticeDue, "", "", priorityRows)
	if err != nil {
		return 0, false, err
	}
	var jobs []sweepJob
	for _, d := range due {
		if at, err := strconv.ParseInt(strings.SplitN(d.Key, "/", 2)[0], 10, 64); err != nil || at > now.UnixNano() {
			break // the index is in due order: the rest are later
		}
		jobs = append(jobs, func(ctx context.Context) (*int, error) {
			what, err := s.retryNotice(ctx, now, d)
			switch what {
			case "exhausted":
				return &res.Exhausted, err
			case "stale":
				return nil, err
			}
			return &res.Notices, err
		})
	}
	priority = len(jobs)

	cur, version, err := getJSON[sweepCursors](ctx, s.st, kindSweep, "cursors")
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return priority, false, err
	}
	if cur.After == nil {
		cur.After = map[string]string{}
	}
	source := auditSources[cur.Source%len(auditSources)]
	room := batchRows - len(jobs)
	audit, next, err := s.auditRows(ctx, now, source, cur.After[source], room, res)
	if err != nil {
		return priority, false, err
	}
	jobs = append(jobs, audit...)
	round = len(audit) < room
	if round {
		cur.After[source] = ""
		cur.Source = (cur.Source + 1) % len(auditSources)
	} else {
		cur.After[source] = next
	}

	var mu sync.Mutex
	for i := 0; i < len(jobs); i += groupSize {
		var wg sync.WaitGroup
		for _, job := range jobs[i:min(i+groupSize, len(jobs))] {
			wg.Go(func() {
				counter, err := job(ctx)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					// One row's failure leaves the others' work standing.
					res.Failed++
					s.log.WarnContext(ctx, "sweep row", "err", err)
					return
				}
				if counter != nil {
					*counter++
				}
			})
		}
		wg.Wait()
	}
	// Another sweeper moving the cursors meanwhile wins; this batch's work
	// is done either way.
	if _, err := s.st.Apply(ctx, []store.Write{upsert(kindSweep, "cursors", cur, version, now)}); err != nil {
		if _, refused := errors.AsType[*store.WriteError](err); !refused {
			return priority, round, err
		}
	}
	return priority, round, nil
}

// auditRows reads up to n rows of one audit source after the cursor and
// returns the work on each that needs any, and the cursor after them.
func (s *Service) auditRows(ctx context.Context, now time.Time, source, after string, n int, res *SweepResult) ([]sweepJob, string, error) {
	if n <= 0 {
		return nil, after, nil
	}
	var jobs []sweepJob
	skip := func(context.Context) (*int, error) { return nil, nil }
	if audit, ok := s.recordAudits()[source]; ok {
		recs, err := s.st.List(ctx, audit.kind, "", after, n)
		if err != nil || len(recs) == 0 {
			return nil, "", err
		}
		for _, r := range recs {
			jobs = append(jobs, func(ctx context.Context) (*int, error) { return audit.fn(ctx, now, r, res) })
		}
		return jobs, recs[len(recs)-1].Key, nil
	}
	if audit, ok := counterAudits()[source]; ok {
		names, err := s.st.CounterNames(ctx, audit.prefix, after, n)
		if err != nil || len(names) == 0 {
			return nil, "", err
		}
		for _, name := range names {
			jobs = append(jobs, func(ctx context.Context) (*int, error) {
				return s.auditCounter(ctx, now, name, audit.window(name), res)
			})
		}
		return jobs, names[len(names)-1], nil
	}
	switch source {
	case "reservations":
		var cursor store.ReservationCursor
		cursor.FirstSlot, cursor.Reference, _ = strings.Cut(after, "\x00")
		rows, err := reservation.List(ctx, s.st, store.ReservationFilter{After: cursor, Limit: n})
		if err != nil || len(rows) == 0 {
			return nil, "", err
		}
		for _, r := range rows {
			jobs = append(jobs, func(ctx context.Context) (*int, error) { return s.auditReservation(ctx, now, r, res) })
		}
		last := rows[len(rows)-1]
		return jobs, last.FirstSlot() + "\x00" + last.Reference, nil
	case "holds":
		holds, err := s.st.Holds(ctx, after, n)
		if err != nil || len(holds) == 0 {
			return nil, "", err
		}
		for _, h := range holds {
			if now.Sub(h.At) < holdGrace {
				jobs = append(jobs, skip) // the operation that holds it may still be at work
				continue
			}
			jobs = append(jobs, func(ctx context.Context) (*int, error) { return s.auditHold(ctx, now, h, res) })
		}
		return jobs, holds[len(holds)-1].ID, nil
	}
	return nil, "", nil
}

// recordAudit is the audit of one kind of record, row by row.
type recordAudit struct {
	kind string
	fn   func(ctx context.Context, now time.Time, r store.Record, res *SweepResult) (*int, error)
}

// recordAudits are the audit sources that are records, by source name.
func (s *Service) recordAudits() map[string]recordAudit {
	return map[string]recordAudit{
		"intents":       {kindIntent, s.auditIntent},
		"cancellations": {kindCancel, s.auditCancellation},
		// The admission places and lookup tries kept as records before
		// the ceilings became counters go once their window has passed.
		"old-admissions": {kindAdmission, s.auditOldRecord(24 * time.Hour)},
		"old-lookups":    {kindLookups, s.auditOldRecord(time.Hour)},
	}
}

// auditOldRecord removes a record last written more than window ago.
func (s *Service) auditOldRecord(window time.Duration) func(ctx context.Context, now time.Time, r store.Record, res *SweepResult) (*int, error) {
	return func(ctx context.Context, now time.Time, r store.Record, res *SweepResult) (*int, error) {
		if now.Sub(r.UpdatedAt) <= window {
			return nil, nil
		}
		if err := s.st.Delete(ctx, r.Kind, r.Key, r.Version); err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		return &res.Purged, nil
	}
}

// counterAudits are the audit sources that are counters, by source name:
// the prefix of their names and the window each counts in.
func counterAudits() map[string]counterAudit {
	return map[string]counterAudit{
		"lookups": {kindLookups + "/", func(string) quota.Window { return lookupTries }},
		"admissions": {kindAdmission + "/", func(name string) quota.Window {
			if strings.HasSuffix(name, "/day") {
				return quota.Window{Span: 24 * time.Hour}
			}
			return quota.Window{Span: time.Hour}
		}},
	}
}

// counterAudit is the audit of one kind of counter.
type counterAudit struct {
	prefix string
	window func(name string) quota.Window
}

// auditIntent purges an unproved intent past its expiry, so the guest's
// name, email and phone do not outlive it, and a receipt past its keep.
func (s *Service) auditIntent(ctx context.Context, now time.Time, r store.Record, res *SweepResult) (*int, error) {
	var in intent
	if err := jsonValue(r, &in); err != nil {
		return nil, err
	}
	expired := (in.State == stateSending || in.State == stateOpen) && !now.Before(in.Expires)
	stale := in.State == stateDone && !in.KeepUntil.IsZero() && now.After(in.KeepUntil)
	if !expired && !stale {
		return nil, nil
	}
	if err := s.st.Delete(ctx, kindIntent, in.ID, r.Version); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	s.dropFingerprint(ctx, in.Fingerprint, in.ID)
	return &res.Purged, nil
}

// auditCancellation purges an unproved cancellation past its expiry, and
// finishes a proved one that an interrupted or timed-out second step left
// committing: the guest's decision is durable, so the sweep carries it
// out as a retry with the same code would. It waits the notice grace
// first, so it does not race the step still running.
func (s *Service) auditCancellation(ctx context.Context, now time.Time, r store.Record, res *SweepResult) (*int, error) {
	var cn cancellation
	if err := jsonValue(r, &cn); err != nil {
		return nil, err
	}
	if cn.State == stateCommitting && !now.Before(r.UpdatedAt.Add(noticeGrace)) {
		l, ok := s.location(cn.Location)
		if !ok {
			return nil, nil
		}
		if _, err := s.cancelCommit(ctx, now, cn, l, route{phone: l.Phone}); err != nil {
			return nil, err
		}
		return &res.Repaired, nil
	}
	if cn.State != stateOpen || now.Before(cn.Expires) {
		return nil, nil
	}
	if err := s.st.Delete(ctx, kindCancel, cn.ID, r.Version); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return &res.Purged, nil
}

// auditCounter forgets a counter in which nothing counts any more, so
// the counters of references and mailboxes nobody asks about do not pile
// up.
func (s *Service) auditCounter(ctx context.Context, now time.Time, name string, w quota.Window, res *SweepResult) (*int, error) {
	if n, err := w.Used(ctx, s.st, name, now); err != nil || n > 0 {
		return nil, err
	}
	if _, err := s.st.Apply(ctx, []store.Write{w.Forget(name, now)}); err != nil {
		return nil, err
	}
	return &res.Purged, nil
}

// auditReservation repairs an ended reservation that still holds units,
// and flags a reservation whose departure passed without a staff
// decision: it stops counting as pending and asks staff to look.
func (s *Service) auditReservation(ctx context.Context, now time.Time, r reservation.Reservation, res *SweepResult) (*int, error) {
	switch {
	case r.Held && !r.State.HoldsUnits():
		if _, err := s.desk.Repair(ctx, reservation.Change{Read: r, By: "sweep", At: now}); err != nil {
			return nil, err
		}
		return &res.Repaired, nil
	case r.State.Pending() && r.Attention == "":
		l, ok := s.location(r.Location)
		if !ok {
			return nil, nil
		}
		_, checkout, err := r.Stay()
		if err != nil || now.Before(pendingUntil(l, checkout)) {
			return nil, nil
		}
		if _, err := s.desk.FlagOverdue(ctx, reservation.Change{Read: r, At: now}, "departure passed without a staff decision"); err != nil {
			return nil, err
		}
		return &res.Flagged, nil
	}
	return nil, nil
}

// auditHold gives back a hold that no reservation stands for, or one
// whose reservation no longer holds units, once past its grace.
func (s *Service) auditHold(ctx context.Context, now time.Time, h store.Hold, res *SweepResult) (*int, error) {
	r, err := reservation.Get(ctx, s.st, h.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	case r.Held:
		return nil, nil
	}
	if err := s.desk.ReleaseOrphan(ctx, h.ID, now); err != nil {
		return nil, err
	}
	return &res.Released, nil
}

// PrintSweep runs one sweep pass and prints its counts, as `frontdesk
// sweep` does.
func (s *Service) PrintSweep(ctx context.Context, out io.Writer) error {
	res, err := s.Sweep(ctx)
	if res.Skipped {
		fmt.Fprintln(out, "sweep: booking pass skipped (another instance is running one)")
		return err
	}
	fmt.Fprintf(out, "sweep: booking notices=%d exhausted=%d purged=%d released=%d repaired=%d flagged=%d failed=%d\n",
		res.Notices, res.Exhausted, res.Purged, res.Released, res.Repaired, res.Flagged, res.Failed)
	return err
}
