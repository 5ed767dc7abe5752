package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// statements prepares each writer statement once. Parsing the SQL of a
// one-row insert cost about as much as running it, and the writer is one
// connection, so a statement prepared on it serves every later write and
// every transaction on it.
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

// get prepares query on the writer once. It must not be called while a
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
		st.Close() // prepared twice at once: keep the first
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

// prepared is a querier that runs prepared statements on the writer, or
// inside tx when it is set.
type prepared struct {
	stmts *statements
	tx    *sql.Tx
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

func (p prepared) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (p prepared) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p prepared) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.stmt(ctx, query)
	if err != nil {
		// A failed prepare surfaces through the row, as a failed query would.
		if p.tx != nil {
			return p.tx.QueryRowContext(ctx, query, args...)
		}
		return p.stmts.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
