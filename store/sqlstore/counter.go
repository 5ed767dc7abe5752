package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"frontdesk/store"
)

// The counter statements both engines run. A counter's head is its row at
// bucket -1; every write of a counter begins with LockCounterSQL, which
// creates or locks the head, so the statements after it see every write
// of the counter committed before and none that is still running. That
// is what makes parallel takes exact on PostgreSQL, where each statement
// of a transaction reads what was committed when it began; on SQLite the
// one writer already runs them one after the other.
const (
	LockCounterSQL = `INSERT INTO counters (name, bucket, n) VALUES ($1, -1, 0)
		ON CONFLICT (name, bucket) DO UPDATE SET n = counters.n`
	// ExpireCounterSQL folds the buckets below $2 out of the total, and
	// DropBucketsSQL deletes them, so each bucket is read once after it
	// stopped counting.
	ExpireCounterSQL = `UPDATE counters SET n = n - (SELECT COALESCE(SUM(b.n), 0) FROM counters b
		WHERE b.name = $1 AND b.bucket >= 0 AND b.bucket < $2) WHERE name = $1 AND bucket = -1`
	DropBucketsSQL = `DELETE FROM counters WHERE name = $1 AND bucket >= 0 AND bucket < $2`
	// TakeCounterSQL counts one more use when fewer than $2 count; it
	// changes no row when the counter is full.
	TakeCounterSQL = `UPDATE counters SET n = n + 1 WHERE name = $1 AND bucket = -1 AND n < $2`
	AddBucketSQL   = `INSERT INTO counters (name, bucket, n) VALUES ($1, $2, 1)
		ON CONFLICT (name, bucket) DO UPDATE SET n = counters.n + 1`
	// GiveBackHeadSQL and GiveBackBucketSQL uncount one use of a bucket
	// that still holds one; the head goes first, while the bucket still
	// says whether it does.
	GiveBackHeadSQL = `UPDATE counters SET n = n - 1 WHERE name = $1 AND bucket = -1
		AND EXISTS (SELECT 1 FROM counters b WHERE b.name = $1 AND b.bucket = $2 AND b.n > 0)`
	GiveBackBucketSQL = `UPDATE counters SET n = n - 1 WHERE name = $1 AND bucket = $2 AND n > 0`
	ClearBucketsSQL   = `DELETE FROM counters WHERE name = $1 AND bucket >= 0`
	ClearHeadSQL      = `UPDATE counters SET n = 0 WHERE name = $1 AND bucket = -1`
	ForgetCounterSQL  = `DELETE FROM counters WHERE name = $1
		AND NOT EXISTS (SELECT 1 FROM counters b WHERE b.name = $1 AND b.bucket >= 0 AND b.n > 0)`
	BucketsSQL = `SELECT bucket, n FROM counters WHERE name = $1 AND bucket >= $2 AND n > 0
		ORDER BY bucket LIMIT 1000`
	CountedSQL = `SELECT h.n - (SELECT COALESCE(SUM(b.n), 0) FROM counters b
		WHERE b.name = $1 AND b.bucket >= 0 AND b.bucket < $2) FROM counters h WHERE h.name = $1 AND h.bucket = -1`
)

// CounterStmts are the statements of one counter write, in order. take is
// the index of the statement that changes no row when a take is refused,
// or -1 for a write that is never refused.
func CounterStmts(w store.Write) (stmts []Stmt, take int, err error) {
	if err := checkTally(w); err != nil {
		return nil, -1, err
	}
	c := w.Tally
	lock := []Stmt{
		{LockCounterSQL, []any{c.Name}},
		{ExpireCounterSQL, []any{c.Name, c.Live}},
		{DropBucketsSQL, []any{c.Name, c.Live}},
	}
	switch w.Op {
	case store.OpTake:
		return append(lock, Stmt{TakeCounterSQL, []any{c.Name, c.Limit}}, Stmt{AddBucketSQL, []any{c.Name, c.Bucket}}), len(lock), nil
	case store.OpGiveBack:
		return append(lock, Stmt{GiveBackHeadSQL, []any{c.Name, c.Bucket}}, Stmt{GiveBackBucketSQL, []any{c.Name, c.Bucket}}), -1, nil
	case store.OpClear:
		return append(lock[:1], Stmt{ClearBucketsSQL, []any{c.Name}}, Stmt{ClearHeadSQL, []any{c.Name}}), -1, nil
	case store.OpForget:
		return append(lock, Stmt{ForgetCounterSQL, []any{c.Name}}), -1, nil
	}
	return nil, -1, fmt.Errorf("op %d is no counter write", w.Op)
}

// checkTally refuses a counter write that names no counter, or a take in
// a bucket that no longer counts.
func checkTally(w store.Write) error {
	c := w.Tally
	switch {
	case c == nil:
		return fmt.Errorf("op %d without a tally", w.Op)
	case c.Name == "" || c.Bucket < 0 || c.Live < 0:
		return errors.New("count without a name, or with a negative bucket")
	case w.Op == store.OpTake && c.Bucket < c.Live:
		return fmt.Errorf("take in bucket %d, which no longer counts from %d", c.Bucket, c.Live)
	}
	return nil
}

// count performs one counter write through q, returning store.ErrFull
// unwrapped for a refused take.
func count(ctx context.Context, q Querier, w store.Write) error {
	stmts, take, err := CounterStmts(w)
	if err != nil {
		return err
	}
	if b, ok := q.(Batcher); ok {
		// One round trip for the whole write: a refused take changes no
		// row, and the statements after it run on, but the refusal
		// rolls the transaction back with them.
		ns, err := b.ExecBatch(ctx, stmts)
		if err != nil {
			return err
		}
		if take >= 0 && ns[take] == 0 {
			return store.ErrFull
		}
		return nil
	}
	for i, s := range stmts {
		n, err := q.Exec(ctx, s.SQL, s.Args...)
		if err != nil {
			return err
		}
		if i == take && n == 0 {
			return store.ErrFull
		}
	}
	return nil
}

// Counted reads how many uses of counter name count from bucket live on.
func Counted(ctx context.Context, q Querier, name string, live int64) (int64, error) {
	var n int64
	found, err := q.QueryRow(ctx, CountedSQL, []any{name, live}, &n)
	if err != nil || !found {
		return 0, err
	}
	return n, nil
}

// Buckets reads the buckets of counter name from live on that hold a use.
func Buckets(ctx context.Context, q Querier, name string, live int64) ([]store.Bucket, error) {
	return collect(ctx, q, BucketsSQL, []any{name, max(live, 0)}, func(scan func(...any) error) (store.Bucket, error) {
		var b store.Bucket
		return b, scan(&b.Bucket, &b.N)
	})
}

// CounterNames lists up to limit counter names that start with prefix and
// sort after after, bounded as List bounds keys.
func (d *Dialect) CounterNames(ctx context.Context, q Querier, prefix, after string, limit int) ([]string, error) {
	if limit < 1 || limit > MaxList {
		return nil, fmt.Errorf("limit %d must be from 1 to %d", limit, MaxList)
	}
	query := `SELECT name FROM counters WHERE bucket = -1`
	var args []any
	if after != "" && after >= prefix {
		query += ` AND name > $1`
		args = append(args, after)
	} else {
		query += ` AND name >= $1`
		args = append(args, prefix)
	}
	if end, ok := d.PrefixEnd(prefix); ok {
		query += ` AND name < $2`
		args = append(args, end)
	}
	args = append(args, limit)
	query += fmt.Sprintf(` ORDER BY name LIMIT $%d`, len(args))
	return collect(ctx, q, query, args, func(scan func(...any) error) (string, error) {
		var name string
		return name, scan(&name)
	})
}
