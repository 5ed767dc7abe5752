package postgres

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"frontdesk/store"
)

// IsOutage implements store.Outages: PostgreSQL could not be reached or
// answered in time, is shutting down or refusing connections, is out of
// disk or memory, or is read-only (a standby, or default_transaction_read_only).
func (db *DB) IsOutage(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || pgconn.Timeout(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "53"),  // insufficient resources: disk full, out of memory, too many connections
			strings.HasPrefix(pe.Code, "57P"), // operator intervention: shutdown, cannot connect now
			pe.Code == "25006":                // read_only_sql_transaction
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err)
}

var _ store.Outages = (*DB)(nil)
