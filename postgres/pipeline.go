package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"frontdesk/store"
	"frontdesk/store/sqlstore"
)

// A booking on PostgreSQL waits on round trips, not on the server's work:
// an Apply written step by step costs BEGIN, a statement or two per write,
// a read-then-write per slot of a hold, and COMMIT, each a round trip. So
// an Apply whose writes do not depend on one another goes out as one
// pipelined batch instead. PostgreSQL runs the statements of a batch that
// ends in one Sync as a single implicit transaction, so the batch commits
// whole or not at all, in one round trip. For that every write is one
// statement that fails when it is refused: a create by its key, a
// conditional swap or delete, and a hold, by dividing by the number of
// rows they changed (SQLSTATE 22012 for none), which aborts the batch.

// divisionByZero is how a pipelined write says it changed no row.
const divisionByZero = "22012"

// The pipelined forms of the conditional writes that change no row when
// refused.
const (
	swapOrFailSQL            = `WITH w AS (` + sqlstore.SwapRecordSQL + ` RETURNING 1) SELECT 1 / count(*)::int FROM w`
	deleteOrFailSQL          = `WITH w AS (` + sqlstore.DeleteRecordSQL + ` RETURNING 1) SELECT 1 / count(*)::int FROM w`
	swapReservationOrFailSQL = `WITH w AS (` + sqlstore.SwapReservationSQL + ` RETURNING 1) SELECT 1 / count(*)::int FROM w`
	// holdSQL takes a hold in one statement: the hold row (a taken ID
	// fails on its key; the slots are read from it so that it goes in
	// first, as it does step by step), every slot claimed by an insert or a conditional
	// increment that sees the newest committed count and locks the row,
	// and the slots remembered for the release. A slot without room
	// changes no row, so fewer slots than asked divide by zero. The slots
	// come sorted, so every hold locks them in the same order.
	holdSQL = `WITH h AS (
		INSERT INTO holds (id, location, unit, units, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id
	), s AS (
		INSERT INTO slots AS s (location, unit, slot, held, version)
		SELECT $2, $3, x, $4, 1 FROM h, unnest($6::text[]) AS x WHERE $4 <= $7
		ON CONFLICT (location, unit, slot) DO UPDATE
			SET held = s.held + EXCLUDED.held, version = s.version + 1
			WHERE s.held + EXCLUDED.held <= $7
		RETURNING 1
	), hs AS (
		INSERT INTO hold_slots (hold_id, slot) SELECT h.id, x FROM h, unnest($6::text[]) AS x
	)
	SELECT 1 / ((SELECT count(*) FROM s) = cardinality($6::text[]))::int`
)

// pipeline performs writes as one batch in one round trip, or reports
// false when they need the step-by-step path: a release, or two writes of
// one key, where the second depends on the first.
func (db *DB) pipeline(ctx context.Context, writes []store.Write) ([]store.Record, bool, error) {
	b, owners, rs, ok, err := pipelined(writes)
	if !ok || err != nil {
		return nil, ok, err
	}
	err = retryAborted(func() error {
		err := db.sendAll(ctx, b)
		b = fresh(b)
		return err
	})
	if err == nil {
		return rs, true, nil
	}
	var fe failedWrite
	if errors.Is(err, store.ErrConflict) || !errors.As(err, &fe) {
		return nil, true, err
	}
	fe.index = owners[fe.index] // from the statement to its write
	return nil, true, db.refusal(ctx, writes, fe)
}

// fresh is a new batch of b's queries, for sending them again. pgx keeps
// in each query the prepared statement it was sent with, and deallocates
// the statements of a batch that failed, so b itself, sent again, would
// name statements that no longer exist (SQLSTATE 26000).
func fresh(b *pgx.Batch) *pgx.Batch {
	qs := make([]*pgx.QueuedQuery, len(b.QueuedQueries))
	for i, q := range b.QueuedQueries {
		qs[i] = &pgx.QueuedQuery{SQL: q.SQL, Arguments: q.Arguments, Fn: q.Fn}
	}
	return &pgx.Batch{QueuedQueries: qs}
}

// pipelined builds the batch of writes and their results as the batch
// would leave them, with the write each statement belongs to.
func pipelined(writes []store.Write) (*pgx.Batch, []int, []store.Record, bool, error) {
	type key struct{ space, kind, key string }
	seen := map[key]bool{}
	b := &pgx.Batch{}
	var owners []int
	rs := make([]store.Record, len(writes))
	for i, w := range writes {
		if w.Op == store.OpTake || w.Op == store.OpGiveBack || w.Op == store.OpClear || w.Op == store.OpForget {
			// A counter's writes lock it first, so two of one counter in
			// one batch are simply decided in order.
			if err := queueCount(b, w); err != nil {
				return nil, nil, nil, true, fmt.Errorf("write %d: %w", i, err)
			}
			for len(owners) < b.Len() {
				owners = append(owners, i)
			}
			continue
		}
		var k key
		switch w.Op {
		case store.OpCreate, store.OpSwap, store.OpDelete:
			k = key{"record", w.Record.Kind, w.Record.Key}
		case store.OpHold:
			if w.Hold == nil {
				return nil, nil, nil, false, nil
			}
			k = key{"hold", "", w.Hold.ID}
		case store.OpCreateReservation, store.OpSwapReservation:
			if w.Reservation == nil {
				return nil, nil, nil, false, nil
			}
			k = key{"reservation", "", w.Reservation.Reference}
		default:
			return nil, nil, nil, false, nil
		}
		if seen[k] {
			return nil, nil, nil, false, nil
		}
		seen[k] = true
		r, err := queue(b, w)
		if err != nil {
			return nil, nil, nil, true, fmt.Errorf("write %d: %w", i, err)
		}
		for len(owners) < b.Len() {
			owners = append(owners, i) // a reservation's terms follow its row
		}
		rs[i] = r
	}
	return b, owners, rs, true, nil
}

// takeSQL is a take's statements after the head's lock, in one: fold the
// buckets that stopped counting out of the total and drop them, count
// one more use when fewer than the limit count, and count it in its
// bucket. It runs after the lock, so its snapshot holds every write of
// the counter committed before; its parts share that snapshot and touch
// different rows. A full counter updates no head, adds to no bucket and
// fails by a division by zero.
const takeSQL = `WITH stale AS (
		DELETE FROM counters WHERE name = $1 AND bucket >= 0 AND bucket < $2 RETURNING n
	), head AS (
		UPDATE counters SET n = n - (SELECT COALESCE(SUM(n), 0) FROM stale) + 1
		WHERE name = $1 AND bucket = -1 AND n - (SELECT COALESCE(SUM(n), 0) FROM stale) < $3
		RETURNING 1
	), counted AS (
		INSERT INTO counters (name, bucket, n) SELECT $1, $4, 1 FROM head
		ON CONFLICT (name, bucket) DO UPDATE SET n = counters.n + 1
	)
	SELECT 1 / count(*)::int FROM head`

// queueCount adds the statements of counter write w to b, the take
// failing by a division by zero when the counter is full.
func queueCount(b *pgx.Batch, w store.Write) error {
	stmts, take, err := sqlstore.CounterStmts(w)
	if err != nil {
		return err
	}
	if w.Op == store.OpTake {
		// Two statements where the engines' common five would take five
		// trips through the executor: a booking takes seven counters.
		c := w.Tally
		b.Queue(sqlstore.LockCounterSQL, c.Name)
		b.Queue(takeSQL, c.Name, c.Live, c.Limit, c.Bucket)
		return nil
	}
	for i, s := range stmts {
		if i == take {
			b.Queue(`WITH w AS (`+s.SQL+` RETURNING 1) SELECT 1 / count(*)::int FROM w`, s.Args...)
			continue
		}
		b.Queue(s.SQL, s.Args...)
	}
	return nil
}

// queue adds the statement of w to b and returns what w writes.
func queue(b *pgx.Batch, w store.Write) (store.Record, error) {
	r := w.Record
	switch w.Op {
	case store.OpDelete:
		b.Queue(deleteOrFailSQL, r.Kind, r.Key, r.Version)
		return r, nil
	case store.OpHold:
		h := w.Hold
		slots, err := sqlstore.CheckHold(*h)
		if err != nil {
			return r, err
		}
		at, err := sqlstore.Nanos(h.At)
		if err != nil {
			return r, err
		}
		b.Queue(holdSQL, h.ID, h.Location, h.Unit, h.Units, at, slots, h.Capacity)
		return store.Record{}, nil
	case store.OpCreateReservation, store.OpSwapReservation:
		v := w.Reservation
		if v.Reference == "" {
			return r, errors.New("reservation without a reference")
		}
		at, err := sqlstore.Nanos(v.UpdatedAt)
		if err != nil {
			return r, err
		}
		terms, err := sqlstore.Terms(v.Terms)
		if err != nil {
			return r, err
		}
		value := sqlstore.NonNil(v.Value)
		span := sqlstore.Span(v.FirstSlot, v.LastSlot)
		if w.Op == store.OpCreateReservation {
			b.Queue(sqlstore.InsertReservationSQL, v.Reference, v.Location, v.Unit, v.FirstSlot, v.LastSlot,
				v.State, v.Source, v.ContactKey, value, at, span)
		} else {
			b.Queue(swapReservationOrFailSQL, v.Location, v.Unit, v.FirstSlot, v.LastSlot, v.State, v.Source,
				v.ContactKey, value, at, span, v.Reference, v.Version)
		}
		b.Queue(replaceTermsSQL, v.Reference, terms)
		return store.Record{}, nil
	}
	at, err := sqlstore.Nanos(r.UpdatedAt)
	if err != nil {
		return r, err
	}
	r.Value = sqlstore.NonNil(r.Value)
	r.UpdatedAt = sqlstore.Instant(at)
	if w.Op == store.OpCreate {
		b.Queue(sqlstore.InsertRecordSQL, r.Kind, r.Key, r.Value, at)
		r.Version = 1
	} else {
		b.Queue(swapOrFailSQL, r.Value, at, r.Kind, r.Key, r.Version)
		r.Version++
	}
	return r, nil
}

// replaceTermsSQL gives reservation $1 exactly the terms $2 in one
// statement, as a pipelined batch needs: both halves read the statement's
// snapshot, so the terms it keeps are neither deleted nor inserted again,
// and a write that changes none of them changes no row of the index.
const replaceTermsSQL = `WITH gone AS (
	DELETE FROM reservation_terms WHERE reference = $1 AND NOT (term = ANY($2::text[])))
	INSERT INTO reservation_terms (term, reference) SELECT t, $1 FROM unnest($2::text[]) AS t
	ON CONFLICT DO NOTHING`

// failedWrite is the statement of a batch that failed, and why.
type failedWrite struct {
	index int
	err   error
}

func (f failedWrite) Error() string { return fmt.Sprintf("write %d: %v", f.index, f.err) }
func (f failedWrite) Unwrap() error { return f.err }

// sendAll sends b on a pooled connection and reads every result. A failed
// statement aborts the batch's implicit transaction; it is returned as a
// failedWrite.
func (db *DB) sendAll(ctx context.Context, b *pgx.Batch) error {
	results := db.pool.SendBatch(ctx, b)
	var err error
	for i := range b.Len() {
		if _, e := results.Exec(); e != nil {
			err = failedWrite{index: i, err: e}
			break
		}
	}
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	return err
}

// refusal words the failure of write fe.index as the store does: a
// refused write as a *store.WriteError, anything else as it is. Its batch
// is rolled back, and its key was written by no other write of the
// batch, so a fresh read tells a stale version from an absent row.
func (db *DB) refusal(ctx context.Context, writes []store.Write, fe failedWrite) error {
	w := writes[fe.index]
	refused := func(err error) error { return &store.WriteError{Index: fe.index, Write: w, Err: err} }
	switch {
	case hasCode(fe.err, uniqueViolation):
		return refused(store.ErrExists)
	case !hasCode(fe.err, divisionByZero):
		return fe
	case w.Op == store.OpHold || w.Op == store.OpTake:
		return refused(store.ErrFull)
	}
	q := querier{db.pool}
	var err error
	if w.Op == store.OpSwapReservation {
		var one int
		var found bool
		found, err = q.QueryRow(ctx, sqlstore.ReservationExistsSQL, []any{w.Reservation.Reference}, &one)
		if err == nil {
			err = store.ErrConflict
			if !found {
				err = store.ErrNotFound
			}
		}
	} else {
		err = sqlstore.ChangedOne(ctx, q, 0, w.Record.Kind, w.Record.Key)
	}
	if sqlstore.Refused(err) {
		return refused(err)
	}
	return fmt.Errorf("write %d: %w", fe.index, err)
}
