package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"frontdesk/store/sqlstore"
)

// statements prepares each statement once on one pool. Parsing the SQL of
// a one-row insert cost about as much as running it. The writer is one
// connection, so a statement prepared on it serves every later write and
// every transaction on it; on the read pool database/sql prepares it again
// on each connection that runs it.
type statements struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// cached returns the prepared statement for query, if there is one.
func (s *statements) cached(query string) (*sql.Stmt, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[query]
	return st, ok
}

// get prepares query on the pool once. It must not be called while a
// transaction holds the writer's one connection: it would wait for it. The
// lock is not held while preparing, since that waits for the connection
// and a transaction holding it may be asking for a cached statement.
func (s *statements) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.cached(query); ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if have, ok := s.m[query]; ok {
		_ = st.Close() // prepared twice at once: keep the first; an unused statement has nothing to lose
		return have, nil
	}
	if s.m == nil {
		s.m = map[string]*sql.Stmt{}
	}
	s.m[query] = st
	return st, nil
}

func (s *statements) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, st := range s.m {
		errs = append(errs, st.Close())
	}
	s.m = nil
	return errors.Join(errs...)
}

// prepared is the sqlstore.Querier of this engine: prepared statements
// on the pool of stmts, or inside tx when it is set.
type prepared struct {
	stmts *statements
	tx    *sql.Tx
	// whole runs every statement to its end whatever its caller's
	// context says, as the statements of a group must (group.go). It
	// also spares the driver the goroutine it starts per statement to
	// watch a context that can end.
	whole bool
	// on, when set, runs the statements outside a transaction (readers.go).
	on *readers
}

func (p prepared) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if p.tx == nil {
		return p.stmts.get(ctx, query)
	}
	if st, ok := p.stmts.cached(query); ok {
		return p.tx.StmtContext(ctx, st), nil
	}
	// The transaction holds the writer's only connection, so a statement
	// first met here is prepared for this transaction alone.
	return p.tx.PrepareContext(ctx, query)
}

func (p prepared) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	ctx = p.context(ctx)
	st, err := p.stmt(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (p prepared) QueryRow(ctx context.Context, query string, args []any, dest ...any) (found bool, err error) {
	if waited := p.on.do(ctx, func() { found, err = p.queryRow(ctx, query, args, dest...) }); waited != nil {
		return false, waited
	}
	return found, err
}

func (p prepared) queryRow(ctx context.Context, query string, args []any, dest ...any) (bool, error) {
	ctx = p.context(ctx)
	st, err := p.stmt(ctx, query)
	if err != nil {
		return false, err
	}
	err = st.QueryRowContext(ctx, args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func (p prepared) Query(ctx context.Context, query string, args []any, each func(scan func(...any) error) error) (err error) {
	if waited := p.on.do(ctx, func() { err = p.query(ctx, query, args, each) }); waited != nil {
		return waited
	}
	return err
}

func (p prepared) query(ctx context.Context, query string, args []any, each func(scan func(...any) error) error) error {
	ctx = p.context(ctx)
	st, err := p.stmt(ctx, query)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	err = sqlstore.Each(rows, each)
	return errors.Join(err, rows.Close())
}

func (p prepared) context(ctx context.Context) context.Context {
	if p.whole {
		return context.WithoutCancel(ctx)
	}
	return ctx
}
