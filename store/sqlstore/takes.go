package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"frontdesk/store"
)

// On an engine with one writer (Dialect.OneWriter), a write transaction
// sees every write committed before it and none running beside it, so a
// take needs no lock on its counter's head: a read, a check in Go and a
// write are exact. A run of takes of distinct counters, such as the mail
// budgets of one send, is then decided in at most three statements
// whatever its length: one read of every head with what stopped counting,
// one delete of the buckets that stopped counting, when there are any,
// and one upsert of every head with its new bucket.

// takeRun is how many writes at the start of ws are takes of counters no
// other one of them names, which can be decided together.
func takeRun(ws []store.Write) int {
	seen := map[string]bool{}
	n := 0
	for _, w := range ws {
		if w.Op != store.OpTake || w.Tally == nil || seen[w.Tally.Name] {
			break
		}
		seen[w.Tally.Name] = true
		n++
	}
	return n
}

// takeSQL caches the statements of a run of takes by its length, so each
// text is built once and the engine can prepare it.
var takeSQL sync.Map // int → takeStatements

type takeStatements struct{ read, drop, upsert string }

// TakeStatements returns the three statements of a run of n takes; the
// engine prepares them.
func TakeStatements(n int) (read, drop, upsert string) {
	if s, ok := takeSQL.Load(n); ok {
		t := s.(takeStatements)
		return t.read, t.drop, t.upsert
	}
	var rows, drops, ups []string
	for i := range n {
		a, b := 2*i+1, 2*i+2
		rows = append(rows, fmt.Sprintf("(%d, $%d, $%d)", i, a, b))
		drops = append(drops, fmt.Sprintf("(name = $%d AND bucket < $%d)", a, b))
		a, b, c := 3*i+1, 3*i+2, 3*i+3
		ups = append(ups, fmt.Sprintf("($%d, -1, $%d), ($%d, $%d, 1)", a, b, a, c))
	}
	t := takeStatements{
		// Per take, in order: the head's total, and how many buckets and
		// uses fell below the take's Live.
		read: `WITH t(i, name, live) AS (VALUES ` + strings.Join(rows, ", ") + `)
	SELECT t.i, COALESCE((SELECT h.n FROM counters h WHERE h.name = t.name AND h.bucket = -1), 0),
		(SELECT COUNT(*) FROM counters b WHERE b.name = t.name AND b.bucket >= 0 AND b.bucket < t.live),
		(SELECT COALESCE(SUM(b.n), 0) FROM counters b WHERE b.name = t.name AND b.bucket >= 0 AND b.bucket < t.live)
	FROM t ORDER BY t.i`,
		drop: `DELETE FROM counters WHERE bucket >= 0 AND (` + strings.Join(drops, " OR ") + `)`,
		// A head takes its new total; a bucket counts one more use.
		upsert: `INSERT INTO counters (name, bucket, n) VALUES ` + strings.Join(ups, ", ") + `
	ON CONFLICT (name, bucket) DO UPDATE SET n = CASE WHEN excluded.bucket = -1 THEN excluded.n ELSE counters.n + 1 END`,
	}
	takeSQL.Store(n, t)
	return t.read, t.drop, t.upsert
}

// takeAll decides the run of takes ws inside a one-writer transaction. A
// full counter refuses the run as a *store.WriteError numbered from base,
// the first full one in order, having written nothing; the refusal rolls
// back the transaction as any refused write does.
func takeAll(ctx context.Context, q Querier, ws []store.Write, base int) error {
	args := make([]any, 0, 2*len(ws))
	for i, w := range ws {
		if err := checkTally(w); err != nil {
			return fmt.Errorf("write %d: %w", base+i, err)
		}
		args = append(args, w.Tally.Name, w.Tally.Live)
	}
	read, _, upsert := TakeStatements(len(ws))
	type head struct{ total, stale, staleUses int64 }
	heads := make([]head, len(ws))
	err := q.Query(ctx, read, args, func(scan func(...any) error) error {
		var i int
		var h head
		if err := scan(&i, &h.total, &h.stale, &h.staleUses); err != nil {
			return err
		}
		if i < 0 || i >= len(heads) {
			return fmt.Errorf("counter read returned take %d of %d", i, len(heads))
		}
		heads[i] = h
		return nil
	})
	if err != nil {
		return err
	}
	var drops []any
	ups := make([]any, 0, 3*len(ws))
	for i, w := range ws {
		c, h := w.Tally, heads[i]
		used := h.total - h.staleUses
		if used >= c.Limit {
			return &store.WriteError{Index: base + i, Write: w, Err: store.ErrFull}
		}
		if h.stale > 0 {
			drops = append(drops, c.Name, c.Live)
		}
		ups = append(ups, c.Name, used+1, c.Bucket)
	}
	if len(drops) > 0 {
		_, d, _ := TakeStatements(len(drops) / 2)
		if _, err := q.Exec(ctx, d, drops...); err != nil {
			return err
		}
	}
	_, err = q.Exec(ctx, upsert, ups...)
	return err
}
