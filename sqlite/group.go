package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"

	"frontdesk/store/sqlstore"
)

// maxGroup is the most transactions one commit carries.
const maxGroup = 64

// errClosed answers a write asked of a closed store.
var errClosed = errors.New("sqlite: store closed")

// committer commits this process's write transactions in groups. With
// synchronous=FULL every commit waits for the disk, and on one writer
// connection that wait, not the statements, bounds how many writes a
// second the store takes. Writers that arrive while a commit is on its
// way to the disk wait together; the next group runs each of them in its
// own savepoint of one transaction and pays for one flush. A transaction
// that fails rolls back to its savepoint and leaves the others of its
// group as they were, so each caller still gets all of its writes or
// none. A group that fails as a whole (its commit, or a fault that ends
// the transaction under it) is run again one transaction at a time, so
// one caller's fault never becomes another's.
type committer struct {
	writer *sql.DB
	stmts  *statements
	jobs   chan *job
	stop   chan struct{} // closed by close
	exited chan struct{} // closed when the loop has returned
	once   sync.Once
	// commits counts the transactions committed, for tests to see groups.
	commits atomic.Int64
}

// job is one caller's transaction waiting for its group.
type job struct {
	fn func(sqlstore.Querier) error
	// state moves from queued to taken when a group takes the job, or
	// to withdrawn when its caller gives up first: a withdrawn job never
	// runs, so a caller that gave up knows nothing was written.
	state  atomic.Int32
	result chan error // buffered: the committer never waits for a caller
}

const (
	queued int32 = iota
	taken
	withdrawn
)

func newCommitter(writer *sql.DB, stmts *statements) *committer {
	c := &committer{writer: writer, stmts: stmts, jobs: make(chan *job, maxGroup), stop: make(chan struct{}), exited: make(chan struct{})}
	go c.loop()
	return c
}

// run commits fn's writes in one transaction, alone or with others of
// the same moment, and reports fn's error or the commit's. When ctx ends
// before a group takes fn, nothing is written and ctx's error comes back;
// once fn runs, run waits for its outcome, so that it is always known.
func (c *committer) run(ctx context.Context, fn func(sqlstore.Querier) error) error {
	j := &job{fn: fn, result: make(chan error, 1)}
	select {
	case <-c.stop:
		return errClosed
	default:
	}
	select {
	case c.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.stop:
		return errClosed
	}
	gaveUp := ctx.Err
	select {
	case err := <-j.result:
		return err
	case <-ctx.Done():
	case <-c.exited: // queued as the store closed: no group will take it
		gaveUp = func() error { return errClosed }
	}
	if j.state.CompareAndSwap(queued, withdrawn) {
		return gaveUp()
	}
	return <-j.result
}

// close stops the committer once the group in hand is committed; jobs
// still queued are answered errClosed.
func (c *committer) close() {
	c.once.Do(func() { close(c.stop) })
	<-c.exited
}

func (c *committer) loop() {
	defer close(c.exited)
	group := make([]*job, 0, maxGroup)
	for {
		select {
		case <-c.stop: // before any job still queued
			c.drain()
			return
		default:
		}
		select {
		case j := <-c.jobs:
			group = append(group[:0], j)
		case <-c.stop:
			c.drain()
			return
		}
	more:
		for len(group) < maxGroup {
			select {
			case j := <-c.jobs:
				group = append(group, j)
			default:
				break more
			}
		}
		c.commit(group)
	}
}

// drain answers every queued job errClosed.
func (c *committer) drain() {
	for {
		select {
		case j := <-c.jobs:
			if j.state.CompareAndSwap(queued, taken) {
				j.result <- errClosed
			}
		default:
			return
		}
	}
}

// commit runs the jobs of one group that their callers still wait for.
func (c *committer) commit(group []*job) {
	live := group[:0]
	for _, j := range group {
		if j.state.CompareAndSwap(queued, taken) {
			live = append(live, j)
		}
	}
	switch len(live) {
	case 0:
	case 1:
		live[0].result <- c.alone(live[0])
	default:
		c.together(live)
	}
}

// alone runs one job in its own transaction.
func (c *committer) alone(j *job) error {
	tx, err := c.begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := j.fn(prepared{stmts: c.stmts, tx: tx, whole: true}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	c.commits.Add(1)
	return nil
}

// together runs the jobs in one transaction, each in a savepoint, and
// commits once. A job's own failure rolls back its savepoint only. When
// the group cannot go on or cannot commit, the jobs not yet answered run
// again alone.
func (c *committer) together(group []*job) {
	tx, err := c.begin()
	if err != nil {
		for _, j := range group {
			j.result <- err
		}
		return
	}
	defer tx.Rollback()
	// ok holds the jobs whose writes wait for the commit.
	ok := make([]*job, 0, len(group))
	for i, j := range group {
		err, broken := c.savepoint(tx, j)
		if broken {
			// The transaction is gone, and the writes of the jobs before
			// j with it. A job whose own write broke it has its answer;
			// every other runs again alone.
			tx.Rollback()
			again := append(ok, group[i+1:]...)
			if err != nil {
				j.result <- err
			} else {
				again = append(again, j)
			}
			c.oneByOne(again)
			return
		}
		if err != nil {
			j.result <- err
			continue
		}
		ok = append(ok, j)
	}
	if err := tx.Commit(); err != nil {
		c.oneByOne(ok)
		return
	}
	c.commits.Add(1)
	for _, j := range ok {
		j.result <- nil
	}
}

func (c *committer) oneByOne(jobs []*job) {
	for _, j := range jobs {
		j.result <- c.alone(j)
	}
}

// The savepoint statements, prepared with the writes.
const (
	savepointSQL  = "SAVEPOINT job"
	rollbackToSQL = "ROLLBACK TO job"
	releaseSQL    = "RELEASE job"
)

// savepoint runs j inside a savepoint of tx and returns j's own error.
// broken reports that tx can no longer be used, which SQLite shows by
// having no savepoint to release or roll back to: some faults (an
// interrupted write, a full disk) roll back the whole transaction.
func (c *committer) savepoint(tx *sql.Tx, j *job) (err error, broken bool) {
	q := prepared{stmts: c.stmts, tx: tx, whole: true}
	ctx := context.Background()
	if _, err := q.Exec(ctx, savepointSQL); err != nil {
		return nil, true
	}
	if err := j.fn(q); err != nil {
		if _, rerr := q.Exec(ctx, rollbackToSQL); rerr != nil {
			return err, true
		}
		if _, rerr := q.Exec(ctx, releaseSQL); rerr != nil {
			return err, true
		}
		return err, false
	}
	if _, err := q.Exec(ctx, releaseSQL); err != nil {
		return nil, true
	}
	return nil, false
}

// begin starts the writer's immediate transaction. Its context is none of
// the callers': it outlives any one of them.
func (c *committer) begin() (*sql.Tx, error) {
	return c.writer.BeginTx(context.Background(), nil)
}

// single is the Querier of the writes made outside a transaction: each
// statement is a job of its own, so it shares its group's commit too.
type single struct{ c *committer }

func (s single) Exec(ctx context.Context, query string, args ...any) (n int64, err error) {
	err = s.c.run(ctx, func(q sqlstore.Querier) error {
		n, err = q.Exec(ctx, query, args...)
		return err
	})
	return n, err
}

func (s single) QueryRow(ctx context.Context, query string, args []any, dest ...any) (found bool, err error) {
	err = s.c.run(ctx, func(q sqlstore.Querier) error {
		found, err = q.QueryRow(ctx, query, args, dest...)
		return err
	})
	return found, err
}

func (s single) Query(ctx context.Context, query string, args []any, each func(scan func(...any) error) error) error {
	return s.c.run(ctx, func(q sqlstore.Querier) error { return q.Query(ctx, query, args, each) })
}
