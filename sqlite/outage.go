package sqlite

import (
	"context"
	"errors"

	msqlite "modernc.org/sqlite"
	sqlitelib "modernc.org/sqlite/lib"

	"frontdesk/store"
)

// IsOutage implements store.Outages: the database file could not be
// read or written (an I/O error, a full disk, a read-only file or
// folder, a file that cannot be opened), stayed locked past the busy
// timeout, or did not answer in time. It reads the primary result code,
// never the message text.
func (db *DB) IsOutage(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var e *msqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlitelib.SQLITE_IOERR, sqlitelib.SQLITE_FULL, sqlitelib.SQLITE_READONLY, sqlitelib.SQLITE_CANTOPEN,
		sqlitelib.SQLITE_BUSY, sqlitelib.SQLITE_LOCKED, sqlitelib.SQLITE_NOMEM:
		return true
	}
	return false
}

var _ store.Outages = (*DB)(nil)
