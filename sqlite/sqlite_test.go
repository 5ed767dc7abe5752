package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/sqlmigrate"
	"frontdesk/store"
	"frontdesk/store/sqlstore"
	"frontdesk/storetest"
)

// at is the instant these tests write with.
func at() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }

// open opens a store on a new file under t.TempDir.
func open(t testing.TB, path string) *DB {
	t.Helper()
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open(%s) = %v, want nil", path, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close = %v, want nil", err)
		}
	})
	return db
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "frontdesk.db"))
	})
}

func TestReopenKeepsData(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "frontdesk.db")

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open = %v, want nil", err)
	}
	if _, err := db.Create(ctx, store.Record{Kind: "intent", Key: "k", Value: []byte("v"), UpdatedAt: at()}); err != nil {
		t.Fatalf("Create = %v, want nil", err)
	}
	hold := store.Hold{ID: "h", Location: "riverside", Unit: "double", Slots: []string{"2026-12-01"}, Units: 1, Capacity: 2, At: at()}
	if err := db.Hold(ctx, hold); err != nil {
		t.Fatalf("Hold = %v, want nil", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close = %v, want nil", err)
	}

	// A second Open would fail on CREATE TABLE if it applied 0001 again.
	db = open(t, path)
	got, err := db.Get(ctx, "intent", "k")
	if err != nil {
		t.Fatalf("Get after reopen = %v, want nil", err)
	}
	if string(got.Value) != "v" || got.Version != 1 {
		t.Fatalf("Get after reopen = %q v%d, want %q v%d", got.Value, got.Version, "v", 1)
	}
	if err := db.Hold(ctx, hold); !errors.Is(err, store.ErrExists) {
		t.Fatalf("Hold after reopen = %v, want %v", err, store.ErrExists)
	}
	if err := db.Release(ctx, "h", at()); err != nil {
		t.Fatalf("Release after reopen = %v, want nil", err)
	}

	ms, err := loadMigrations()
	if err != nil {
		t.Fatalf("loadMigrations = %v, want nil", err)
	}
	if err := sqlmigrate.Verify(ctx, script{db.reader}, ms); err != nil {
		t.Fatalf("schema_migrations: %v", err)
	}
}

// TestTwoHandlesOneFile stands in for two processes on one file: their
// writers serialize on SQLite's lock rather than failing with SQLITE_BUSY,
// and holds through either handle respect one capacity.
func TestTwoHandlesOneFile(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	dbs := []*DB{open(t, path), open(t, path)}

	const capacity, holders = 5, 12
	errs := make(chan error, holders)
	for i := range holders {
		go func() {
			errs <- dbs[i%2].Hold(ctx, store.Hold{
				ID: fmt.Sprintf("h%d", i), Location: "riverside", Unit: "double",
				Slots: []string{"2026-12-01", "2026-12-02"}, Units: 1, Capacity: capacity, At: at(),
			})
		}()
	}
	won := 0
	for range holders {
		switch err := <-errs; {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrFull):
			t.Fatalf("Hold = %v, want nil or %v", err, store.ErrFull)
		}
	}
	if got, want := won, capacity; got != want {
		t.Fatalf("%d holds won, want %d", got, want)
	}
	got, err := dbs[0].Counts(ctx, "riverside", "2026-12-01", "2026-12-03")
	if err != nil {
		t.Fatalf("Counts = %v, want nil", err)
	}
	want := []store.Count{{Unit: "double", Slot: "2026-12-01", Held: capacity}, {Unit: "double", Slot: "2026-12-02", Held: capacity}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Counts = %v, want %v", got, want)
	}
}

func TestOpenRefusesMemory(t *testing.T) {
	for _, path := range []string{"", ":memory:", "file::memory:", "a?b"} {
		if db, err := Open(t.Context(), path); err == nil {
			db.Close()
			t.Fatalf("Open(%q) = nil, want an error", path)
		}
	}
}

func TestTimeOutOfRange(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "frontdesk.db"))
	_, err := db.Create(t.Context(), store.Record{Kind: "intent", Key: "k", Value: []byte("v")})
	if err == nil {
		t.Fatalf("Create with zero UpdatedAt = nil, want an error")
	}
}

func TestUpgrade(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	storetest.Upgrade(t, storetest.Engine{
		Migrations: ms,
		Fresh: func(t *testing.T) (string, func(string, ...any) error) {
			path := filepath.Join(t.TempDir(), "frontdesk.db")
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { raw.Close() })
			return path, func(q string, args ...any) error {
				_, err := raw.ExecContext(t.Context(), q, args...)
				return err
			}
		},
		Open: func(t *testing.T, path string, ms []sqlmigrate.Migration) (store.Store, error) {
			db, err := openMigrations(t.Context(), path, ms)
			if err != nil {
				return nil, err
			}
			return db, nil
		},
	})
}

// TestReservationPlans: a window read uses an index range on first slots
// closed at both ends, and a search one range of the index of terms per
// prefix, so neither grows with the history kept.
func TestReservationPlans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frontdesk.db")
	db := open(t, path)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	plan := func(query string, args []any) string {
		t.Helper()
		rows, err := raw.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			out = append(out, detail)
		}
		return strings.Join(out, "\n")
	}
	windows := []store.ReservationFilter{
		{Location: "riverside", From: "2026-12-01", To: "2026-12-15", Limit: 100},
		{Location: "riverside", From: "2026-12-05", To: "2026-12-07", States: []string{"reserved", "confirmed"}, Limit: 1000},
		{From: "2026-12-01", To: "2026-12-15", Limit: 100},
	}
	for _, f := range windows {
		query, args := sqlstore.ListQuery(f, 30)
		if got := plan(query, args); !strings.Contains(got, "first_slot>? AND first_slot<?") {
			t.Errorf("window %+v reads:\n%s\nwant a range of first slots closed at both ends", f, got)
		}
	}
	query, args, err := db.Dialect.SearchQuery(store.ReservationSearch{Any: [][]string{{"ana", "mor"}, {"#anamor"}}, Near: "2026-12-01", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := plan(query, args)
	if n := strings.Count(got, "reservation_terms USING PRIMARY KEY (term>? AND term<?)"); n != 3 {
		t.Errorf("search reads:\n%s\nwant one range of the index of terms per prefix", got)
	}
	if strings.Contains(got, "SCAN reservations") {
		t.Errorf("search scans the reservations:\n%s", got)
	}
}
