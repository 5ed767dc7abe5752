package office

import (
	"context"
	"testing"
	"time"

	"frontdesk/reservation"
)

// TestDashboard: two chat stays at Riverside in the week of 2026-12-28
// hold 6 of its 42 room-nights that week, count as two chat arrivals and
// two reservations awaiting staff; a form request counts as a request;
// a clerk's dashboard of Old Town sees none of it.
func TestDashboard(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	w.book(stayArgs())
	w.book(stayArgs("email", "bob@example.com", "roomtype", "single"))
	if _, err := w.booker.Core().Submit(ctx, formRequest(t)); err != nil {
		t.Fatal(err)
	}
	d, err := w.svc.Dashboard(ctx, []string{"riverside"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Occupancy["riverside"][4], 6.0/42; got != want {
		t.Errorf("occupancy in week 4 = %v, want %v", got, want)
	}
	if got := d.BySource["chat"][4]; got != 2 {
		t.Errorf("chat arrivals in week 4 = %d, want 2", got)
	}
	if d.Pending != 2 || d.Requests != 1 || d.Undelivered != 0 || d.Weeks[4].String() != "2026-12-28" {
		t.Errorf("counts = pending %d, requests %d, undelivered %d; week 4 starts %s", d.Pending, d.Requests, d.Undelivered, d.Weeks[4])
	}
	other, err := w.svc.Dashboard(ctx, []string{"oldtown"})
	if err != nil || other.Pending != 0 || other.Requests != 0 || len(other.BySource) != 0 || other.Occupancy["riverside"] != nil {
		t.Fatalf("Old Town's dashboard = %+v, %v", other, err)
	}
}

// TestDashboardLeavesHoldsOut: a platform's tentative hold holds its
// room in the occupancy chart but is neither an arrival, a reservation
// by source nor one awaiting staff.
func TestDashboardLeavesHoldsOut(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	if _, err := w.booker.Core().Book(ctx, reservation.BookRequest{Location: "riverside", Unit: "double", Slots: []string{"2026-12-30"},
		Source: reservation.USP("acme"), Kind: reservation.KindHold, Expires: testNow.Add(10 * time.Minute), By: "usp:acme"}); err != nil {
		t.Fatal(err)
	}
	d, err := w.svc.Dashboard(ctx, []string{"riverside"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Occupancy["riverside"][4] == 0 || len(d.BySource) != 0 || d.Pending != 0 || d.Requests != 0 {
		t.Fatalf("dashboard with a hold = occupancy %v, sources %v, pending %d, requests %d", d.Occupancy["riverside"], d.BySource, d.Pending, d.Requests)
	}
}

// TestDashboardLeavesLapsedCheckoutsOut: a platform's booking whose
// places lapsed unpaid (a UCP checkout that can still be completed)
// holds nothing and waits for its platform: it is no request for staff.
func TestDashboardLeavesLapsedCheckoutsOut(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	r, err := w.booker.Core().Book(ctx, reservation.BookRequest{Location: "riverside", Unit: "double", Slots: []string{"2026-12-30"},
		Source: reservation.USP("acme"), Kind: reservation.KindBooking, By: "usp:acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.booker.Core().Desk().Lapse(ctx, reservation.Change{Read: r, By: "sweep", At: testNow}); err != nil {
		t.Fatal(err)
	}
	d, err := w.svc.Dashboard(ctx, []string{"riverside"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Pending != 0 || d.Requests != 0 {
		t.Fatalf("dashboard with a lapsed checkout = pending %d, requests %d", d.Pending, d.Requests)
	}
}
