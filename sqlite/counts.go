package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"

	"frontdesk/store"
)

// countsCache keeps availability counts, the hottest read, for as long as
// the file has not changed. SQLite's PRAGMA data_version, asked on a read
// connection that never writes, changes whenever any other connection
// commits: this process's writer, or `frontdesk mcp` or `frontdesk sweep`
// writing the same file from another process. Every read asks it first,
// so no count is served from before a commit. The version is read before
// the counts, whose read then sees at least every commit the version
// counted; a commit in between makes the entry newer than its version
// says, never older, and the next read, seeing another version, misses
// it.
type countsCache struct {
	mu      sync.Mutex
	check   *sql.Conn // held for the version alone
	stmt    *sql.Stmt // PRAGMA data_version on check
	on      *readers
	version int64
	entries map[countsKey][]store.Count
}

type countsKey struct{ location, from, to string }

// maxCountsEntries bounds the cache, which then starts over: a window is
// a few rows, and reads mostly ask for the weeks ahead.
const maxCountsEntries = 4096

func newCountsCache(ctx context.Context, reader *sql.DB, on *readers) (*countsCache, error) {
	check, err := reader.Conn(ctx)
	if err != nil {
		return nil, err
	}
	stmt, err := check.PrepareContext(ctx, "PRAGMA data_version")
	if err != nil {
		_ = check.Close()
		return nil, err
	}
	return &countsCache{check: check, stmt: stmt, on: on, version: -1, entries: map[countsKey][]store.Count{}}, nil
}

// current reads the file's version, dropping every entry of an older one.
func (c *countsCache) current(ctx context.Context) (int64, error) {
	var v int64
	var err error
	// The pragma reads a header and returns: no context to watch, which
	// would cost the driver a goroutine.
	whole := context.WithoutCancel(ctx)
	if waited := c.on.do(ctx, func() { err = c.stmt.QueryRowContext(whole).Scan(&v) }); waited != nil {
		return 0, waited
	}
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version {
		c.version = v
		clear(c.entries)
	}
	return v, nil
}

// get returns a copy of the counts kept at version v.
func (c *countsCache) get(v int64, k countsKey) ([]store.Count, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs, ok := c.entries[k]
	if !ok || v != c.version {
		return nil, false
	}
	return slices.Clone(cs), true
}

// put keeps counts read after the version v was read, unless the file
// has changed since.
func (c *countsCache) put(v int64, k countsKey, cs []store.Count) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version {
		return
	}
	if len(c.entries) >= maxCountsEntries {
		clear(c.entries)
	}
	c.entries[k] = slices.Clone(cs)
}

func (c *countsCache) close() error {
	if c == nil {
		return nil
	}
	return errors.Join(c.stmt.Close(), c.check.Close())
}

// Counts returns the non-zero held counts of location for slots in
// [from, to), ordered by unit then slot, from the cache while the file
// is unchanged (countsCache).
func (db *DB) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	v, err := db.counts.current(ctx)
	if err != nil {
		return db.Engine.Counts(ctx, location, from, to) // the read says what failed
	}
	k := countsKey{location, from, to}
	if cs, ok := db.counts.get(v, k); ok {
		return cs, nil
	}
	cs, err := db.Engine.Counts(ctx, location, from, to)
	if err == nil {
		db.counts.put(v, k, cs)
	}
	return cs, err
}
