package booking

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/inventory"
)

// Stages at which a confirmation by an older release, which committed
// step by step, could have stopped. A confirmation now commits in one
// transaction and leaves none of them, but stored data and the sweep
// still meet them.
const (
	stoppedProved  = iota + 1 // intent committing, nothing else
	stoppedPending            // and the pending record, registered, with its slots
	stoppedHeld               // and the room held, the record not updated yet
)

// stopConfirm starts a booking and leaves its confirmation stopped at
// stage, as an older release would have: it returns the booking_id, its
// code and the reference allocated.
func stopConfirm(t *testing.T, w *world, stage int) (id, code, ref string) {
	t.Helper()
	ctx := context.Background()
	now := w.clock.Now()
	res, err := w.svc.Start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	id, code = res.BookingID, w.lastCode("ada@example.com")
	l := w.cfg.Locations[0]
	proof, err := w.svc.keyed(ctx, now, "proof", id+"\x00"+code)
	if err != nil {
		t.Fatal(err)
	}
	if ref, err = w.svc.newReference(l); err != nil {
		t.Fatal(err)
	}
	in, err := update(ctx, w.st, kindIntent, id, now, func(v *intent) error {
		v.State, v.Proof, v.Ref, v.CommitStart = stateCommitting, proof, ref, now
		v.Salt, v.Digest = "", ""
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if stage >= stoppedPending {
		r := newReservation(in, "token", l, now)
		if reuse, refusal, err := w.svc.reserve(ctx, now, in, r, l, route{phone: l.Phone}); err != nil || refusal != nil || reuse != nil {
			t.Fatalf("reserve = %v, %v, %v", reuse, refusal, err)
		}
	}
	if stage >= stoppedHeld {
		unit, _ := l.Unit("double")
		if err := w.svc.inv.Hold(ctx, ref, l, unit, inventory.Nights(mustDate("2026-12-30"), 3), now); err != nil {
			t.Fatal(err)
		}
	}
	return id, code, ref
}

// TestStoppedConfirmationsFinish: a confirmation stopped at any stage is
// left alone within its lease and finished after it, with the reference
// first allocated, one hold, one registration and its notices.
func TestStoppedConfirmationsFinish(t *testing.T) {
	for _, stage := range []int{stoppedProved, stoppedPending, stoppedHeld} {
		t.Run(fmt.Sprint("stage ", stage), func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			id, code, ref := stopConfirm(t, w, stage)
			_, err := w.svc.Confirm(ctx, web, args("booking_id", id, "code", code))
			if got := refusalText(err); !strings.HasPrefix(got, "This booking confirmation is still in progress.") {
				t.Fatalf("within the lease = %q, want the in-progress sentence", got)
			}
			w.clock.Advance(commitLease)
			conf, err := w.svc.Confirm(ctx, web, args("booking_id", id, "code", code))
			if err != nil {
				t.Fatalf("after the lease = %s", refusalText(err))
			}
			if conf.ReservationNumber != ref || conf.Status != resReserved {
				t.Fatalf("finished %s %s, want %s reserved", conf.ReservationNumber, conf.Status, ref)
			}
			if !strings.Contains(conf.Message, "A confirmation email was sent to a***@example.com.") {
				t.Fatalf("message = %q", conf.Message)
			}
			if !reservationHeld(t, w, ref) || freeDoubles(t, w) != 1 {
				t.Fatalf("held %v with %d doubles free, want the reservation holding one", reservationHeld(t, w, ref), freeDoubles(t, w))
			}
			in, _, err := getJSON[intent](ctx, w.st, kindIntent, id)
			if err != nil || in.State != stateDone || in.Ref != ref || in.Data != nil {
				t.Fatalf("intent = %+v, %v; want a receipt for %s", in, err, ref)
			}
			for _, key := range []string{"group", "riverside"} {
				pending, _, _ := getJSON[refs](ctx, w.st, kindPending, key)
				if !slices.Equal(pending.Refs, []string{ref}) {
					t.Fatalf("pending %s = %v, want [%s]", key, pending.Refs, ref)
				}
			}
			for _, to := range []string{"guest", "staff"} {
				n, _, err := getJSON[notice](ctx, w.st, kindNotice, noticeID(ref, "reserved", to))
				if err != nil || n.State != noticeSent {
					t.Fatalf("%s notice = %+v, %v; want sent", to, n, err)
				}
			}
			replay, err := w.svc.Confirm(ctx, web, args("booking_id", id, "code", code))
			if err != nil || replay.ReservationNumber != ref {
				t.Fatalf("replay = %v, %s; want %s", replay, refusalText(err), ref)
			}
		})
	}
}

// TestEveryStoreCallFailingOnRecovery fails each store call of a
// confirmation that finishes a stopped one, at every stage, with the same
// promises as TestEveryStoreCallFailingOnConfirm.
func TestEveryStoreCallFailingOnRecovery(t *testing.T) {
	for _, stage := range []int{stoppedProved, stoppedPending, stoppedHeld} {
		for n := 1; ; n++ {
			base := newWorld(t)
			fs := &failingStore{Store: base.st}
			w := newWorldOn(t, base.cfg, fs)
			ctx := context.Background()
			id, code, ref := stopConfirm(t, w, stage)
			w.clock.Advance(commitLease)
			fs.arm(n)
			conf, err := w.svc.Confirm(ctx, web, args("booking_id", id, "code", code))
			calls := fs.disarm()
			held := 2 - freeDoubles(t, w)
			if err == nil && (held != 1 || conf.ReservationNumber != ref || !reservationHeld(t, w, ref)) {
				t.Fatalf("stage %d, call %d failing: success claimed with %d holds", stage, n, held)
			}
			if held > 1 {
				t.Fatalf("stage %d, call %d failing: %d holds", stage, n, held)
			}
			if err != nil {
				if text := refusalText(err); strings.Contains(text, "is reserved") {
					t.Fatalf("stage %d, call %d failing: refusal claims a reservation: %q", stage, n, text)
				}
				w.clock.Advance(time.Minute) // past any lease the failure left
				conf, err = w.svc.Confirm(ctx, web, args("booking_id", id, "code", code))
				if err != nil || conf.ReservationNumber != ref || 2-freeDoubles(t, w) != 1 || !reservationHeld(t, w, ref) {
					t.Fatalf("stage %d, call %d failing: retry = %v, %s with %d held; want %s holding one room",
						stage, n, conf, refusalText(err), 2-freeDoubles(t, w), ref)
				}
			}
			if calls < n {
				break // the confirmation made fewer calls than n: every call has failed once
			}
		}
	}
}
