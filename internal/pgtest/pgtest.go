// Package pgtest gives tests a fresh PostgreSQL schema on the server named
// by FRONTDESK_TEST_POSTGRES, dropped when the test ends. It imports pgx,
// internal/citest and the standard library only, and is used by tests alone.
package pgtest

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"frontdesk/internal/citest"
)

// DSN returns FRONTDESK_TEST_POSTGRES. When it is unset the test is
// skipped, except under CI (CI=true), where it fails: .ci/run sets it, so
// a CI run without PostgreSQL cannot pass by skipping.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("FRONTDESK_TEST_POSTGRES")
	if dsn == "" {
		citest.Missing(t, "FRONTDESK_TEST_POSTGRES is not set; set it to a PostgreSQL URL, such as postgres://postgres@127.0.0.1:5432/test?sslmode=disable, to run the PostgreSQL tests")
	}
	return dsn
}

// Schema creates an empty schema with a random name, drops it when t ends,
// and returns a URL whose search_path selects it.
func Schema(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	schema := "frontdesk_test_" + strings.ToLower(rand.Text())
	Exec(t, dsn, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { Exec(t, dsn, "DROP SCHEMA "+schema+" CASCADE") })
	if !strings.Contains(dsn, "://") {
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse FRONTDESK_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Exec runs one statement on its own connection. It does not use
// t.Context, which is already cancelled when cleanups run.
func Exec(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to FRONTDESK_TEST_POSTGRES: %v", err)
	}
	defer func() {
		if err := conn.Close(ctx); err != nil {
			t.Error(err)
		}
	}()
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
