package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/pgtest"
)

// refuseWrites makes every table of the store behind dsn refuse writes
// with PostgreSQL's disk-full error while reads still answer: a full or
// write-protected disk, as the server sees it.
func refuseWrites(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	stmts := []string{`CREATE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`}
	for _, table := range []string{"records", "slots", "holds", "hold_slots", "reservations"} {
		stmts = append(stmts, "CREATE TRIGGER refuse_write BEFORE INSERT OR UPDATE OR DELETE ON "+table+" FOR EACH STATEMENT EXECUTE FUNCTION refuse_write()")
	}
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestReadOnlyStore serves from a store that answers reads and refuses
// writes (disk full): /readyz reports it (503), and a chat booking start,
// whose write of the shared code counter fails, answers with §13's fixed
// pause response ("Chat booking is briefly paused.") and sends no code.
func TestReadOnlyStore(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t)
	m := startMain(t, dsn)
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	start := func(email string) *mcp.CallToolResult {
		res, _ := callTool(t, cs, "start_booking", map[string]any{
			"property": "riverside", "roomtype": "double", "checkin": "2026-12-30", "checkout": "2027-01-02",
			"guest_name": "Ada Lovelace", "email": email, "phone": "+1 303 555 0199",
		})
		return res
	}
	// One start while the disk takes writes, so the store holds what a
	// running business has (its keys among them) before the disk fills.
	if res := start("ada@example.com"); res.IsError {
		t.Fatalf("start_booking = %q", text(res))
	}
	refuseWrites(t, dsn)

	resp, err := http.Get(m.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz on a read-only store = %d %q, want 503", resp.StatusCode, body)
	}

	res := start("grace@example.com")
	if got := text(res); !res.IsError || !strings.HasPrefix(got, "Chat booking is briefly paused.") {
		t.Fatalf("start_booking on a read-only store = %q, want the pause sentence", got)
	}
}
