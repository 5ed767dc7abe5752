package sqlstore

import (
	"context"
	"fmt"

	"frontdesk/store"
)

// Stmt is one statement of a batch.
type Stmt struct {
	SQL  string
	Args []any
}

// Batcher is a Querier that sends several statements in one round trip,
// which is worth it where a round trip costs more than the statement.
type Batcher interface {
	Querier
	// ExecBatch runs every statement in order and returns the rows each
	// changed. A failing statement fails the batch.
	ExecBatch(ctx context.Context, stmts []Stmt) ([]int64, error)
}

// createIfAbsentSQL is the create of a batch: a key already taken changes
// no row instead of failing, which would abort the transaction before the
// batch's results could be read.
const createIfAbsentSQL = `INSERT INTO records (kind, key, value, version, updated_at)
	VALUES ($1, $2, $3, 1, $4) ON CONFLICT DO NOTHING`

// recordRun is how many writes at the start of ws are record writes that
// can be sent together: every one a create, swap or delete of a key no
// other one of them writes. Each write then stands or falls on its own,
// so their results can be read after all of them ran.
func recordRun(ws []store.Write) int {
	type key struct{ kind, key string }
	seen := map[key]bool{}
	n := 0
	for _, w := range ws {
		k := key{w.Record.Kind, w.Record.Key}
		if (w.Op != store.OpCreate && w.Op != store.OpSwap && w.Op != store.OpDelete) || seen[k] {
			break
		}
		seen[k] = true
		n++
	}
	return n
}

// applyRecords performs a run of record writes through b in one round
// trip, writing the results to rs. The first write that changed no row is
// then refused as a *store.WriteError, numbered from base. Its key is
// written by no other write of the run, so a read of it now tells a stale
// version from an absent record exactly as it would have right after the
// write.
func applyRecords(ctx context.Context, b Batcher, ws []store.Write, rs []store.Record, base int) error {
	stmts := make([]Stmt, len(ws))
	for i, w := range ws {
		r := w.Record
		if w.Op == store.OpDelete {
			stmts[i] = Stmt{DeleteRecordSQL, []any{r.Kind, r.Key, r.Version}}
			rs[i] = r
			continue
		}
		at, err := Nanos(r.UpdatedAt)
		if err != nil {
			return fmt.Errorf("write %d: %w", base+i, err)
		}
		r.Value = NonNil(r.Value)
		r.UpdatedAt = Instant(at)
		if w.Op == store.OpCreate {
			stmts[i] = Stmt{createIfAbsentSQL, []any{r.Kind, r.Key, r.Value, at}}
			r.Version = 1
		} else {
			stmts[i] = Stmt{SwapRecordSQL, []any{r.Value, at, r.Kind, r.Key, r.Version}}
			r.Version++
		}
		rs[i] = r
	}
	ns, err := b.ExecBatch(ctx, stmts)
	if err != nil {
		return fmt.Errorf("writes %d to %d: %w", base, base+len(ws)-1, err)
	}
	for i, w := range ws {
		if ns[i] == 1 {
			continue
		}
		if w.Op == store.OpCreate {
			return &store.WriteError{Index: base + i, Write: w, Err: store.ErrExists}
		}
		err := ChangedOne(ctx, b, ns[i], w.Record.Kind, w.Record.Key)
		if Refused(err) {
			return &store.WriteError{Index: base + i, Write: w, Err: err}
		}
		return fmt.Errorf("write %d: %w", base+i, err)
	}
	return nil
}
