package usp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/uspspec"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
)

// fullProfile is a platform that uses catalog, availability and bookings.
const fullProfile = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}],
 "dev.usp-protocol.services.availability":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/availability.json"}],
 "dev.usp-protocol.services.bookings":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/booking.json"}]}}}`

type bench struct {
	*usptest.Business
	plat *usptest.Platforms
	call usp.Call
}

func newBench(t *testing.T) *bench {
	t.Helper()
	return newBenchIn(t, "")
}

// newBenchIn is newBench in the USP mode mode ("" is the default,
// Standalone).
func newBenchIn(t *testing.T, mode string) *bench {
	t.Helper()
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile, "/other.json": fullProfile})
	cfg := usptest.WithPlatform(usptest.Manual(usptest.Unpaid(config.Demo())))
	cfg.USP.Mode = mode
	b := usptest.NewBusiness(t, cfg, usptest.Now, plat, nil)
	return &bench{Business: b, plat: plat, call: platformCall(plat)}
}

func platformCall(plat *usptest.Platforms) usp.Call {
	return usp.Call{Profile: plat.URL + "/full.json", Credentials: usp.Credentials{Header: http.Header{"Authorization": {usptest.Bearer}}}}
}

func (b *bench) staff() usp.Call {
	return usp.Call{Credentials: usp.Credentials{Authorization: json.RawMessage(`{"mechanism":"staff_session","credential":"` + usptest.StaffToken + `"}`)}}
}

// slot is the first open slot of a service on the given local day.
func (b *bench) slot(t *testing.T, service, day string) usp.Slot {
	t.Helper()
	res, err := b.QueryAvailability(context.Background(), usp.Call{}, usp.QueryRequest{ServiceID: service, StartDate: day, EndDate: day})
	if err != nil || len(res.Slots) == 0 {
		t.Fatalf("no slot of %s on %s: %v", service, day, err)
	}
	return res.Slots[0]
}

var ada = &usp.Buyer{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", PhoneNumber: "+13035550199"}

func check(t *testing.T, def string, v any) {
	t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	file := "booking.json"
	if def == "Hold" {
		file = "availability.json"
	}
	uspspec.Load(t).Check(t, uspspec.Def(file, def), body)
}

func outcome(t *testing.T, msgs []usp.Message) string {
	t.Helper()
	for _, m := range msgs {
		if m.Type == "error" {
			return m.Code
		}
	}
	return ""
}

func code(t *testing.T, err error) usp.Code {
	t.Helper()
	e, internal := usp.AsError(err)
	if err == nil || internal {
		t.Fatalf("err = %v, want a protocol error", err)
	}
	return e.Code
}

func TestHoldThenBookThenStaffConfirm(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
	if err != nil || h.Hold == nil {
		t.Fatalf("hold: %+v, %v", h, err)
	}
	check(t, "Hold", h.Hold)
	if h.Hold.Status != "active" || h.Hold.ExpiresAt != "2026-03-01T05:10:00-07:00" {
		t.Fatalf("hold = %+v", h.Hold)
	}
	// An appointment slot takes one hold at a time (§4.2).
	again, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
	if err != nil || outcome(t, again.Messages) != "slot_unavailable" || again.Hold != nil {
		t.Fatalf("second hold: %+v, %v", again, err)
	}
	// The slot is gone from availability while held.
	if got := b.slot(t, "svc_airport_shuttle", "2026-03-02"); got.ID == s.ID {
		t.Fatal("a held slot is still offered")
	}
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, HoldID: h.Hold.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatalf("create: %+v, %v", res, err)
	}
	check(t, "Booking", res.Booking)
	k := res.Booking
	if k.Status != "pending" || k.ConfirmationMode != "manual" || k.Slot.Start != s.Start || k.ExpiresAt != s.Start {
		t.Fatalf("booking = %+v", k)
	}
	// The reservation of the core carries the platform as its source.
	r, err := reservation.Get(ctx, b.Store, k.ID)
	if err != nil || r.Source != "usp:testplatform" || r.State != reservation.Reserved || !r.Held {
		t.Fatalf("reservation = %+v, %v", r, err)
	}
	// The hold replayed returns the booking it became.
	replay, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, HoldID: h.Hold.ID, Buyer: ada})
	if err != nil || replay.Booking == nil || replay.Booking.ID != k.ID {
		t.Fatalf("replay: %+v, %v", replay, err)
	}
	// A platform cannot confirm; staff can, and again is idempotent.
	if c := code(t, firstErr(b.ConfirmBooking(ctx, b.call, k.ID))); c != usp.CodeAuthenticationRequired {
		t.Fatalf("platform confirm: %s", c)
	}
	for range 2 {
		conf, err := b.ConfirmBooking(ctx, b.staff(), k.ID)
		if err != nil || conf.Booking.Status != "confirmed" {
			t.Fatalf("staff confirm: %+v, %v", conf, err)
		}
	}
	got, err := b.GetBooking(ctx, b.call, k.ID)
	if err != nil || got.Booking.Status != "confirmed" || got.Booking.ExpiresAt != "" {
		t.Fatalf("get: %+v, %v", got, err)
	}
	check(t, "Booking", got.Booking)
}

func firstErr[T any](_ T, err error) error { return err }

func TestStaffDecisionIsTheBookingStatus(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatalf("create: %+v, %v", res, err)
	}
	// Staff confirm on their own screen or the CLI, through the core.
	if _, _, err := b.Bookings.Core().Decide(ctx, reservation.Decision{Reference: res.Booking.ID, To: reservation.Confirmed, By: "desk"}); err != nil {
		t.Fatal(err)
	}
	got, err := b.GetBooking(ctx, b.call, res.Booking.ID)
	if err != nil || got.Booking.Status != "confirmed" {
		t.Fatalf("after staff confirm: %+v, %v", got, err)
	}
}

func TestHoldConversionFailures(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_riverside_single", "2026-03-10")
	two := 2
	h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID, Spots: &two})
	if err != nil || h.Hold == nil || h.Hold.Spots != 2 {
		t.Fatalf("hold: %+v, %v", h, err)
	}
	three := 3
	create := func(party *int) *usp.BookingResult {
		res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, HoldID: h.Hold.ID, Buyer: ada, PartySize: party})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// More than held: capacity_exceeded, and the hold stays active.
	if res := create(&three); outcome(t, res.Messages) != "capacity_exceeded" || res.Booking != nil {
		t.Fatalf("party over spots: %+v", res)
	}
	// Unknown hold: validation_error, not hold_expired.
	if c := code(t, firstErr(b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, HoldID: "hold_RIV-NOPE", Buyer: ada}))); c != usp.CodeValidation {
		t.Fatalf("unknown hold: %s", c)
	}
	// Past its TTL the hold expires and frees its rooms: hold_expired.
	b.Clock.Advance(usp.HoldTTL)
	if res := create(nil); outcome(t, res.Messages) != "hold_expired" {
		t.Fatalf("expired hold: %+v", res)
	}
	rel, err := b.ReleaseSlot(ctx, b.call, h.Hold.ID)
	if err != nil || rel.Hold.Status != "expired" {
		t.Fatalf("release after expiry: %+v, %v", rel, err)
	}
	// Once the rooms are gone as well: slot_unavailable.
	all := 3
	if _, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada, PartySize: &all}); err != nil {
		t.Fatal(err)
	}
	if res := create(nil); outcome(t, res.Messages) != "slot_unavailable" {
		t.Fatalf("expired hold, slot gone: %+v", res)
	}
}

func TestReleaseFreesTheSlot(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
	if err != nil || h.Hold == nil {
		t.Fatal(err)
	}
	for range 2 { // releasing twice answers the same
		rel, err := b.ReleaseSlot(ctx, b.call, h.Hold.ID)
		if err != nil || rel.Hold.Status != "released" {
			t.Fatalf("release: %+v, %v", rel, err)
		}
		check(t, "Hold", rel.Hold)
	}
	if got := b.slot(t, "svc_airport_shuttle", "2026-03-02"); got.ID != s.ID {
		t.Fatal("a released slot is not offered again")
	}
	if c := code(t, firstErr(b.ReleaseSlot(ctx, b.call, "hold_AIR-NOPE"))); c != usp.CodeBookingNotFound {
		t.Fatalf("unknown hold: %s", c)
	}
}

func TestSweepExpiresHoldsAndPendingBookings(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-01")
	if _, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID}); err != nil {
		t.Fatal(err)
	}
	later := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: later.ServiceID, SlotID: later.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatal(err)
	}
	b.Clock.Advance(usp.HoldTTL)
	if n, err := b.Expire(ctx); err != nil || n != 1 {
		t.Fatalf("expire after the TTL = %d, %v; want the hold", n, err)
	}
	if got := b.slot(t, "svc_airport_shuttle", "2026-03-01"); got.ID != s.ID {
		t.Fatal("the expired hold's slot is not offered again")
	}
	// A booking still pending when its slot starts is cancelled (§5.2
	// booking expiry), and its slot is freed.
	b.Clock.Set(mustTime(t, later.Start))
	if n, err := b.Expire(ctx); err != nil || n != 1 {
		t.Fatalf("expire at the slot's start = %d, %v", n, err)
	}
	got, err := b.GetBooking(ctx, b.call, res.Booking.ID)
	if err != nil || got.Booking.Status != "canceled" || got.Booking.Cancellation == nil || got.Booking.Cancellation.CanceledBy != "system" {
		t.Fatalf("expired booking: %+v, %v", got, err)
	}
	check(t, "Booking", got.Booking)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCancelRescheduleAndTransitions(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatal(err)
	}
	id := res.Booking.ID
	// Reschedule to a slot another booking holds: slot_unavailable, and
	// the booking stays where it was.
	other := b.slot(t, "svc_airport_shuttle", "2026-03-03")
	if _, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: other.ServiceID, SlotID: other.ID, Buyer: ada}); err != nil {
		t.Fatal(err)
	}
	moved, err := b.RescheduleBooking(ctx, b.call, id, usp.RescheduleRequest{SlotID: other.ID})
	if err != nil || outcome(t, moved.Messages) != "slot_unavailable" || moved.Booking.Slot.ID != s.ID {
		t.Fatalf("reschedule onto a taken slot: %+v, %v", moved, err)
	}
	// To a free slot: the old one is offered again, the new one not.
	free := b.slot(t, "svc_airport_shuttle", "2026-03-04")
	moved, err = b.RescheduleBooking(ctx, b.call, id, usp.RescheduleRequest{SlotID: free.ID})
	if err != nil || moved.Booking.Slot.ID != free.ID || moved.Booking.ID != id {
		t.Fatalf("reschedule: %+v, %v", moved, err)
	}
	check(t, "Booking", moved.Booking)
	if got := b.slot(t, "svc_airport_shuttle", "2026-03-02"); got.ID != s.ID {
		t.Fatal("the old slot is not offered again")
	}
	// A stale revision is refused and changes nothing.
	stale := b.call
	stale.IfMatch = res.Booking.Revision
	if c := code(t, firstErr(b.CancelBooking(ctx, stale, id, usp.CancelRequest{}))); c != usp.CodeRevisionMismatch {
		t.Fatalf("stale revision: %s", c)
	}
	current := b.call
	current.IfMatch = moved.Booking.Revision
	cancelled, err := b.CancelBooking(ctx, current, id, usp.CancelRequest{Reason: "plans changed"})
	if err != nil || cancelled.Booking.Status != "canceled" || cancelled.Booking.Cancellation.Reason != "plans changed" {
		t.Fatalf("cancel: %+v, %v", cancelled, err)
	}
	check(t, "Booking", cancelled.Booking)
	if got := b.slot(t, "svc_airport_shuttle", "2026-03-04"); got.ID != free.ID {
		t.Fatal("the cancelled booking's slot is not offered again")
	}
	// Every operation on an ended booking is invalid_transition, a
	// business outcome.
	for name, op := range map[string]func() (*usp.BookingResult, error){
		"cancel": func() (*usp.BookingResult, error) { return b.CancelBooking(ctx, b.call, id, usp.CancelRequest{}) },
		"reschedule": func() (*usp.BookingResult, error) {
			return b.RescheduleBooking(ctx, b.call, id, usp.RescheduleRequest{SlotID: s.ID})
		},
		"update": func() (*usp.BookingResult, error) {
			return b.UpdateBooking(ctx, b.call, id, usp.UpdateRequest{Buyer: ada})
		},
		"confirm": func() (*usp.BookingResult, error) { return b.ConfirmBooking(ctx, b.staff(), id) },
	} {
		res, err := op()
		if err != nil || outcome(t, res.Messages) != "invalid_transition" || res.Booking.Status != "canceled" {
			t.Errorf("%s of a cancelled booking: %+v, %v", name, res, err)
		}
	}
}

func TestUpdateBooking(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada, Notes: "window seat"})
	if err != nil || res.Booking == nil {
		t.Fatal(err)
	}
	notes := "aisle seat"
	up, err := b.UpdateBooking(ctx, b.call, res.Booking.ID, usp.UpdateRequest{Notes: &notes, Recipient: &usp.Buyer{FirstName: "Byron", LastName: "Lovelace", Email: "b@example.com"}})
	if err != nil || up.Booking.Notes != "aisle seat" || up.Booking.Recipient == nil || up.Booking.Buyer.Email != "ada@example.com" {
		t.Fatalf("update: %+v, %v", up, err)
	}
	if up.Booking.Revision == res.Booking.Revision {
		t.Fatal("the revision did not change")
	}
	check(t, "Booking", up.Booking)
}

// TestParallelUpdatesOfOneBooking: forty updates of one booking at once
// all apply, on both engines. Before, they lost their conditional writes
// to each other, and those that lost five times answered a server error.
func TestParallelUpdatesOfOneBooking(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) {
			b := benchOn(t, engine)
			ctx := context.Background()
			s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
			res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
			if err != nil || res.Booking == nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, 40)
			for i := range errs {
				wg.Go(func() {
					notes := fmt.Sprintf("seat %d", i)
					_, errs[i] = b.UpdateBooking(ctx, b.call, res.Booking.ID, usp.UpdateRequest{Notes: &notes})
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("parallel updates: %v", err)
			}
			got, err := b.GetBooking(ctx, b.call, res.Booking.ID)
			if err != nil || !strings.HasPrefix(got.Booking.Notes, "seat ") {
				t.Fatalf("after the updates: %+v, %v", got, err)
			}
		})
	}
}

func TestPlatformsSeeOnlyTheirOwnBookings(t *testing.T) {
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile})
	cfg := usptest.WithPlatform(config.Demo())
	cfg.USP.Platforms = append(cfg.USP.Platforms, config.USPPlatform{Name: "rival", APIKeyHashes: []string{usp.HashAPIKey("rival-key")}})
	b := &bench{Business: usptest.NewBusiness(t, cfg, usptest.Now, plat, nil), plat: plat, call: platformCall(plat)}
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatal(err)
	}
	rival := usp.Call{Profile: plat.URL + "/full.json", Credentials: usp.Credentials{Header: http.Header{"Authorization": {"Bearer rival-key"}}}}
	if c := code(t, firstErr(b.GetBooking(ctx, rival, res.Booking.ID))); c != usp.CodeBookingNotFound {
		t.Fatalf("another platform's booking: %s", c)
	}
	// A chat reservation is not a USP booking either.
	if c := code(t, firstErr(b.GetBooking(ctx, b.call, "RIV-0000"))); c != usp.CodeBookingNotFound {
		t.Fatalf("unknown booking: %s", c)
	}
}

func TestPrivilegedCallsNeedCredentialsAndAProfile(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	req := usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID}
	noKey := b.call
	noKey.Credentials = usp.Credentials{}
	badKey := b.call
	badKey.Credentials = usp.Credentials{Header: http.Header{"Authorization": {"Bearer nope"}}}
	noProfile := b.call
	noProfile.Profile = ""
	elsewhere := b.call
	elsewhere.Profile = b.plat.URL + "/other.json"
	if c := code(t, firstErr(b.HoldSlot(ctx, noKey, req))); c != usp.CodeAuthenticationRequired {
		t.Fatalf("no key: %s", c)
	}
	if c := code(t, firstErr(b.HoldSlot(ctx, badKey, req))); c != usp.CodeAuthenticationRequired {
		t.Fatalf("bad key: %s", c)
	}
	if c := code(t, firstErr(b.HoldSlot(ctx, noProfile, req))); c != usp.CodeInvalidRequest {
		t.Fatalf("no profile: %s", c)
	}
	if _, err := b.HoldSlot(ctx, b.call, req); err != nil {
		t.Fatal(err)
	}
	// The key is now bound to its first profile URI.
	if c := code(t, firstErr(b.HoldSlot(ctx, elsewhere, req))); c != usp.CodeProfileNotTrusted {
		t.Fatalf("same key, another profile: %s", c)
	}
}

// TestRefusedCallsOfEveryOperationBindNothing: every privileged
// operation of a platform, refused for its arguments, for what it names
// or with an error outcome, leaves its key unbound, so the key's first
// successful call binds the profile that call names.
func TestRefusedCallsOfEveryOperationBindNothing(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	a := b.call
	keyed := a
	keyed.IdempotencyKey = "6f1c7a52-0000-4000-8000-00000000000a"
	many := 1000
	badMail := &usp.Buyer{FirstName: "Ada", LastName: "Lovelace", Email: "not an email"}
	refused := map[string]func() (any, []usp.Message, error){
		"create, malformed buyer": func() (any, []usp.Message, error) {
			r, err := b.CreateBooking(ctx, a, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: badMail})
			return r, nil, err
		},
		"create keyed, unknown slot": func() (any, []usp.Message, error) {
			r, err := b.CreateBooking(ctx, keyed, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: "slot_nowhere", Buyer: ada})
			return r, nil, err
		},
		"hold, unknown slot": func() (any, []usp.Message, error) {
			r, err := b.HoldSlot(ctx, a, usp.HoldRequest{ServiceID: s.ServiceID, SlotID: "slot_nowhere"})
			return r, nil, err
		},
		"hold, more places than the slot has": func() (any, []usp.Message, error) {
			r, err := b.HoldSlot(ctx, a, usp.HoldRequest{ServiceID: s.ServiceID, SlotID: s.ID, Spots: &many})
			if err != nil {
				return r, nil, err
			}
			return r, r.Messages, nil
		},
		"release, unknown hold": func() (any, []usp.Message, error) {
			r, err := b.ReleaseSlot(ctx, a, "hold_APS-1")
			return r, nil, err
		},
		"get, unknown booking": func() (any, []usp.Message, error) {
			r, err := b.GetBooking(ctx, a, "APS-1")
			return r, nil, err
		},
		"update, unknown booking": func() (any, []usp.Message, error) {
			r, err := b.UpdateBooking(ctx, a, "APS-1", usp.UpdateRequest{Buyer: badMail})
			return r, nil, err
		},
		"cancel, unknown booking": func() (any, []usp.Message, error) {
			r, err := b.CancelBooking(ctx, a, "APS-1", usp.CancelRequest{})
			return r, nil, err
		},
		"reschedule, unknown booking": func() (any, []usp.Message, error) {
			r, err := b.RescheduleBooking(ctx, a, "APS-1", usp.RescheduleRequest{SlotID: s.ID})
			return r, nil, err
		},
		"confirm payment, no result": func() (any, []usp.Message, error) {
			r, err := b.ConfirmPayment(ctx, a, "APS-1", usp.ConfirmPaymentRequest{})
			return r, nil, err
		},
		"subscribe, no callback": func() (any, []usp.Message, error) {
			r, err := b.Subscribe(ctx, a, usp.SubscribeRequest{})
			if err != nil {
				return r, nil, err
			}
			return r, r.Messages, nil
		},
		"waitlist join, no buyer": func() (any, []usp.Message, error) {
			r, err := b.JoinWaitlist(ctx, a, usp.JoinRequest{ServiceID: s.ServiceID, SlotID: s.ID})
			if err != nil {
				return r, nil, err
			}
			return r, r.Messages, nil
		},
		"waitlist get, unknown entry": func() (any, []usp.Message, error) {
			r, err := b.GetWaitlistEntry(ctx, a, "wl_nowhere")
			if err != nil {
				return r, nil, err
			}
			return r, r.Messages, nil
		},
		"waitlist accept, unknown entry": func() (any, []usp.Message, error) {
			r, err := b.AcceptOffer(ctx, a, "wl_nowhere", usp.AcceptRequest{})
			if err != nil {
				return r, nil, err
			}
			return r, r.Messages, nil
		},
		"waitlist leave, unknown entry": func() (any, []usp.Message, error) {
			r, err := b.LeaveWaitlist(ctx, a, "wl_nowhere")
			if err != nil {
				return r, nil, err
			}
			return r, r.Messages, nil
		},
	}
	for name, call := range refused {
		_, messages, err := call()
		if err == nil && !slices.ContainsFunc(messages, func(m usp.Message) bool { return m.Type == "error" }) {
			t.Fatalf("%s: not refused", name)
		}
	}
	other := b.call
	other.Profile = b.plat.URL + "/other.json"
	if _, err := b.HoldSlot(ctx, other, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID}); err != nil {
		t.Fatalf("the first successful call, naming another profile: %v", err)
	}
	if c := code(t, firstErr(b.GetBooking(ctx, a, "APS-1"))); c != usp.CodeProfileNotTrusted {
		t.Fatalf("the first profile after the other was bound: %s", c)
	}
}

// TestIdempotencyKeysSurviveARestart: on both engines, a booking made with
// an idempotency key is answered again after the store is closed and
// opened anew, without a second booking.
func TestIdempotencyKeysSurviveARestart(t *testing.T) {
	for name, engine := range engines() {
		t.Run(name, func(t *testing.T) { idempotencyAcrossRestart(t, engine(t)) })
	}
}

// benchOn is a bench of the demo on a store engine opens.
func benchOn(t *testing.T, engine func(t *testing.T) func() store.Store) *bench {
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile})
	st := engine(t)()
	t.Cleanup(func() { st.Close() })
	return &bench{Business: usptest.On(t, usptest.WithPlatform(usptest.Unpaid(config.Demo())), st, clock.NewFixed(usptest.Now), plat, nil, ""), plat: plat, call: platformCall(plat)}
}

// engines opens a store of each engine: a SQLite file, and a PostgreSQL
// schema of its own; each call of the function returned opens it again.
func engines() map[string]func(t *testing.T) func() store.Store {
	return map[string]func(t *testing.T) func() store.Store{
		"sqlite": func(t *testing.T) func() store.Store {
			path := filepath.Join(t.TempDir(), "usp.db")
			return func() store.Store {
				st, err := sqlite.Open(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
		},
		"postgres": func(t *testing.T) func() store.Store {
			dsn := pgtest.Schema(t)
			return func() store.Store {
				st, err := postgres.Open(context.Background(), dsn)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
		},
	}
}

func idempotencyAcrossRestart(t *testing.T, open func() store.Store) {
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile})
	cfg := usptest.WithPlatform(config.Demo())
	clk := clock.NewFixed(usptest.Now)
	st := open()
	b := &bench{Business: usptest.On(t, cfg, st, clk, plat, nil, ""), plat: plat, call: platformCall(plat)}
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	call := b.call
	call.IdempotencyKey = "550e8400-e29b-41d4-a716-446655440000"
	req := usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada}
	res, err := b.CreateBooking(ctx, call, req)
	if err != nil || res.Booking == nil {
		t.Fatal(err)
	}
	// Restart: close the store and open it again.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open()
	t.Cleanup(func() { st.Close() })
	b.Business = usptest.On(t, cfg, st, clk, plat, nil, "")
	again, err := b.CreateBooking(ctx, call, req)
	if err != nil || again.Booking == nil || again.Booking.ID != res.Booking.ID || again.Booking.Revision != res.Booking.Revision {
		t.Fatalf("replay after restart: %+v, %v", again, err)
	}
	rows, err := st.ListReservations(ctx, store.ReservationFilter{Source: "usp:testplatform", Limit: 10})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%d reservations after the replay, want 1 (%v)", len(rows), err)
	}
	// The same key with other parameters is a conflict; with a stale
	// If-Match the replay is still the stored result (§9.1.1).
	other := req
	other.Notes = "different"
	if c := code(t, firstErr(b.CreateBooking(ctx, call, other))); c != usp.CodeIdempotencyConflict {
		t.Fatalf("other parameters: %s", c)
	}
	cancelCall := call
	cancelCall.IdempotencyKey = "550e8400-e29b-41d4-a716-4466554400cc"
	cancelCall.IfMatch = res.Booking.Revision
	c1, err := b.CancelBooking(ctx, cancelCall, res.Booking.ID, usp.CancelRequest{})
	if err != nil || c1.Booking.Status != "canceled" {
		t.Fatalf("cancel: %+v, %v", c1, err)
	}
	c2, err := b.CancelBooking(ctx, cancelCall, res.Booking.ID, usp.CancelRequest{})
	if err != nil || c2.Booking.Revision != c1.Booking.Revision || len(c2.Messages) != 0 {
		t.Fatalf("replayed cancel: %+v, %v", c2, err)
	}
	// Without the key, the same cancel is the outcome invalid_transition.
	if c3, err := b.CancelBooking(ctx, b.call, res.Booking.ID, usp.CancelRequest{}); err != nil || outcome(t, c3.Messages) != "invalid_transition" {
		t.Fatalf("cancel without the key: %+v, %v", c3, err)
	}
	// Kept 24 hours, then forgotten by the sweep.
	clk.Advance(usp.IdempotencyKeep)
	if n, err := b.PurgeIdempotency(ctx); err != nil || n != 2 {
		t.Fatalf("purged %d, %v; want 2", n, err)
	}
}

func TestBookingsAreNotServedWithoutAnAuthenticator(t *testing.T) {
	b := usptest.NewBusiness(t, usptest.PublicOnly(config.Demo()), usptest.Now, nil, nil)
	for _, m := range b.Served() {
		if m.Access != usp.Public {
			t.Errorf("%s served without an authenticator", m.Name)
		}
	}
	if _, ok := b.Profile().USP.Capabilities[usp.CapabilityBookings]; ok {
		t.Error("bookings advertised without an authenticator")
	}
	if c := code(t, firstErr(b.CreateBooking(context.Background(), usp.Call{}, usp.CreateRequest{}))); c != usp.CodeAuthenticationRequired {
		t.Fatalf("create: %s", c)
	}
}

// TestStaffCannotDecideAHold is the negative control of the hold state:
// a platform's hold is not awaiting staff, so staff confirming, declining
// or accepting it is refused with the desk's code and it stays a hold,
// listed among nothing awaiting staff; once it became a booking that
// staff confirmed, the platform's release cannot cancel that booking.
// Before the desk, the hold was a reserved reservation: staff confirmed
// it, and the platform's release then cancelled what staff confirmed.
func TestStaffCannotDecideAHold(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
	if err != nil || h.Hold == nil {
		t.Fatal(err)
	}
	ref := h.Hold.ID[len("hold_"):]
	for _, to := range []reservation.State{reservation.Confirmed, reservation.Declined, reservation.Reserved, reservation.Cancelled} {
		_, _, err := b.Bookings.Core().Decide(ctx, reservation.Decision{Reference: ref, To: to, By: "desk"})
		if reservation.ErrorCode(err) != reservation.CodeIllegalTransition {
			t.Fatalf("staff %s on a hold = %v, want the desk's %s", to, err, reservation.CodeIllegalTransition)
		}
	}
	r, err := reservation.Get(ctx, b.Store, ref)
	if err != nil || r.State != reservation.OnHold || !r.Held || r.State.Pending() {
		t.Fatalf("after staff tried: %s held %v, %v", r.State, r.Held, err)
	}
	awaiting, err := b.Bookings.Reservations(ctx, store.ReservationFilter{States: []string{string(reservation.Reserved), string(reservation.Requested)}, Limit: 100})
	if err != nil || len(awaiting) != 0 {
		t.Fatalf("awaiting staff = %d, %v; a hold awaits no one", len(awaiting), err)
	}

	// Converted, then confirmed by staff: the platform's release of the
	// hold answers its state and changes nothing.
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, HoldID: h.Hold.ID, Buyer: ada})
	if err != nil || res.Booking == nil || res.Booking.Status != "pending" {
		t.Fatalf("conversion: %+v, %v", res, err)
	}
	if _, _, err := b.Bookings.Core().Decide(ctx, reservation.Decision{Reference: ref, To: reservation.Confirmed, By: "desk"}); err != nil {
		t.Fatal(err)
	}
	rel, err := b.ReleaseSlot(ctx, b.call, h.Hold.ID)
	if err != nil || rel.Hold == nil || rel.Hold.Status != usp.HoldConverted {
		t.Fatalf("release after staff confirmed: %+v, %v", rel, err)
	}
	if r, _ := reservation.Get(ctx, b.Store, ref); r.State != reservation.Confirmed || !r.Held {
		t.Fatalf("the platform's release after staff confirmed left %s held %v", r.State, r.Held)
	}
}

// TestLegacyHoldLapses: a hold stored as a reservation awaiting staff,
// before holds had a state of their own, still lapses at its deadline
// and frees its place.
func TestLegacyHoldLapses(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	h, err := b.HoldSlot(ctx, b.call, usp.HoldRequest{SlotID: s.ID, ServiceID: s.ServiceID})
	if err != nil || h.Hold == nil {
		t.Fatal(err)
	}
	ref := h.Hold.ID[len("hold_"):]
	r, err := reservation.Get(ctx, b.Store, ref)
	if err != nil {
		t.Fatal(err)
	}
	r.State, r.HoldExpires = reservation.Reserved, time.Time{} // as the old code stored it
	if _, err := b.Store.Apply(ctx, []store.Write{reservation.Save(r, b.Clock.Now())}); err != nil {
		t.Fatal(err)
	}
	b.Clock.Advance(usp.HoldTTL)
	if n, err := b.Expire(ctx); err != nil || n != 1 {
		t.Fatalf("expired %d, %v; want the legacy hold", n, err)
	}
	if r, _ := reservation.Get(ctx, b.Store, ref); r.State != reservation.Cancelled || r.Held {
		t.Fatalf("legacy hold after its deadline: %s held %v", r.State, r.Held)
	}
}

// TestBookingShowsItsPrice: a stay's booking carries its price as a
// payment paid at the property (§2.2.2): nothing due online, the amount
// before tax and the tax as the price lines split the total, valid for
// the schema; a timed service's booking carries its places at the
// price of one, untaxed.
func TestBookingShowsItsPrice(t *testing.T) {
	b := newBench(t)
	ctx := context.Background()
	s := b.slot(t, "svc_riverside_double", "2026-03-02")
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatalf("create: %+v, %v", res, err)
	}
	check(t, "Booking", res.Booking)
	r, err := reservation.Get(ctx, b.Store, res.Booking.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Booking.Payment
	if p == nil || p.Status != "not_required" || p.Timing != "at_service" || p.AmountDue != 0 || p.Currency != "USD" || p.TaxAmount <= 0 || p.Amount+p.TaxAmount != r.Total {
		t.Fatalf("payment = %+v for a total of %d", p, r.Total)
	}
	shuttle := b.slot(t, "svc_airport_shuttle", "2026-03-02")
	res, err = b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: shuttle.ServiceID, SlotID: shuttle.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatalf("timed booking: %+v, %v", res, err)
	}
	check(t, "Booking", res.Booking)
	p = res.Booking.Payment
	if p == nil || p.Status != "not_required" || p.Timing != "at_service" || p.Amount != 2500 || p.TaxAmount != 0 || p.AmountDue != 0 || p.Currency != "USD" {
		t.Fatalf("timed booking's payment = %+v", p)
	}
}

// TestBookingPriceHasFees: a stay in a room with fees carries them in
// the payment's amount before tax, and the tax on the taxable ones, so
// amount + tax_amount is the total the site shows.
func TestBookingPriceHasFees(t *testing.T) {
	cfg := config.Demo()
	for i, u := range cfg.Locations[0].Units {
		if u.Type == "double" {
			cfg.Locations[0].Units[i].Fees = []business.Fee{
				{Name: "Cleaning fee", Amount: "35.00", Per: business.FeePerStay, Taxable: true},
				{Name: "Resort fee", Amount: "10.00", Per: business.FeePerNight},
			}
		}
	}
	plat := usptest.NewPlatforms(t, map[string]string{"/full.json": fullProfile})
	b := &bench{Business: usptest.NewBusiness(t, usptest.WithPlatform(usptest.Manual(cfg)), usptest.Now, plat, nil), plat: plat, call: platformCall(plat)}
	ctx := context.Background()
	s := b.slot(t, "svc_riverside_double", "2026-03-02")
	res, err := b.CreateBooking(ctx, b.call, usp.CreateRequest{ServiceID: s.ServiceID, SlotID: s.ID, Buyer: ada})
	if err != nil || res.Booking == nil {
		t.Fatalf("create: %+v, %v", res, err)
	}
	check(t, "Booking", res.Booking)
	r, err := reservation.Get(ctx, b.Store, res.Booking.ID)
	if err != nil {
		t.Fatal(err)
	}
	nights := int64(len(r.Slots))
	rates := 11900 * nights
	fees := 3500 + 1000*nights
	tax := (rates + 3500) * 1075 / 10000 // the resort fee is untaxed; rounded half up below
	if (rates+3500)*1075%10000 >= 5000 {
		tax++
	}
	p := res.Booking.Payment
	if p == nil || p.Amount != rates+fees || p.TaxAmount != tax || r.Total != rates+fees+tax {
		t.Fatalf("payment = %+v for a total of %d, want %d + %d", p, r.Total, rates+fees, tax)
	}
}
