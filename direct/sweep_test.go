package direct

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/inventory"
	"frontdesk/inventory/inventorytest"
	"frontdesk/reservation"
	"frontdesk/store"
)

func (w *world) sweep() SweepResult {
	w.t.Helper()
	w.svc.Wait()
	res, err := w.svc.Sweep(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	return res
}

func (w *world) notice(id string) notice {
	w.t.Helper()
	w.svc.Wait()
	n, _, err := getJSON[notice](context.Background(), w.st, kindNotice, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

// TestSweepRetriesNotices: a failed notice is retried at 15 minutes, then
// 30, then hourly; after 36 hours of failures it is exhausted and its
// reservation flagged; a retry that succeeds leaves nothing due.
func TestSweepRetriesNotices(t *testing.T) {
	w := newWorld(t)
	ref := w.book(stayArgs())
	// The guest's notice was sent; queue a fresh one that fails.
	w.mail.failNext(fmt.Errorf("mailbox full: %w", errNotSentForTest))
	r, _ := w.svc.getBooked(context.Background(), ref)
	queued, writes := newNotices(w.clock.Now(), ref, w.svc.cancellationEmails(r, w.cfg.Locations[0], w.clock.Now())[:1])
	if _, err := w.st.Apply(context.Background(), writes); err != nil {
		t.Fatal(err)
	}
	id := queued[0].ID
	w.svc.attemptNotices(context.Background(), w.clock.Now(), queued)
	if n := w.notice(id); n.State != noticeFailed || n.Attempts != 1 {
		t.Fatalf("after the first attempt: %+v", n)
	}
	if res := w.sweep(); res.Notices != 0 {
		t.Fatalf("a sweep before the retry is due attempted %d", res.Notices)
	}
	var gaps []time.Duration
	last := w.clock.Now()
	for w.notice(id).State != noticeExhausted {
		w.mail.failNext(fmt.Errorf("mailbox full: %w", errNotSentForTest))
		w.clock.Advance(5 * time.Minute)
		if res := w.sweep(); res.Notices == 1 {
			gaps = append(gaps, w.clock.Now().Sub(last))
			last = w.clock.Now()
		}
		if w.clock.Now().Sub(testNow) > 40*time.Hour {
			t.Fatal("never exhausted")
		}
	}
	want := []time.Duration{15 * time.Minute, 30 * time.Minute, time.Hour, time.Hour}
	for i, g := range want {
		if gaps[i] != g {
			t.Fatalf("retry gaps = %v, want %v then hourly", gaps, want)
		}
	}
	res, _ := w.svc.getBooked(context.Background(), ref)
	if !strings.Contains(res.Attention, id) {
		t.Fatalf("attention = %q, want the exhausted notice named", res.Attention)
	}
	if due, _ := w.st.List(context.Background(), kindNoticeDue, "", "", 10); len(due) != 0 {
		t.Fatalf("%d due entries left", len(due))
	}
}

// TestSweepPurgesExpiredIntents: with no later guest traffic, the sweep
// removes an intent once it expired, and with it the guest's name, email
// and phone.
func TestSweepPurgesExpiredIntents(t *testing.T) {
	w := newWorld(t)
	if _, err := w.start(context.Background(), web, stayArgs()); err != nil {
		t.Fatal(refusalText(err))
	}
	if res := w.sweep(); res.Purged != 0 {
		t.Fatal("purged a live intent")
	}
	w.clock.Advance(codeLifetime)
	if res := w.sweep(); res.Purged != 1 {
		t.Fatalf("purged %d, want the expired intent", res.Purged)
	}
	recs, _ := w.st.List(context.Background(), kindIntent, "", "", 10)
	fps, _ := w.st.List(context.Background(), kindFingerprint, "", "", 10)
	if len(recs)+len(fps) != 0 {
		t.Fatalf("%d intents and %d fingerprints left", len(recs), len(fps))
	}
}

// TestSweepReleasesHoldsWithoutReservation: a hold no reservation stands
// for is left alone for ten minutes, then given back.
func TestSweepReleasesHoldsWithoutReservation(t *testing.T) {
	w := newWorld(t)
	l := w.cfg.Locations[0]
	unit, _ := l.Unit("double")
	if err := (inventorytest.Holder{Index: w.st}).Hold(context.Background(), "RIV-00000000000000AA", l, unit, inventory.Nights(mustDate("2026-12-30"), 3), testNow); err != nil {
		t.Fatal(err)
	}
	held := w.book(stayArgs())
	w.clock.Advance(9 * time.Minute)
	if res := w.sweep(); res.Released != 0 || freeDoubles(t, w) != 0 {
		t.Fatal("released a hold within its grace")
	}
	w.clock.Advance(time.Minute)
	if res := w.sweep(); res.Released != 1 || freeDoubles(t, w) != 1 || !reservationHeld(t, w, held) {
		t.Fatalf("released %d with %d free; want the orphan released and the reservation kept", res.Released, freeDoubles(t, w))
	}
}

// TestSweepFlagsUndecidedPastDeparture: a reservation nobody decided on
// stops counting as pending once its departure day ended, and asks staff
// to look.
func TestSweepFlagsUndecidedPastDeparture(t *testing.T) {
	w := newWorld(t)
	ref := w.book(stayArgs("checkin", "2026-12-01", "checkout", "2026-12-03"))
	if res := w.sweep(); res.Flagged != 0 {
		t.Fatal("flagged before departure")
	}
	w.clock.Advance(4 * 24 * time.Hour)
	if res := w.sweep(); res.Flagged != 1 {
		t.Fatalf("flagged %d, want 1", res.Flagged)
	}
	r, _ := w.svc.getBooked(context.Background(), ref)
	if r.State != reservation.Reserved || r.Attention == "" || len(r.Claims) != 0 {
		t.Fatalf("after the sweep: %+v", r.Reservation)
	}
	if n := livePlaces(t, w, scopeGroup); n != 0 {
		t.Fatalf("%d group places live", n)
	}
	if res := w.sweep(); res.Flagged != 0 {
		t.Fatal("flagged twice")
	}
}

// TestSweepRepairsEndedReservationsStillHeld: a cancelled reservation
// whose units are still held (as data from before one-transaction
// cancellation could be) gets them released.
func TestSweepRepairsEndedReservationsStillHeld(t *testing.T) {
	w := newWorld(t)
	ref := w.book(stayArgs())
	r, _ := w.svc.getBooked(context.Background(), ref)
	r.State = reservation.Cancelled // Held stays true, as an interrupted release left it
	if _, err := w.st.Apply(context.Background(), []store.Write{reservation.Save(r.Reservation, testNow)}); err != nil {
		t.Fatal(err)
	}
	if res := w.sweep(); res.Repaired != 1 || freeDoubles(t, w) != 2 {
		t.Fatalf("repaired %d with %d free", res.Repaired, freeDoubles(t, w))
	}
	r, _ = w.svc.getBooked(context.Background(), ref)
	if r.Held {
		t.Fatal("still marked held")
	}
}

// TestSweepCursorFairness: more rows than one batch. Each batch takes at
// most twelve rows, due notices first; the audit goes on from its cursor,
// so every expired intent is reached within a bounded number of batches
// and a due notice is never starved by them.
func TestSweepCursorFairness(t *testing.T) {
	w := newWorld(t, raiseMailLimits)
	ctx := context.Background()
	for i := range 30 {
		if _, err := w.start(ctx, web, stayArgs("email", fmt.Sprintf("g%d@example.com", i))); err != nil {
			t.Fatal(refusalText(err))
		}
	}
	w.clock.Advance(codeLifetime)
	ref := w.book(stayArgs("email", "late@example.com"))
	w.mail.failNext(fmt.Errorf("down: %w", errNotSentForTest))
	r, _ := w.svc.getBooked(ctx, ref)
	queued, writes := newNotices(w.clock.Now(), ref, w.svc.cancellationEmails(r, w.cfg.Locations[0], w.clock.Now())[:1])
	if _, err := w.st.Apply(ctx, writes); err != nil {
		t.Fatal(err)
	}
	w.svc.attemptNotices(ctx, w.clock.Now(), queued)
	w.svc.Wait()
	w.clock.Advance(15 * time.Minute)
	var res SweepResult
	priority, _, err := w.svc.sweepBatch(ctx, w.clock.Now(), &res)
	if err != nil || priority != 1 || res.Notices != 1 {
		t.Fatalf("first batch: priority %d, notices %d, %v; want the due notice first", priority, res.Notices, err)
	}
	if res.Purged != batchRows-1 {
		t.Fatalf("first batch purged %d, want %d", res.Purged, batchRows-1)
	}
	for batch := 2; batch <= 3; batch++ {
		if _, _, err := w.svc.sweepBatch(ctx, w.clock.Now(), &res); err != nil {
			t.Fatal(err)
		}
		if want := min(30, batchRows-1+batchRows*(batch-1)); res.Purged != want {
			t.Fatalf("after batch %d purged %d, want %d", batch, res.Purged, want)
		}
	}
	left, _ := w.st.List(ctx, kindIntent, "", "", 100)
	for _, rec := range left {
		var in intent
		jsonValue(rec, &in)
		if in.State != stateDone {
			t.Fatalf("intent %s in state %s left after three batches", in.ID, in.State)
		}
	}
}

func raiseMailLimits(c *config.Config) {
	c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 1000, 1000, 1000
}

// crashStore stops an operation at its nth Apply, as a process killed
// there would: before the transaction commits, or after it committed but
// before its caller learned so.
type crashStore struct {
	store.Store
	mu     sync.Mutex
	n      int
	after  bool
	calls  int
	active bool
}

var errCrash = errors.New("crashed")

func (c *crashStore) Apply(ctx context.Context, ws []store.Write) ([]store.Record, error) {
	if mailboxOnly(ws) {
		// The development mailbox stores its mail in the background,
		// whenever the scheduler lets it: not one of the operation's
		// transactions, which the crash counts.
		return c.Store.Apply(ctx, ws)
	}
	c.mu.Lock()
	crash := false
	if c.active {
		c.calls++
		crash = c.calls == c.n
	}
	after := c.after
	c.mu.Unlock()
	if !crash {
		return c.Store.Apply(ctx, ws)
	}
	if after {
		c.Store.Apply(ctx, ws)
	}
	return nil, errCrash
}

// mailboxOnly reports whether ws are only the development mailbox's.
func mailboxOnly(ws []store.Write) bool {
	for _, w := range ws {
		if w.Op != store.OpCreate || w.Record.Kind != "devmail" {
			return false
		}
	}
	return len(ws) > 0
}

func (c *crashStore) arm(n int, after bool) {
	c.mu.Lock()
	c.n, c.after, c.calls, c.active = n, after, 0, true
	c.mu.Unlock()
}

func (c *crashStore) disarm() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.active = false
	return c.calls
}

// checkConsistent asserts what a sweep must leave whatever was
// interrupted: every reservation holds units exactly when its state does
// and the index holds nothing else; every notice is sent, exhausted or
// due; no unproved intent outlives its expiry.
func checkConsistent(t *testing.T, w *world, label string) {
	t.Helper()
	ctx := context.Background()
	rows, err := reservation.List(ctx, w.st, store.ReservationFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, r := range rows {
		if r.Held != r.State.HoldsUnits() {
			t.Fatalf("%s: %s is %s with held %v", label, r.Reference, r.State, r.Held)
		}
		if r.Held {
			held++
		}
	}
	if got := 2 - freeDoubles(t, w); got != held {
		t.Fatalf("%s: the index holds %d doubles, reservations hold %d", label, got, held)
	}
	notices, _ := w.st.List(ctx, kindNotice, "", "", 1000)
	due, _ := w.st.List(ctx, kindNoticeDue, "", "", 1000)
	dueFor := map[string]bool{}
	for _, d := range due {
		var id string
		jsonValue(d, &id)
		dueFor[id] = true
	}
	for _, rec := range notices {
		var n notice
		jsonValue(rec, &n)
		if n.State != noticeSent && n.State != noticeExhausted && !dueFor[n.ID] {
			t.Fatalf("%s: notice %s is %s with nothing due", label, n.ID, n.State)
		}
	}
	intents, _ := w.st.List(ctx, kindIntent, "", "", 1000)
	for _, rec := range intents {
		var in intent
		jsonValue(rec, &in)
		if in.State != stateDone && !w.clock.Now().Before(in.Expires) {
			t.Fatalf("%s: intent %s still %s after expiry", label, in.ID, in.State)
		}
	}
}

// TestInterruptionsThenSweep interrupts a booking, a cancellation and a
// notice retry at every transaction, before and after it commits, then
// runs the sweep: the guest's retry finishes the operation with one
// reservation, and the sweep leaves the store consistent (§18).
func TestInterruptionsThenSweep(t *testing.T) {
	ops := []struct {
		name string
		run  func(w *world, cs *crashStore)
	}{
		{"confirm", func(w *world, cs *crashStore) {
			res, err := w.start(context.Background(), web, stayArgs())
			if err != nil {
				w.t.Fatal(refusalText(err))
			}
			code := w.lastCode("ada@example.com")
			cs.armNext()
			_, err = w.confirm(context.Background(), web, args("booking_id", res.BookingID, "code", code))
			cs.disarm()
			if err != nil {
				conf, err := w.confirm(context.Background(), web, args("booking_id", res.BookingID, "code", code))
				if err != nil || conf.Status != "reserved" {
					w.t.Fatalf("retry after the interruption = %s", refusalText(err))
				}
			}
		}},
		{"cancel", func(w *world, cs *crashStore) {
			_, cancelID, code := w.openCancellation()
			cs.armNext()
			_, err := w.cancel(context.Background(), web, args("cancel_id", cancelID, "code", code))
			cs.disarm()
			done, err2 := w.cancel(context.Background(), web, args("cancel_id", cancelID, "code", code))
			if err2 != nil || done.Status != "cancelled" {
				w.t.Fatalf("cancel retry = %s (first: %s)", refusalText(err2), refusalText(err))
			}
		}},
		{"notice retry", func(w *world, cs *crashStore) {
			res, err := w.start(context.Background(), web, stayArgs())
			if err != nil {
				w.t.Fatal(refusalText(err))
			}
			code := w.lastCode("ada@example.com")
			w.mail.failNext(fmt.Errorf("down: %w", errNotSentForTest))
			if _, err := w.confirm(context.Background(), web, args("booking_id", res.BookingID, "code", code)); err != nil {
				w.t.Fatal(refusalText(err))
			}
			w.clock.Advance(15 * time.Minute)
			cs.armNext()
			w.svc.Sweep(context.Background())
			cs.disarm()
		}},
	}
	for _, op := range ops {
		for _, after := range []bool{false, true} {
			for n := 1; ; n++ {
				label := fmt.Sprintf("%s, transaction %d, after commit %v", op.name, n, after)
				base := newWorld(t)
				cs := &crashStore{Store: base.st, n: n, after: after}
				w := newWorldOn(t, base.cfg, cs)
				op.run(w, cs)
				calls := cs.calls
				w.clock.Advance(time.Hour) // past every grace, lease and code expiry
				w.sweep()
				checkConsistent(t, w, label)
				if calls < n {
					break // the operation made fewer transactions than n
				}
			}
		}
	}
}

func (c *crashStore) armNext() { c.arm(c.n, c.after) }

// TestSweepPurgesOldAdmissions: a day after the last code, the sweep
// removes the places that counted it.
func TestSweepPurgesOldAdmissions(t *testing.T) {
	w := newWorld(t)
	if _, err := w.start(context.Background(), web, stayArgs()); err != nil {
		t.Fatal(refusalText(err))
	}
	w.clock.Advance(24 * time.Hour)
	w.sweep()
	if left, _ := w.st.List(context.Background(), kindAdmission, "", "", 100); len(left) != 0 {
		t.Fatalf("%d admission places left a day later", len(left))
	}
}

// TestSentCodeUsableAfterCrash: a start that stops after its code email
// was sent, before it opened its intent, leaves a code that still books,
// and an identical start a little later answers with the same intent
// and no second mail.
func TestSentCodeUsableAfterCrash(t *testing.T) {
	for _, then := range []string{"confirm", "identical start"} {
		t.Run(then, func(t *testing.T) {
			base := newWorld(t)
			cs := &crashStore{Store: base.st}
			w := newWorldOn(t, base.cfg, cs)
			ctx := context.Background()
			cs.arm(2, false) // the transaction that opens the sent intent
			_, err := w.start(ctx, web, stayArgs())
			cs.disarm()
			if got := refusalText(err); !strings.HasPrefix(got, "This booking cannot be checked right now.") || !strings.Contains(got, "+1 303 555 0111") {
				t.Fatalf("start that stopped after its send = %q", got)
			}
			code := w.lastCode("ada@example.com")
			mails := len(w.messages())
			switch then {
			case "confirm":
				recs, _ := w.st.List(ctx, kindIntent, "", "", 10)
				var in intent
				jsonValue(recs[0], &in)
				conf, err := w.confirm(ctx, web, args("booking_id", in.ID, "code", code))
				if err != nil || conf.Status != "reserved" {
					t.Fatalf("confirm with the sent code = %s", refusalText(err))
				}
			case "identical start":
				w.clock.Advance(sendWindow)
				res, err := w.start(ctx, web, stayArgs())
				if err != nil || len(w.messages()) != mails {
					t.Fatalf("identical start = %s with %d new mails", refusalText(err), len(w.messages())-mails)
				}
				if _, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code)); err != nil {
					t.Fatalf("confirm = %s", refusalText(err))
				}
			}
		})
	}
}

// TestSweepRemovesOldCeilingRecords: the admission places and lookup
// tries kept as records before the ceilings became counters go once
// their window has passed, and not before.
func TestSweepRemovesOldCeilingRecords(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	now := w.clock.Now()
	for _, r := range []store.Record{
		{Kind: kindAdmission, Key: "book-group/0000", Value: []byte(`"x"`), UpdatedAt: now.Add(-25 * time.Hour)},
		{Kind: kindAdmission, Key: "book-group/0001", Value: []byte(`"x"`), UpdatedAt: now.Add(-23 * time.Hour)},
		{Kind: kindLookups, Key: "RIV-0000000000000000", Value: []byte(`{}`), UpdatedAt: now.Add(-2 * time.Hour)},
	} {
		if _, err := w.st.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	w.sweep()
	left, err := w.st.List(ctx, kindAdmission, "", "", 10)
	if err != nil || len(left) != 1 || left[0].Key != "book-group/0001" {
		t.Fatalf("admission records after the sweep = %v, %v; want the one within the day", keysOf(left), err)
	}
	if left, err := w.st.List(ctx, kindLookups, "", "", 10); err != nil || len(left) != 0 {
		t.Fatalf("lookup records after the sweep = %v, %v; want none", keysOf(left), err)
	}
}

func keysOf(rs []store.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Key)
	}
	return out
}
