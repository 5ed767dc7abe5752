package sqlite

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"frontdesk/store"
)

// TestOutages: a full disk (the file may not grow), a read-only
// connection and an expired deadline are outages; a duplicate key is not.
// The errors are SQLite's own.
func TestOutages(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "outage.db"))
	ctx := context.Background()
	if _, err := db.Create(ctx, store.Record{Kind: "k", Key: "a", Value: []byte("1"), UpdatedAt: at()}); err != nil {
		t.Fatal(err)
	}
	_, dup := db.writer.ExecContext(ctx, `INSERT INTO records (kind, key, value, version, updated_at) VALUES ('k', 'a', x'31', 1, 0)`)
	_, readOnly := db.reader.ExecContext(ctx, `INSERT INTO records (kind, key, value, version, updated_at) VALUES ('k', 'b', x'31', 1, 0)`)
	var pages int
	if err := db.writer.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.ExecContext(ctx, `PRAGMA max_page_count = `+strconv.Itoa(pages)); err != nil {
		t.Fatal(err)
	}
	_, full := db.writer.ExecContext(ctx, `INSERT INTO records (kind, key, value, version, updated_at) VALUES ('k', 'c', ?, 1, 0)`, []byte(strings.Repeat("x", 1<<20)))
	late, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	_, expired := db.Get(late, "k", "a")
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"duplicate key", dup, false},
		{"read-only connection", readOnly, true},
		{"full database", full, true},
		{"deadline passed", expired, true},
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
