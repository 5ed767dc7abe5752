package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"frontdesk/internal/pgtest"
	"frontdesk/store"
)

// TestOutages: a read-only transaction's write and a statement that
// waited past its deadline on a locked table are outages; a duplicate
// key is not. The errors are PostgreSQL's own.
func TestOutages(t *testing.T) {
	url := pgtest.Schema(t)
	db := open(t, url)
	ctx := context.Background()
	if _, err := db.Create(ctx, store.Record{Kind: "k", Key: "a", Value: []byte("1"), UpdatedAt: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	insert := `INSERT INTO records (kind, key, value, version, updated_at) VALUES ('k', 'a', '\x31', 1, 0)`
	_, dup := conn.Exec(ctx, insert)
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	_, readOnly := tx.Exec(ctx, `INSERT INTO records (kind, key, value, version, updated_at) VALUES ('k', 'b', '\x31', 1, 0)`)
	tx.Rollback(ctx)
	lock, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(ctx, `LOCK TABLE records IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	late, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, waited := db.Get(late, "k", "a")
	lock.Rollback(ctx)
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"duplicate key", dup, false},
		{"read-only transaction", readOnly, true},
		{"locked past the deadline", waited, true},
		{"nil", nil, false},
	} {
		if c.want && c.err == nil {
			t.Fatalf("%s: no error to classify", c.name)
		}
		if got := db.IsOutage(c.err); got != c.want {
			t.Errorf("IsOutage(%s: %v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
