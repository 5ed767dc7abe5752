package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"frontdesk/internal/sqlmigrate"
	"frontdesk/store"
)

// PreviousRelease is the number of migrations the last release shipped:
// its schema is what an upgrade starts from. The release procedure
// (docs/operating.md) raises it when a release ships new migrations.
const PreviousRelease = 2

// previousMigrationsTable is schema_migrations as releases before
// checksums created it, on both engines.
const previousMigrationsTable = `CREATE TABLE schema_migrations (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL)`

// Engine is what the upgrade suite needs of a store engine.
type Engine struct {
	// Migrations are the ones this binary embeds.
	Migrations []sqlmigrate.Migration
	// Fresh returns a new, empty database and a function that runs one
	// raw statement on it (a script when there are no arguments).
	Fresh func(t *testing.T) (db string, exec func(query string, args ...any) error)
	// Open opens the store on db with migrations ms, as a binary that
	// embeds ms would. The suite closes what it opens.
	Open func(t *testing.T, db string, ms []sqlmigrate.Migration) (store.Store, error)
}

// Upgrade checks what a binary does at start with a schema from another
// release: it migrates the previous release's schema and data forward
// intact, refuses a schema newer than it knows naming both versions, and
// refuses an applied migration whose file was edited.
func Upgrade(t *testing.T, e Engine) {
	t.Run("FromPreviousRelease", func(t *testing.T) { testUpgradeFrom(t, e, PreviousRelease) })
	// Every older schema too: a store left at any earlier migration moves
	// forward through all the later ones with its data.
	for n := 1; n < PreviousRelease; n++ {
		t.Run(fmt.Sprintf("FromMigration%d", n), func(t *testing.T) { testUpgradeFrom(t, e, n) })
	}
	t.Run("ReservationsBeforeTheSearchIndex", func(t *testing.T) { testUpgradeReservations(t, e) })
	t.Run("RefusesNewerSchema", func(t *testing.T) { testRefusesNewer(t, e) })
	t.Run("RefusesEditedMigration", func(t *testing.T) { testRefusesEdited(t, e) })
}

func mustExec(t *testing.T, exec func(string, ...any) error, query string, args ...any) {
	t.Helper()
	if err := exec(query, args...); err != nil {
		t.Fatalf("%s: %v", strings.SplitN(query, "\n", 2)[0], err)
	}
}

// testUpgradeFrom builds the schema of the first n migration files as
// releases before checksums applied them, writes data the way they did
// (into the tables of the first migration, which every schema has), and
// opens the store with this binary's migrations.
func testUpgradeFrom(t *testing.T, e Engine, n int) {
	db, exec := e.Fresh(t)
	mustExec(t, exec, previousMigrationsTable)
	for _, m := range e.Migrations[:n] {
		mustExec(t, exec, m.SQL)
		mustExec(t, exec, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
	}
	ns := at().UnixNano()
	mustExec(t, exec, `INSERT INTO records (kind, key, value, version, updated_at) VALUES ($1, $2, $3, $4, $5)`,
		"booking-intent", "b1", []byte(`{"state":"open"}`), 3, ns)
	mustExec(t, exec, `INSERT INTO slots (location, unit, slot, held, version) VALUES ($1, $2, $3, $4, $5)`,
		"riverside", "double", "2026-12-01", 1, 1)
	mustExec(t, exec, `INSERT INTO holds (id, location, unit, units, created_at) VALUES ($1, $2, $3, $4, $5)`,
		"h1", "riverside", "double", 1, ns)
	mustExec(t, exec, `INSERT INTO hold_slots (hold_id, slot) VALUES ($1, $2)`, "h1", "2026-12-01")

	s, err := e.Open(t, db, e.Migrations)
	if err != nil {
		t.Fatalf("Open on the previous release's schema = %v, want nil", err)
	}
	defer func() { _ = s.Close() }() // read or written already; the operation's own error decided the outcome
	ctx := t.Context()
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("Ready after the upgrade = %v, want nil", err)
	}
	r, err := s.Get(ctx, "booking-intent", "b1")
	if err != nil || string(r.Value) != `{"state":"open"}` || r.Version != 3 || !r.UpdatedAt.Equal(at()) {
		t.Fatalf("Get after the upgrade = %q v%d at %v, %v; want the record as written", r.Value, r.Version, r.UpdatedAt, err)
	}
	counts, err := s.Counts(ctx, "riverside", "2026-12-01", "2026-12-02")
	if got, want := fmt.Sprint(counts, err), fmt.Sprint([]store.Count{{Unit: "double", Slot: "2026-12-01", Held: 1}}, nil); got != want {
		t.Fatalf("Counts after the upgrade = %s, want %s", got, want)
	}
	if err := s.Release(ctx, "h1", at()); err != nil {
		t.Fatalf("Release of a hold made before the upgrade = %v, want nil", err)
	}
	counts, err = s.Counts(ctx, "riverside", "2026-12-01", "2026-12-02")
	if err != nil || len(counts) > 0 && counts[0].Held != 0 {
		t.Fatalf("Counts after Release = %v, %v; want the slot free", counts, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	// The second start finds the checksums recorded by the first.
	s, err = e.Open(t, db, e.Migrations)
	if err != nil {
		t.Fatalf("second Open after the upgrade = %v, want nil", err)
	}
	_ = s.Close() // read or written already; the operation's own error decided the outcome
}

// testUpgradeReservations writes a year-long stay into the schema of the
// first three migrations, before the search index and the span column,
// and checks that a window read late in the stay still finds it (its span
// was computed by the migration) and that an index write makes it
// searchable without changing its row.
func testUpgradeReservations(t *testing.T, e Engine) {
	db, exec := e.Fresh(t)
	mustExec(t, exec, previousMigrationsTable)
	for _, m := range e.Migrations[:3] {
		mustExec(t, exec, m.SQL)
		mustExec(t, exec, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
	}
	mustExec(t, exec, `INSERT INTO reservations (reference, location, unit, first_slot, last_slot, state, source, contact_key, value, version, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		"LONG", "riverside", "double", "2025-12-01", "2026-11-30", "confirmed", "staff", "k", []byte(`{}`), 4, at().UnixNano())
	s, err := e.Open(t, db, e.Migrations)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer func() { _ = s.Close() }() // read or written already; the operation's own error decided the outcome
	ctx := t.Context()
	got, err := s.ListReservations(ctx, store.ReservationFilter{From: "2026-11-20", To: "2026-11-21", Limit: 10})
	if err != nil || len(got) != 1 || got[0].Reference != "LONG" {
		t.Fatalf("a window late in a stay kept from before = %v, %v; want LONG", refsOf(got), err)
	}
	if _, err := s.Apply(ctx, []store.Write{{Op: store.OpIndexReservation, Reservation: &store.Reservation{Reference: "LONG", Version: 4, Terms: []string{"long"}}}}); err != nil {
		t.Fatalf("index a reservation kept from before = %v", err)
	}
	found, err := s.SearchReservations(ctx, store.ReservationSearch{Any: [][]string{{"lo"}}, Near: "2026-12-01", Limit: 10})
	if err != nil || len(found) != 1 || found[0].Version != 4 {
		t.Fatalf("search after indexing = %+v, %v; want LONG at version 4", found, err)
	}
}

// testRefusesNewer migrates with one migration more than this binary
// knows, as the next release would, then starts this binary on it.
func testRefusesNewer(t *testing.T, e Engine) {
	db, _ := e.Fresh(t)
	latest := e.Migrations[len(e.Migrations)-1]
	next := latest.Version + 1
	future := sqlmigrate.Migration{Version: next, Name: fmt.Sprintf("%04d_future.sql", next), SQL: `CREATE TABLE future_table (id TEXT PRIMARY KEY)`}
	future.Checksum = sqlmigrate.Checksum([]byte(future.SQL))
	s, err := e.Open(t, db, append(e.Migrations[:len(e.Migrations):len(e.Migrations)], future))
	if err != nil {
		t.Fatalf("Open by the newer release = %v, want nil", err)
	}
	if _, err := s.Create(t.Context(), store.Record{Kind: "k", Key: "kept", Value: []byte("v"), UpdatedAt: at()}); err != nil {
		t.Fatalf("Create = %v", err)
	}
	_ = s.Close() // read or written already; the operation's own error decided the outcome

	s, err = e.Open(t, db, e.Migrations)
	var tooNew *sqlmigrate.TooNewError
	if !errors.As(err, &tooNew) {
		if s != nil {
			_ = s.Close() // read or written already; the operation's own error decided the outcome
		}
		t.Fatalf("Open by this binary on a newer schema = %v, want a *sqlmigrate.TooNewError", err)
	}
	for _, want := range []string{fmt.Sprintf("version %d (%s)", next, future.Name), fmt.Sprintf("version %d, %s", latest.Version, latest.Name)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// The refusal changed nothing: the newer release still opens it.
	s, err = e.Open(t, db, append(e.Migrations[:len(e.Migrations):len(e.Migrations)], future))
	if err != nil {
		t.Fatalf("Open by the newer release after the refusal = %v, want nil", err)
	}
	defer func() { _ = s.Close() }() // read or written already; the operation's own error decided the outcome
	if _, err := s.Get(t.Context(), "k", "kept"); err != nil {
		t.Fatalf("Get after the refusal = %v, want the record", err)
	}
}

// testRefusesEdited records a different checksum for an applied migration,
// as a database migrated from an edited file would have.
func testRefusesEdited(t *testing.T, e Engine) {
	db, exec := e.Fresh(t)
	s, err := e.Open(t, db, e.Migrations)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	_ = s.Close() // read or written already; the operation's own error decided the outcome
	mustExec(t, exec, `UPDATE schema_migrations SET checksum = $1 WHERE version = 1`, strings.Repeat("0", 64))
	s, err = e.Open(t, db, e.Migrations)
	var edited *sqlmigrate.ChecksumError
	if !errors.As(err, &edited) {
		if s != nil {
			_ = s.Close() // read or written already; the operation's own error decided the outcome
		}
		t.Fatalf("Open with an edited migration = %v, want a *sqlmigrate.ChecksumError", err)
	}
	if got, want := edited.Version, 1; got != want || !strings.Contains(err.Error(), e.Migrations[0].Name) {
		t.Fatalf("ChecksumError = %v, want one naming migration 1, %s", err, e.Migrations[0].Name)
	}
}
