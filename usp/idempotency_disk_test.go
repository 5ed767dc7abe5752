package usp_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// diskFull refuses, while armed, a write that records an idempotency
// result alone: a full disk, on which a conditional write that is refused
// anyway (a full slot) still answers, and the record after it fails.
type diskFull struct {
	store.Store
	armed atomic.Bool
}

func (d *diskFull) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	if d.armed.Load() && len(writes) == 1 && writes[0].Record.Kind == "usp-idempotency" {
		return nil, errors.New("write: no space left on device")
	}
	return d.Store.Apply(ctx, writes)
}

// TestIdempotencyResultNeverLostOnAFullDisk: on both engines, a refusal
// whose idempotency result cannot be written is answered as
// service_unavailable with Retry-After, not as final; the retry with the
// same key, once the disk has room, gets the refusal and keeps it, so a
// third call answers it while the disk is full again. Before, the
// refusal was answered as final and its key ran again later.
func TestIdempotencyResultNeverLostOnAFullDisk(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile})
			st := &diskFull{Store: engine(t)()}
			t.Cleanup(func() { st.Close() })
			b := &bench{Business: usptest.On(t, usptest.WithPlatform(config.Demo()), st, clock.NewFixed(usptest.Now), plat, nil, ""), plat: plat, call: platformCall(plat)}
			ctx := context.Background()
			s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
			req := usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada}
			// Fill the slot, so that one more booking is a business
			// outcome (slot_unavailable) with nothing to write.
			var outcome *usp.BookingResult
			for range 50 {
				res, err := b.CreateBooking(ctx, b.call, req)
				if err != nil {
					t.Fatal(err)
				}
				if res.Booking == nil {
					outcome = res
					break
				}
			}
			if outcome == nil || len(outcome.Messages) == 0 {
				t.Fatal("the slot never filled")
			}
			call := b.call
			call.IdempotencyKey = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
			st.armed.Store(true)
			_, err := b.CreateBooking(ctx, call, req)
			e, _ := usp.AsError(err)
			if err == nil || e.Code != usp.CodeServiceUnavailable || e.RetryAfter == 0 || !strings.Contains(e.Message, "same idempotency key") {
				t.Fatalf("a refusal whose result could not be kept = %v, want service_unavailable with Retry-After", err)
			}
			st.armed.Store(false)
			res, err := b.CreateBooking(ctx, call, req)
			if err != nil || res.Booking != nil || res.Messages[0].Code != outcome.Messages[0].Code {
				t.Fatalf("the retry once the disk has room = %+v, %v; want the refusal", res, err)
			}
			st.armed.Store(true)
			again, err := b.CreateBooking(ctx, call, req)
			if err != nil || again.Messages[0].Code != res.Messages[0].Code {
				t.Fatalf("a third call on a full disk = %+v, %v; want the kept refusal", again, err)
			}
		})
	}
}
