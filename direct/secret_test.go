package direct

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"frontdesk/direct/directtest"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/random"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/store"
)

// onEngines runs f on a fresh demo store of each engine: a SQLite file
// and a PostgreSQL schema of its own.
func onEngines(t *testing.T, f func(t *testing.T, w *world)) {
	t.Run("sqlite", func(t *testing.T) { f(t, newWorld(t)) })
	t.Run("postgres", func(t *testing.T) {
		cfg, _ := directtest.Demo(t)
		st, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, newWorldOn(t, cfg, st))
	})
}

// restarted is a new service on w's store and clock, as an instance
// started again finds it, drawing other random bytes.
func (w *world) restarted(seed byte) *world {
	w.t.Helper()
	n := newWorldOn(w.t, w.cfg, w.st)
	n.clock, n.svc.clock, n.svc.rand = w.clock, w.clock, random.SeededBy(seed)
	return n
}

// contactRefused books stay args whose overlap with an earlier stay of
// the same email the contact rules must refuse at confirmation.
func contactRefused(t *testing.T, w *world, a Args) {
	t.Helper()
	ctx := context.Background()
	res, err := w.start(ctx, web, a)
	if err != nil {
		t.Fatalf("start: %s", refusalText(err))
	}
	_, err = w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode(text(a, "email"))))
	if r, ok := AsError(err); !ok || r.Code != CodeContact {
		t.Fatalf("an overlapping stay by the same email = %v, want the contact refusal", refusalText(err))
	}
}

// rotated rotates w's secret and moves the clock past the delay before
// the re-key pass may start.
func (w *world) rotated(t *testing.T) SecretStatus {
	t.Helper()
	st, err := w.svc.RotateSecret(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (w *world) secretStatus(t *testing.T) SecretStatus {
	t.Helper()
	st, err := w.svc.SecretStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// overlap is a stay overlapping stayArgs' by one night at each end.
var overlap = []any{"checkin", "2026-12-31", "checkout", "2027-01-03"}

// TestRotationKeepsContactRules: a rotation in the middle of bookings,
// one started before it and confirmed after, leaves the same-email
// overlap refused, on this instance and on one started afterwards, and
// after the re-key pass retired the old version.
func TestRotationKeepsContactRules(t *testing.T) {
	onEngines(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		first, err := w.start(ctx, web, stayArgs())
		if err != nil {
			t.Fatal(refusalText(err))
		}
		code := w.lastCode("ada@example.com")
		booked, err := w.confirm(ctx, web, args("booking_id", first.BookingID, "code", code))
		if err != nil {
			t.Fatal(refusalText(err))
		}
		replay := func(w *world) (string, string) {
			got, err := w.confirm(ctx, web, args("booking_id", first.BookingID, "code", code))
			if err != nil {
				return "", refusalText(err)
			}
			return got.ReservationNumber, ""
		}
		started, err := w.start(ctx, web, stayArgs("email", "bea@example.com", "property", "oldtown"))
		if err != nil {
			t.Fatal(refusalText(err))
		}
		if st := w.rotated(t); len(st.Versions) != 2 || !st.Rekeying || st.Versions[1].N != 2 {
			t.Fatalf("status after a rotation = %+v", st)
		}
		if _, err := w.confirm(ctx, web, args("booking_id", started.BookingID, "code", w.lastCode("bea@example.com"))); err != nil {
			t.Fatalf("a start from before the rotation: %s", refusalText(err))
		}
		contactRefused(t, w, stayArgs(overlap...))
		contactRefused(t, w, stayArgs(append(overlap, "email", "bea@example.com", "property", "oldtown")...))
		later := w.restarted(3)
		contactRefused(t, later, stayArgs(overlap...))

		if ref, refusal := replay(later); ref != booked.ReservationNumber {
			t.Fatalf("a proof from before the rotation, replayed = %q %s", ref, refusal)
		}

		w.clock.Advance(rekeyDelay)
		w.sweep()
		if st := w.secretStatus(t); len(st.Versions) != 1 || st.Versions[0].N != 2 || st.Rekeying {
			t.Fatalf("status after the pass = %+v", st)
		}
		// The old version retired, and the proofs made under it with it.
		if _, refusal := replay(w.restarted(6)); !strings.HasPrefix(refusal, "Incorrect or expired verification code.") {
			t.Fatalf("a proof of a retired version, replayed = %s", refusal)
		}
		if _, err := w.st.Get(ctx, kindSecret, legacySecretKey); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the retired first version is still in the store: %v", err)
		}
		contactRefused(t, w.restarted(4), stayArgs(overlap...))
		contactRefused(t, w.restarted(5), stayArgs(append(overlap, "email", "bea@example.com", "property", "oldtown")...))
	})
}

// TestRekeyResumes: the re-key pass waits for every instance to read the
// new version, goes a page at a time from its stored cursor, on this
// instance or another, with the old version live and the rules holding
// throughout, and retires the old version only once it read every
// reservation.
func TestRekeyResumes(t *testing.T) {
	onEngines(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		guests := map[string][2]Args{ // a stay each, and one overlapping it
			"ada@example.com": {stayArgs(), stayArgs(overlap...)},
			"bob@example.com": {stayArgs("email", "bob@example.com", "property", "oldtown"),
				stayArgs(append(overlap, "email", "bob@example.com", "property", "oldtown")...)},
			"cy@example.com": {stayArgs("email", "cy@example.com", "checkin", "2027-01-10", "checkout", "2027-01-13"),
				stayArgs("email", "cy@example.com", "checkin", "2027-01-12", "checkout", "2027-01-14")},
		}
		for _, g := range guests {
			w.book(g[0])
		}
		w.rotated(t)
		w.svc.rekeySteps.pages, w.svc.rekeySteps.rows = 1, 1
		w.sweep()
		if st := w.secretStatus(t); len(st.Versions) != 2 || st.Read != 0 {
			t.Fatalf("a pass started before every instance could read the new version: %+v", st)
		}
		w.clock.Advance(rekeyDelay)
		w.sweep()
		if st := w.secretStatus(t); len(st.Versions) != 2 || st.Read != 1 || st.Rewritten != 1 {
			t.Fatalf("after one step = %+v", st)
		}
		contactRefused(t, w, stayArgs(overlap...))

		// The pass goes on where it stopped, on another instance.
		other := w.restarted(6)
		other.svc.rekeySteps.pages, other.svc.rekeySteps.rows = 1, 1
		for i := 0; i < 10 && len(other.secretStatus(t).Versions) > 1; i++ {
			other.sweep()
		}
		st := other.secretStatus(t)
		if len(st.Versions) != 1 || st.Versions[0].N != 2 {
			t.Fatalf("status after the pass = %+v", st)
		}
		ring, _, err := other.svc.loadRing(ctx, other.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := other.st.ListReservations(ctx, store.ReservationFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			r, _ := reservation.FromRow(row)
			e, _ := reservation.ParseEmail(r.Contact.Email)
			if row.ContactKey != keyWith(newest(ring.Versions), "mailbox", e.Normalized) {
				t.Errorf("%s is still keyed under a retired version", row.Reference)
			}
		}
		for _, g := range guests {
			contactRefused(t, other, g[1])
		}
	})
}

// TestMailboxKeysSpanVersions: forgetting a guest finds what was keyed
// under every live version: after a rotation the address's keys name
// both its reservation keyed before and the one keyed after.
func TestMailboxKeysSpanVersions(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	before := w.book(stayArgs())
	w.rotated(t)
	after := w.book(stayArgs("property", "oldtown", "checkin", "2027-02-01", "checkout", "2027-02-03"))
	keys, err := w.svc.MailboxKeys(ctx, " Ada@Example.com", w.clock.Now())
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys = %v, %v; want one for each live version", keys, err)
	}
	for _, ref := range []string{before, after} {
		r, err := w.svc.getBooked(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(keys, r.ContactKey) {
			t.Errorf("%s is keyed under %s, none of %v", ref, r.ContactKey, keys)
		}
	}
	if contacts, _ := w.st.List(ctx, kindContact, keys[1], "", 10); len(contacts) != 1 {
		t.Errorf("the contact marker written before the rotation is not under the old key: %v", contacts)
	}
}

// TestSecretsFromTheEnvironment: versions held in the environment key
// and check, never enter the store, and rotate by adding an entry there;
// the pass waits from when an instance first saw the new entry, and the
// old entry is no longer live once it finished, though still listed.
func TestSecretsFromTheEnvironment(t *testing.T) {
	onEngines(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		env := map[string]string{EnvSecrets: "1:" + strings.Repeat("a1", 32)}
		w.svc.getenv = func(k string) string { return env[k] }
		w.book(stayArgs())
		if _, err := w.svc.RotateSecret(ctx); err == nil || !strings.Contains(err.Error(), EnvSecrets) {
			t.Fatalf("a rotation of versions the environment holds = %v", err)
		}
		env[EnvSecrets] = env[EnvSecrets] + ",\n 2:" + strings.Repeat("b2", 32)
		w.clock.Advance(ringRefresh)
		contactRefused(t, w, stayArgs(overlap...))
		w.sweep()
		if st := w.secretStatus(t); len(st.Versions) != 2 || !st.Starts.Equal(w.clock.Now().Add(rekeyDelay)) {
			t.Fatalf("status once an instance saw the new entry = %+v", st)
		}
		w.clock.Advance(rekeyDelay)
		w.sweep()
		if st := w.secretStatus(t); len(st.Versions) != 1 || st.Versions[0].N != 2 || st.Rekeying {
			t.Fatalf("status after the pass = %+v", st)
		}
		contactRefused(t, w, stayArgs(overlap...))
		ring, _, err := w.svc.loadRing(ctx, w.clock.Now())
		if err != nil || len(ring.Versions) != 0 {
			t.Fatalf("the store holds versions %+v, %v; want none", ring.Versions, err)
		}
		if _, err := w.st.Get(ctx, kindSecret, legacySecretKey); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a secret was drawn into the store: %v", err)
		}
		env[EnvSecrets] = "2:xyz"
		w.clock.Advance(ringRefresh)
		if _, err := w.start(ctx, web, stayArgs("email", "new@example.com")); !strings.HasPrefix(refusalText(err), "This booking cannot be checked right now.") {
			t.Fatalf("a start with a malformed %s = %s", EnvSecrets, refusalText(err))
		}
	})
}
