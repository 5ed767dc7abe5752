package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"frontdesk/internal/pgtest"
)

// hangTables takes every table of the store behind dsn in an exclusive
// lock that lasts until the test ends, so each statement that touches one
// waits forever: a frozen database, as the server sees it.
func hangTables(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE records, slots, holds, hold_slots, reservations IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tx.Rollback(ctx)
		conn.Close(ctx)
	})
}

// within fails the test when took passed limit, with some slack for a
// loaded machine.
func within(t *testing.T, what string, took, limit time.Duration) {
	t.Helper()
	if took > limit+3*time.Second {
		t.Fatalf("%s took %v on a hung database, want at most %v", what, took, limit)
	}
}

// withinExactly fails the test when took passed limit by more than the
// time a loaded machine takes to schedule a goroutine: a command's
// stated deadline.
func withinExactly(t *testing.T, what string, took, limit time.Duration) {
	t.Helper()
	if took > limit+500*time.Millisecond {
		t.Fatalf("%s took %v on a hung database, want at most %v", what, took, limit)
	}
}

// TestDeadlinesWithAHungDatabase freezes the PostgreSQL tables under a
// running server and under the commands: a chat search answers with the
// outage wording within the hub deadline (in practice within the 4-second
// store request limit), `frontdesk sweep` ends within its 24 seconds and
// `frontdesk staff list` within 25, each with an error. Before, they took
// 47 to 70 seconds, or as long as the database hung.
func TestDeadlinesWithAHungDatabase(t *testing.T) {
	dsn := pgtest.Schema(t)
	m := startMain(t, dsn)
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	hangTables(t, dsn)

	t.Run("find_rooms", func(t *testing.T) {
		t.Parallel()
		began := time.Now()
		res, _ := callTool(t, cs, "find_rooms", map[string]any{"property": "riverside", "checkin": "2026-12-30", "checkout": "2027-01-02"})
		within(t, "find_rooms", time.Since(began), 44*time.Second)
		if !res.IsError || !strings.HasPrefix(text(res), "Availability cannot be checked right now.") {
			t.Fatalf("find_rooms on a hung database = %q, want the outage wording", text(res))
		}
	})
	t.Run("sweep", func(t *testing.T) {
		t.Parallel()
		began := time.Now()
		_, _, err := runCmd(t, "sweep", "--database", dsn, "--data", t.TempDir())
		withinExactly(t, "frontdesk sweep", time.Since(began), passDeadline)
		if err == nil || err.Error() != "sweep: the database did not answer within 24 s" {
			t.Fatalf("sweep on a hung database = %v, want the database's silence named", err)
		}
	})
	t.Run("staff list", func(t *testing.T) {
		t.Parallel()
		began := time.Now()
		_, _, err := runCmd(t, "staff", "list", "--database", dsn, "--data", t.TempDir())
		withinExactly(t, "frontdesk staff list", time.Since(began), staffCommandDeadline)
		if err == nil || err.Error() != "staff list: the database did not answer within 25 s" {
			t.Fatalf("staff list on a hung database = %v, want the database's silence named", err)
		}
	})
}
