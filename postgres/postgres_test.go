package postgres

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"frontdesk/internal/pgtest"
	"frontdesk/internal/sqlmigrate"
	"frontdesk/store"
	"frontdesk/store/sqlstore"
	"frontdesk/storetest"
)

// open opens a store on url and closes it when t ends, before the schema
// is dropped.
func open(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open = %v, want nil", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestContract(t *testing.T) {
	pgtest.DSN(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, pgtest.Schema(t))
	})
}

// TestConcurrentOpens starts several instances on one empty schema at
// once: the advisory lock lets one migrate while the others wait, and all
// of them open.
func TestConcurrentOpens(t *testing.T) {
	url := pgtest.Schema(t)
	const n = 4
	dbs := make([]*DB, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { dbs[i], errs[i] = Open(t.Context(), url) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Open %d = %v, want nil", i, errs[i])
		}
		t.Cleanup(func() { dbs[i].Close() })
		if err := dbs[i].Ready(t.Context()); err != nil {
			t.Fatalf("Ready %d = %v, want nil", i, err)
		}
	}

	ms, err := loadMigrations()
	if err != nil {
		t.Fatalf("loadMigrations = %v, want nil", err)
	}
	if err := sqlmigrate.Verify(t.Context(), querier{dbs[0].pool}, ms); err != nil {
		t.Fatalf("schema_migrations: %v", err)
	}
}

// TestReopenKeepsData opens a migrated schema again: the data is there and
// no migration runs twice (0001 would fail on CREATE TABLE).
func TestReopenKeepsData(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := t.Context()
	first := open(t, url)
	r := store.Record{Kind: "intent", Key: "k", Value: []byte("v"), UpdatedAt: at()}
	if _, err := first.Create(ctx, r); err != nil {
		t.Fatalf("Create = %v, want nil", err)
	}
	first.Close()

	got, err := open(t, url).Get(ctx, "intent", "k")
	if err != nil {
		t.Fatalf("Get after reopen = %v, want nil", err)
	}
	if string(got.Value) != "v" || got.Version != 1 {
		t.Fatalf("Get after reopen = %q v%d, want %q v%d", got.Value, got.Version, "v", 1)
	}
}

// at is the instant these tests write with.
func at() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }

func TestUpgrade(t *testing.T) {
	pgtest.DSN(t)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	storetest.Upgrade(t, storetest.Engine{
		Migrations: ms,
		Fresh: func(t *testing.T) (string, func(string, ...any) error) {
			url := pgtest.Schema(t)
			conn, err := pgx.Connect(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(context.Background()) })
			return url, func(q string, args ...any) error {
				_, err := conn.Exec(t.Context(), q, args...)
				return err
			}
		},
		Open: func(t *testing.T, url string, ms []sqlmigrate.Migration) (store.Store, error) {
			cfg, err := pgxpool.ParseConfig(url)
			if err != nil {
				return nil, err
			}
			db, err := openConfig(t.Context(), cfg, ms)
			if err != nil {
				return nil, err
			}
			return db, nil
		},
	})
}

// TestReservationPlans: a window read's index condition closes the range
// of first slots at both ends, and a search reads one range of the index
// of terms per prefix, so neither grows with the history kept. Sequential
// scans are turned off so the planner shows its index plan on a small
// table, as it chooses it on a large one.
func TestReservationPlans(t *testing.T) {
	url := pgtest.Schema(t)
	db := open(t, url)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	plan := func(query string, args []any) string {
		t.Helper()
		rows, err := conn.Query(t.Context(), "EXPLAIN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	closed := regexp.MustCompile(`Index Cond: .*first_slot >= .* AND .*first_slot < `)
	for _, f := range []store.ReservationFilter{
		{Location: "riverside", From: "2026-12-01", To: "2026-12-15", Limit: 100},
		{Location: "riverside", From: "2026-12-05", To: "2026-12-07", States: []string{"reserved", "confirmed"}, Limit: 1000},
		{From: "2026-12-01", To: "2026-12-15", Limit: 100},
	} {
		query, args := sqlstore.ListQuery(f, 30)
		if got := plan(query, args); !closed.MatchString(got) {
			t.Errorf("window %+v reads:\n%s\nwant a range of first slots closed at both ends", f, got)
		}
	}
	query, args, err := db.Dialect.SearchQuery(store.ReservationSearch{Any: [][]string{{"ana", "mor"}, {"#anamor"}}, Near: "2026-12-01", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := plan(query, args)
	if n := strings.Count(got, "Index Cond: ((term >= "); n != 3 {
		t.Errorf("search reads:\n%s\nwant one range of the index of terms per prefix", got)
	}
	if strings.Contains(got, "Seq Scan") {
		t.Errorf("search scans a table:\n%s", got)
	}
}
