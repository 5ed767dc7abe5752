package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"frontdesk/store/sqlstore"
)

// conn is what the pool and a transaction have in common.
type conn interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// querier is the sqlstore.Querier of this engine, on the pool or in a
// transaction. It sends batches in one round trip.
type querier struct{ c conn }

var _ sqlstore.Batcher = querier{}

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.c.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (q querier) QueryRow(ctx context.Context, query string, args []any, dest ...any) (bool, error) {
	err := q.c.QueryRow(ctx, query, args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func (q querier) Query(ctx context.Context, query string, args []any, each func(scan func(...any) error) error) error {
	rows, err := q.c.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlstore.Each(rows, each)
}

// ExecBatch pipelines stmts: every statement goes out before the first
// result is read.
func (q querier) ExecBatch(ctx context.Context, stmts []sqlstore.Stmt) ([]int64, error) {
	b := &pgx.Batch{}
	for _, s := range stmts {
		b.Queue(s.SQL, s.Args...)
	}
	results := q.c.SendBatch(ctx, b)
	ns := make([]int64, len(stmts))
	var err error
	for i := range stmts {
		tag, e := results.Exec()
		if e != nil {
			err = e
			break
		}
		ns[i] = tag.RowsAffected()
	}
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	return ns, err
}
