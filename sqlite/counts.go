package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"sync"

	"frontdesk/store"
)

// countsCache keeps availability counts, the hottest read, and small
// single records (Get) for as long as the file has not changed. SQLite's
// PRAGMA data_version, asked on a read connection that never writes,
// changes whenever any other connection commits: this process's writer,
// or `frontdesk mcp` or `frontdesk sweep` writing the same file from
// another process. Every read asks it first, so nothing is served from
// before a commit. The version is read before the read it keeps, which
// then sees at least every commit the version counted; a commit in
// between makes the entry newer than its version says, never older, and
// the next read, seeing another version, misses it.
//
// Before asking, a read looks at the WAL index's header (walindex.go):
// while it is the one seen before the last answer, nothing has been
// committed since, and that answer stands.
type countsCache struct {
	mu    sync.Mutex
	index *walIndex
	// seen is the index's header read just before version was asked;
	// valid only when seenOK.
	seen   walIndexHeader
	seenOK bool
	check  *sql.Conn // held for the version alone
	// stmt is PRAGMA data_version prepared on check's driver connection,
	// used only inside check.Raw: asked through database/sql, the
	// statement's rows, locks and conversions cost a third of the check.
	stmt    driver.Stmt
	on      *readers
	version int64
	asked   int // how often SQLite was asked, which tests watch
	entries map[countsKey][]store.Count
	// records are single records read by Get, such as the settings every
	// property_info reads: small, and asked for far more often than they
	// change.
	records map[recordKey]recordEntry
}

type recordKey struct{ kind, key string }

// recordEntry is what Get answered: the record, or the error saying
// there was none.
type recordEntry struct {
	r   store.Record
	err error
}

// Records larger than maxCachedRecord are read each time, so the cache
// stays a few hundred kilobytes at most.
const (
	maxRecordEntries = 256
	maxCachedRecord  = 2 << 10
)

type countsKey struct{ location, from, to string }

// maxCountsEntries bounds the cache, which then starts over: a window is
// a few rows, and reads mostly ask for the weeks ahead.
const maxCountsEntries = 4096

func newCountsCache(ctx context.Context, path string, reader *sql.DB, on *readers) (*countsCache, error) {
	check, err := reader.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var stmt driver.Stmt
	err = check.Raw(func(dc any) error {
		p, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return errors.New("sqlite: the driver cannot prepare with a context")
		}
		stmt, err = p.PrepareContext(ctx, "PRAGMA data_version")
		return err
	})
	if err != nil {
		_ = check.Close()
		return nil, err
	}
	c := &countsCache{check: check, stmt: stmt, on: on, version: -1, entries: map[countsKey][]store.Count{}, records: map[recordKey]recordEntry{}}
	// Asking once makes SQLite open the WAL index file; only then does
	// the file exist for the shortcut to read.
	if _, err := c.current(ctx); err != nil {
		return nil, errors.Join(err, c.close())
	}
	c.index = openWALIndex(path)
	return c, nil
}

// current reads the file's version, dropping every entry of an older one.
func (c *countsCache) current(ctx context.Context) (int64, error) {
	h, ok := c.index.header()
	if ok {
		c.mu.Lock()
		v, same := c.version, c.seenOK && h == c.seen
		c.mu.Unlock()
		if same {
			return v, nil
		}
	}
	var v int64
	var err error
	// The pragma reads a header and returns: no context to watch, which
	// would cost the driver a goroutine.
	whole := context.WithoutCancel(ctx)
	read := func(any) (err error) { v, err = dataVersion(whole, c.stmt); return err }
	if waited := c.on.do(ctx, func() { err = c.check.Raw(read) }); waited != nil {
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
		clear(c.records)
	}
	c.seen, c.seenOK = h, ok
	c.asked++
	return v, nil
}

// dataVersion runs stmt, PRAGMA data_version, on its driver connection.
func dataVersion(ctx context.Context, stmt driver.Stmt) (v int64, err error) {
	q, ok := stmt.(driver.StmtQueryContext)
	if !ok {
		return 0, errors.New("sqlite: the driver cannot query with a context")
	}
	rows, err := q.QueryContext(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, rows.Close()) }()
	row := make([]driver.Value, 1)
	if err := rows.Next(row); err != nil {
		return 0, fmt.Errorf("PRAGMA data_version: %w", err)
	}
	v, ok = row[0].(int64)
	if !ok {
		return 0, fmt.Errorf("PRAGMA data_version: %T, not an integer", row[0])
	}
	return v, nil
}

// kept returns m[k] if the file is still at version v. Callers copy
// what they take, outside the lock.
func kept[K comparable, V any](c *countsCache, m map[K]V, v int64, k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := m[k]
	if !ok || v != c.version {
		var none V
		return none, false
	}
	return e, true
}

// keep sets m[k] to e, read after the version v was read, unless the
// file has changed since; a full map starts over.
func keep[K comparable, V any](c *countsCache, m map[K]V, v int64, k K, e V, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v != c.version {
		return
	}
	if len(m) >= most {
		clear(m)
	}
	m[k] = e
}

func (c *countsCache) close() error {
	if c == nil {
		return nil
	}
	return errors.Join(c.index.close(), c.check.Raw(func(any) error { return c.stmt.Close() }), c.check.Close())
}

// Counts returns the non-zero held counts of location for slots in
// [from, to), ordered by unit then slot, from the cache while the file
// is unchanged (countsCache).
func (db *DB) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	v, err := db.counts.current(ctx)
	if err != nil {
		return db.Engine.Counts(ctx, location, from, to) // the read says what failed
	}
	c := db.counts
	k := countsKey{location, from, to}
	if cs, ok := kept(c, c.entries, v, k); ok {
		return slices.Clone(cs), nil
	}
	cs, err := db.Engine.Counts(ctx, location, from, to)
	if err == nil {
		keep(c, c.entries, v, k, slices.Clone(cs), maxCountsEntries)
	}
	return cs, err
}

// Get returns the current record, or store.ErrNotFound, from the cache
// while the file is unchanged (countsCache).
func (db *DB) Get(ctx context.Context, kind, key string) (store.Record, error) {
	v, err := db.counts.current(ctx)
	if err != nil {
		return db.Engine.Get(ctx, kind, key) // the read says what failed
	}
	c := db.counts
	k := recordKey{kind, key}
	if e, ok := kept(c, c.records, v, k); ok {
		e.r.Value = bytes.Clone(e.r.Value)
		return e.r, e.err
	}
	r, err := db.Engine.Get(ctx, kind, key)
	// A large record is read each time, so the cache stays small.
	if (err == nil || errors.Is(err, store.ErrNotFound)) && len(r.Value) <= maxCachedRecord {
		e := recordEntry{r: r, err: err}
		e.r.Value = bytes.Clone(r.Value)
		keep(c, c.records, v, k, e, maxRecordEntries)
	}
	return r, err
}
