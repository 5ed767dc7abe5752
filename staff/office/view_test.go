package office

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"frontdesk/direct"
	"frontdesk/reservation"
	"frontdesk/store"
)

func everywhere(string) bool { return true }

// TestStaffViewOfAChatReservation: the view carries the stay, the
// connected span computed by the contact rule, the chat label and
// reminder, a notice that failed as pending and, after the retry window,
// as exhausted, and nothing to repair while index and record agree.
func TestStaffViewOfAChatReservation(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	first := w.book(stayArgs())
	res, err := w.start(ctx, web, stayArgs("checkin", "2027-01-03", "checkout", "2027-01-05"))
	if err != nil {
		t.Fatal(refusalText(err))
	}
	w.mail.failNext(fmt.Errorf("provider down: %w", errNotSentForTest))
	conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode("ada@example.com")))
	if err != nil {
		t.Fatal(refusalText(err))
	}
	v, err := w.svc.StaffView(ctx, conf.ReservationNumber, everywhere)
	if err != nil {
		t.Fatal(err)
	}
	// 2026-12-30 to 2027-01-05 with its one-night gap.
	if v.Span != 6 || v.Nights != 2 || v.Checkin != "2027-01-03" || v.Checkout != "2027-01-05" || v.SourceLabel != "chat" || !v.AgreementAtCheckin {
		t.Fatalf("view = span %d nights %d %s..%s %q agreement %v", v.Span, v.Nights, v.Checkin, v.Checkout, v.SourceLabel, v.AgreementAtCheckin)
	}
	if len(v.Notices) != 2 || len(v.Checks) != 1 || !strings.HasPrefix(v.Checks[0], "Notice delivery pending") {
		t.Fatalf("notices %+v, checks %q", v.Notices, v.Checks)
	}
	w.clock.Advance(direct.NoticeRetryWindow + time.Minute)
	v, _ = w.svc.StaffView(ctx, conf.ReservationNumber, everywhere)
	if len(v.Checks) != 1 || !strings.HasPrefix(v.Checks[0], "Notice delivery exhausted") {
		t.Fatalf("checks after the retry window %q", v.Checks)
	}
	if v, _ := w.svc.StaffView(ctx, first, everywhere); len(v.Checks) != 0 || v.Span != 6 {
		t.Fatalf("first stay: span %d, checks %q", v.Span, v.Checks)
	}
	if _, err := w.svc.StaffView(ctx, first, func(slug string) bool { return slug == "oldtown" }); !errors.Is(err, reservation.ErrNoReservation) {
		t.Fatalf("out of scope: %v", err)
	}
}

// TestStaffViewShowsAnInterruptedHold: a reservation whose hold is gone
// from the index, and one cancelled while the index still holds its
// room, are both named for staff to check.
func TestStaffViewShowsAnInterruptedHold(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ref := w.book(stayArgs())
	if err := w.st.Release(ctx, ref, testNow); err != nil {
		t.Fatal(err)
	}
	v, _ := w.svc.StaffView(ctx, ref, everywhere)
	if len(v.Checks) != 1 || !strings.Contains(v.Checks[0], "no room is held") {
		t.Fatalf("checks %q", v.Checks)
	}
	other := w.book(stayArgs("property", "oldtown", "email", "bob@example.com"))
	r, _ := reservation.Get(ctx, w.st, other)
	r.State, r.Held = reservation.Cancelled, false
	if _, err := w.st.Apply(ctx, []store.Write{reservation.Save(r, testNow)}); err != nil {
		t.Fatal(err)
	}
	v, _ = w.svc.StaffView(ctx, other, everywhere)
	if len(v.Checks) != 1 || !strings.Contains(v.Checks[0], "still holds a room") {
		t.Fatalf("checks %q", v.Checks)
	}
}

// TestStaffViewWarnsOfUnreadLocations: a chat reservation checked while
// another location's histories could not be read says which, and a
// reservation flagged by the core says why, both for staff to check.
func TestStaffViewWarnsOfUnreadLocations(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ref := w.book(stayArgs())
	r, err := reservation.Get(ctx, w.st, ref)
	if err != nil {
		t.Fatal(err)
	}
	var detail map[string]any
	if err := json.Unmarshal(r.Detail, &detail); err != nil {
		t.Fatal(err)
	}
	detail["uncheckedProperties"] = []string{"oldtown"}
	if r.Detail, err = json.Marshal(detail); err != nil {
		t.Fatal(err)
	}
	r.Attention = "notice setup unfinished"
	if _, err := w.st.Apply(ctx, []store.Write{reservation.Save(r, testNow)}); err != nil {
		t.Fatal(err)
	}
	v, err := w.svc.StaffView(ctx, ref, everywhere)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Unread) != 1 || v.Unread[0] != "oldtown" || len(v.Checks) != 1 || v.Checks[0] != "Flagged for attention: notice setup unfinished" {
		t.Fatalf("unread %q, checks %q", v.Unread, v.Checks)
	}
}

// TestStaffViewPhoneMatches: another guest with the same phone number,
// stored with an extension, is on the staff screen as a phone match, and
// a clerk who may not see that guest's location is shown none.
func TestStaffViewPhoneMatches(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	eve := w.book(stayArgs("property", "oldtown", "guest_name", "Eve Other", "email", "eve@example.net", "phone", "303-555-0199 x12"))
	ada := w.book(stayArgs())
	view, err := w.svc.StaffView(ctx, ada, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if len(view.PhoneMatches) != 1 || view.PhoneMatches[0].Reference != eve {
		t.Fatalf("phone matches on the staff screen = %+v", view.PhoneMatches)
	}
	scoped, err := w.svc.StaffView(ctx, ada, func(slug string) bool { return slug == "riverside" })
	if err != nil || len(scoped.PhoneMatches) != 0 {
		t.Fatalf("a Riverside clerk sees phone matches %+v, %v", scoped.PhoneMatches, err)
	}
}
