package reservation

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"frontdesk/internal/pgtest"
	"frontdesk/postgres"
	"frontdesk/store"
)

// TestMoveAnnouncesToUSPPlatforms: a transition of a USP platform's
// reservation into a state with a booking event adds one outbox write to
// the same Apply, with an event id fixed by the reference and the version
// the transition commits; other doors' reservations and states without an
// event add none.
func TestMoveAnnouncesToUSPPlatforms(t *testing.T) {
	want := map[State]string{
		Confirmed: "booking.confirmed", Declined: "booking.canceled", Cancelled: "booking.canceled",
		Completed: "booking.completed", NoShow: "booking.no_show", Moved: "booking.rescheduled",
	}
	for _, source := range []Source{USP("acme"), SourceChat, SourceForm, SourceStaff, "usp:"} {
		for _, from := range []State{Requested, Reserved, Confirmed} {
			for _, to := range States() {
				if !from.CanMove(to) {
					continue
				}
				r := Reservation{Reference: "AIR-X1", State: from, Source: source, Version: 4, Slots: []string{"2026-12-01T10:00"}}
				moved, writes, err := Move(r, to, "staff", "", now, nil)
				if err != nil {
					t.Fatal(err)
				}
				var events []store.Write
				for _, w := range writes {
					if w.Op == store.OpCreate && w.Record.Kind == OutboxKind {
						events = append(events, w)
					}
				}
				typ, announced := want[to]
				if source != USP("acme") {
					announced = false
				}
				if !announced {
					if len(events) != 0 {
						t.Fatalf("%s %s→%s queued %d events, want none", source, from, to, len(events))
					}
					continue
				}
				if len(events) != 1 {
					t.Fatalf("%s %s→%s queued %d events, want one", source, from, to, len(events))
				}
				var e Event
				if err := json.Unmarshal(events[0].Record.Value, &e); err != nil {
					t.Fatal(err)
				}
				var snap Reservation
				json.Unmarshal(e.Reservation, &snap)
				if e.ID != "evt_AIR-X1_0000000005" || events[0].Record.Key != e.ID || e.Type != typ || e.Platform != "acme" ||
					e.Reference != "AIR-X1" || !e.At.Equal(now) || snap.State != moved.State {
					t.Fatalf("%s→%s: event %+v", from, to, e)
				}
			}
		}
	}
}

// TestEventIDsSortCausally: the outbox lists a reservation's events in
// the order of their versions.
func TestEventIDsSortCausally(t *testing.T) {
	if a, b := EventID("AIR-1", 9), EventID("AIR-1", 10); a >= b {
		t.Fatalf("%s sorts after %s", a, b)
	}
}

// TestResaveRefreshesTheEvent: a change made after Move reaches both the
// saved reservation and the event's snapshot.
func TestResaveRefreshesTheEvent(t *testing.T) {
	r := Reservation{Reference: "AIR-X2", State: Reserved, Source: USP("acme"), Version: 7, Slots: []string{"2026-12-01T10:00"}}
	moved, writes, err := Move(r, Cancelled, "platform", "", now, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved.Notes = "cancelled: flight moved"
	Resave(writes, moved, now)
	var saved Reservation
	json.Unmarshal(writes[0].Reservation.Value, &saved)
	var e Event
	var snap Reservation
	for _, w := range writes {
		if w.Record.Kind == OutboxKind {
			json.Unmarshal(w.Record.Value, &e)
			json.Unmarshal(e.Reservation, &snap)
		}
	}
	if saved.Notes != moved.Notes || snap.Notes != moved.Notes || e.ID != EventID("AIR-X2", 8) {
		t.Fatalf("saved %q, event %s with %q", saved.Notes, e.ID, snap.Notes)
	}
}

// TestEndDeletesCredentialsInTheSameApply: the credentials issued for a
// USP reservation are read with its claims and deleted by the Apply that
// ends it, those of another reservation stay, and a transition that is
// not an end keeps them. When that Apply fails (here its outbox event
// already exists), neither the reservation nor its credentials change.
func TestEndDeletesCredentialsInTheSameApply(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { endDeletesCredentials(t, openStore(t)) })
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		endDeletesCredentials(t, db)
	})
}

func endDeletesCredentials(t *testing.T, st store.Store) {
	ctx := context.Background()
	r := Reservation{Reference: "AIR-C1", Location: "airport", Unit: "shuttle", Slots: []string{"2026-12-01T10:00"},
		Source: USP("acme"), State: Reserved, CreatedAt: now}
	writes := []store.Write{Create(r, now)}
	for _, key := range []string{"AIR-C1/one", "AIR-C1/two", "AIR-C10/other"} {
		writes = append(writes, store.Write{Op: store.OpCreate, Record: store.Record{Kind: CredentialKind, Key: key, Value: []byte(`{}`), UpdatedAt: now}})
	}
	if _, err := st.Apply(ctx, writes); err != nil {
		t.Fatal(err)
	}
	credentials := func() []string {
		t.Helper()
		recs, err := st.List(ctx, CredentialKind, "", "", 10)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, rec := range recs {
			keys = append(keys, rec.Key)
		}
		return keys
	}
	move := func(to State) []store.Write {
		t.Helper()
		cur, err := Get(ctx, st, r.Reference)
		if err != nil {
			t.Fatal(err)
		}
		versions, err := ClaimVersions(ctx, st, cur)
		if err != nil {
			t.Fatal(err)
		}
		_, ws, err := Move(cur, to, "staff", "", now, versions)
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	all := []string{"AIR-C1/one", "AIR-C1/two", "AIR-C10/other"}

	if _, err := st.Apply(ctx, move(Confirmed)); err != nil {
		t.Fatal(err)
	}
	if got := credentials(); !slices.Equal(got, all) {
		t.Fatalf("after confirming, credentials %v, want %v", got, all)
	}

	// The event of the cancellation exists already: the Apply is refused
	// after its credential deletes, and must take them back.
	ended := move(Cancelled)
	taken := store.Record{Kind: OutboxKind, Key: EventID(r.Reference, 3), Value: []byte(`{}`), UpdatedAt: now}
	if _, err := st.Create(ctx, taken); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Apply(ctx, ended); err == nil {
		t.Fatal("an end whose event exists applied")
	}
	if got, _ := Get(ctx, st, r.Reference); got.State != Confirmed || !slices.Equal(credentials(), all) {
		t.Fatalf("after a refused end: state %s, credentials %v; want confirmed and %v", got.State, credentials(), all)
	}
	if err := st.Delete(ctx, OutboxKind, taken.Key, 1); err != nil {
		t.Fatal(err)
	}

	if _, err := st.Apply(ctx, ended); err != nil {
		t.Fatal(err)
	}
	if got, want := credentials(), []string{"AIR-C10/other"}; !slices.Equal(got, want) {
		t.Fatalf("after cancelling, credentials %v, want %v", got, want)
	}
}
