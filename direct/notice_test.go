package direct

import (
	"context"
	"strings"
	"testing"
	"time"

	"frontdesk/direct/directtest"
	"frontdesk/store"
)

// sweepFor runs the sweep every 10 minutes for d.
func (w *world) sweepFor(d time.Duration) {
	w.t.Helper()
	for end := w.clock.Now().Add(d); w.clock.Now().Before(end); {
		w.clock.Advance(10 * time.Minute)
		w.sweep()
	}
}

// TestNoDoubleNoticeAfterStoreFailure fails each store call of a
// confirmation, and then of a cancellation, in turn, retries the
// operation as a client would, and sweeps for two hours: no notice is
// delivered twice. Before notices were claimed at creation and their
// outcomes retried, one failed outcome write sent both notices again.
func TestNoDoubleNoticeAfterStoreFailure(t *testing.T) {
	t.Run("confirm", func(t *testing.T) {
		for n := 1; ; n++ {
			base := newWorld(t)
			fs := &failingStore{Store: base.st}
			w := newWorldOn(t, base.cfg, fs)
			ctx := context.Background()
			res, err := w.start(ctx, web, stayArgs())
			if err != nil {
				t.Fatal(refusalText(err))
			}
			pair := args("booking_id", res.BookingID, "code", w.lastCode("ada@example.com"))
			fs.arm(n)
			_, err = w.confirm(ctx, web, pair)
			calls := fs.disarm()
			if err != nil {
				w.clock.Advance(time.Minute)
				w.confirm(ctx, web, pair)
			}
			w.sweepFor(2 * time.Hour)
			if twice := w.mail.sentTwice(); len(twice) > 0 {
				t.Fatalf("call %d failing: delivered twice: %v", n, twice)
			}
			if calls < n {
				break
			}
		}
	})
	t.Run("cancel", func(t *testing.T) {
		for n := 1; ; n++ {
			base := newWorld(t)
			fs := &failingStore{Store: base.st}
			w := newWorldOn(t, base.cfg, fs)
			ctx := context.Background()
			_, cancelID, code := w.openCancellation()
			fs.arm(n)
			_, err := w.cancel(ctx, web, args("cancel_id", cancelID, "code", code))
			calls := fs.disarm()
			if err != nil {
				w.cancel(ctx, web, args("cancel_id", cancelID, "code", code))
			}
			w.sweepFor(2 * time.Hour)
			if twice := w.mail.sentTwice(); len(twice) > 0 {
				t.Fatalf("call %d failing: delivered twice: %v", n, twice)
			}
			if calls < n {
				break
			}
		}
	})
}

// TestNoticeClaimedBeforeSending: a process that dies while sending a
// confirmation's notices leaves them claimed, not untouched. When the
// lease ends, the sweep sends each again with the same Message-ID,
// records it as possibly sent and flags the reservation, so staff see
// the possible duplicate. Before, the notice stayed "queued, attempts: 0"
// and was resent without a trace.
func TestNoticeClaimedBeforeSending(t *testing.T) {
	w := newWorld(t)
	ref := w.book(stayArgs())
	ctx := context.Background()
	r, _ := w.svc.getBooked(ctx, ref)
	queued, writes := newNotices(w.clock.Now(), ref, w.svc.cancellationEmails(r, w.cfg.Locations[0], w.clock.Now())[:1])
	if _, err := w.st.Apply(ctx, writes); err != nil {
		t.Fatal(err)
	}
	id := queued[0].ID
	// The send goes out, and the process dies before recording it.
	if err := w.mail.Send(ctx, queued[0].Email); err != nil {
		t.Fatal(err)
	}
	if n := w.notice(id); n.State != noticeSending || n.LeaseUntil.IsZero() {
		t.Fatalf("notice after the kill = %+v, want it claimed under a lease", n)
	}
	if res := w.sweep(); res.Notices != 0 {
		t.Fatalf("a sweep within the lease attempted %d notices", res.Notices)
	}
	w.clock.Advance(noticeLease)
	w.sweep()
	n := w.notice(id)
	if n.State != noticeSent || !n.PossiblySent {
		t.Fatalf("notice after the sweep = %+v, want sent and possibly sent", n)
	}
	booked, _ := w.svc.getBooked(ctx, ref)
	if !strings.Contains(booked.Attention, id) || !strings.Contains(booked.Attention, "may have been sent already") {
		t.Fatalf("attention = %q, want the possible duplicate named", booked.Attention)
	}
}

// slowOutcomes holds every store write that records a notice's outcome
// (it removes the notice's due entry, as no confirmation's other write
// does) until released.
type slowOutcomes struct {
	store.Store
	release chan struct{}
}

func (s *slowOutcomes) Apply(ctx context.Context, ws []store.Write) ([]store.Record, error) {
	for _, w := range ws {
		if w.Op == store.OpDelete && w.Record.Kind == kindNoticeDue {
			select {
			case <-s.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			break
		}
	}
	return s.Store.Apply(ctx, ws)
}

// TestConfirmDoesNotWaitForNoticeOutcomes: the guest's answer follows the
// sends; recording their outcomes comes after it, and lands.
func TestConfirmDoesNotWaitForNoticeOutcomes(t *testing.T) {
	cfg, st := directtest.Demo(t)
	slow := &slowOutcomes{Store: st, release: make(chan struct{})}
	w := newWorldOn(t, cfg, slow)
	ctx := context.Background()
	res, err := w.start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	answered := make(chan *ConfirmResult, 1)
	go func() {
		conf, err := w.svc.Confirm(ctx, web, ConfirmRequest{BookingID: res.BookingID, Code: w.lastCode("ada@example.com")})
		if err != nil {
			t.Error(refusalText(err))
		}
		answered <- conf
	}()
	var conf *ConfirmResult
	select {
	case conf = <-answered:
	case <-time.After(5 * time.Second):
		close(slow.release)
		t.Fatal("confirm waited for its notices' outcomes to be stored")
	}
	if conf == nil || !strings.Contains(conf.Message, "is reserved") {
		t.Fatalf("confirm = %+v", conf)
	}
	id := noticeID(conf.ReservationNumber, "reserved", "guest")
	if n, _, err := getJSON[notice](ctx, st, kindNotice, id); err != nil || n.State != noticeSending {
		t.Fatalf("notice before its outcome is stored = %+v, %v; want it still claimed", n, err)
	}
	close(slow.release)
	if n := w.notice(id); n.State != noticeSent || n.Due != "" {
		t.Fatalf("notice after the answer = %+v, want sent", n)
	}
}
