package postgres

import (
	"context"
	"fmt"

	"frontdesk/store"
)

var _ store.Locker = (*DB)(nil)

// TryLock takes a session-level advisory lock on a connection of its own,
// kept until release, so that one instance on this schema runs a
// scheduled pass at a time. The lock goes with the session if the
// process dies.
func (db *DB) TryLock(ctx context.Context, name string) (func(), bool, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("try lock: %w", err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtext(current_schema() || '/' || $1))`, name).Scan(&ok); err != nil {
		conn.Release()
		return nil, false, fmt.Errorf("try lock: %w", err)
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	return func() {
		// A failed unlock ends the session instead, which drops the lock.
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock(hashtext(current_schema() || '/' || $1))`, name); err != nil {
			_ = conn.Conn().Close(context.Background()) // the lock ends with the session either way
		}
		conn.Release()
	}, true, nil
}
