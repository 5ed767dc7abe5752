package direct

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/internal/pgtest"
	"frontdesk/message"
	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/store"
)

// slowStore delays the store calls it selects once armed: a slow disk or
// a distant database. A store that honours its context gives up when the
// context ends, having done nothing; one that does not (ignoreCtx) does
// the work after the delay anyway, and so acknowledges it late.
type slowStore struct {
	store.Store
	delay     time.Duration
	ignoreCtx bool
	// only selects the calls to delay by record kind; nil delays all.
	only  func(kind string) bool
	armed atomic.Bool
}

// wait delays a call touching any of kinds and returns the context to
// run it with.
func (s *slowStore) wait(ctx context.Context, kinds ...string) (context.Context, error) {
	if !s.armed.Load() || (s.only != nil && !slices.ContainsFunc(kinds, s.only)) {
		return ctx, nil
	}
	if s.ignoreCtx {
		time.Sleep(s.delay)
		return context.WithoutCancel(ctx), nil
	}
	select {
	case <-time.After(s.delay):
		return ctx, ctx.Err()
	case <-ctx.Done():
		return ctx, ctx.Err()
	}
}

func (s *slowStore) Create(ctx context.Context, r store.Record) (store.Record, error) {
	ctx, err := s.wait(ctx, r.Kind)
	if err != nil {
		return store.Record{}, err
	}
	return s.Store.Create(ctx, r)
}

func (s *slowStore) Get(ctx context.Context, kind, key string) (store.Record, error) {
	ctx, err := s.wait(ctx, kind)
	if err != nil {
		return store.Record{}, err
	}
	return s.Store.Get(ctx, kind, key)
}

func (s *slowStore) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	kinds := make([]string, len(keys))
	for i, k := range keys {
		kinds[i] = k.Kind
	}
	ctx, err := s.wait(ctx, kinds...)
	if err != nil {
		return nil, err
	}
	return s.Store.GetMany(ctx, keys)
}

func (s *slowStore) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	ctx, err := s.wait(ctx, r.Kind)
	if err != nil {
		return store.Record{}, err
	}
	return s.Store.Swap(ctx, r)
}

func (s *slowStore) Delete(ctx context.Context, kind, key string, version int64) error {
	ctx, err := s.wait(ctx, kind)
	if err != nil {
		return err
	}
	return s.Store.Delete(ctx, kind, key, version)
}

func (s *slowStore) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	ctx, err := s.wait(ctx, kind)
	if err != nil {
		return nil, err
	}
	return s.Store.List(ctx, kind, prefix, after, limit)
}

// Apply is delayed when any of its writes is.
func (s *slowStore) Apply(ctx context.Context, w []store.Write) ([]store.Record, error) {
	kinds := []string{"index"}
	for _, x := range w {
		kinds = append(kinds, x.Record.Kind)
		if x.Tally != nil { // a counter goes by the kind its name begins with
			kind, _, _ := strings.Cut(x.Tally.Name, "/")
			kinds = append(kinds, kind)
		}
	}
	ctx, err := s.wait(ctx, kinds...)
	if err != nil {
		return nil, err
	}
	return s.Store.Apply(ctx, w)
}

func (s *slowStore) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	ctx, err := s.wait(ctx, "index")
	if err != nil {
		return nil, err
	}
	return s.Store.Counts(ctx, location, from, to)
}

func (s *slowStore) Hold(ctx context.Context, h store.Hold) error {
	ctx, err := s.wait(ctx, "index")
	if err != nil {
		return err
	}
	return s.Store.Hold(ctx, h)
}

func (s *slowStore) Release(ctx context.Context, id string, at time.Time) error {
	ctx, err := s.wait(ctx, "index")
	if err != nil {
		return err
	}
	return s.Store.Release(ctx, id, at)
}

func (s *slowStore) Holds(ctx context.Context, after string, limit int) ([]store.Hold, error) {
	ctx, err := s.wait(ctx, "index")
	if err != nil {
		return nil, err
	}
	return s.Store.Holds(ctx, after, limit)
}

func (s *slowStore) GetReservation(ctx context.Context, ref string) (store.Reservation, error) {
	ctx, err := s.wait(ctx, "reservation")
	if err != nil {
		return store.Reservation{}, err
	}
	return s.Store.GetReservation(ctx, ref)
}

func (s *slowStore) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	ctx, err := s.wait(ctx, "reservation")
	if err != nil {
		return nil, err
	}
	return s.Store.ListReservations(ctx, f)
}

// slowWorld is the demo on a SQLite store that delays what slow selects
// once armed, with the given deadlines.
func slowWorld(t *testing.T, slow *slowStore, d Deadlines) *world {
	t.Helper()
	return slowWorldOn(t, "sqlite", slow, d)
}

// slowWorldOn is slowWorld on the named engine.
func slowWorldOn(t *testing.T, engine string, slow *slowStore, d Deadlines) *world {
	t.Helper()
	base := newWorld(t)
	slow.Store = base.st
	if engine == "postgres" {
		st, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		slow.Store = st
	}
	w := newWorldOn(t, base.cfg, slow)
	w.svc.deadlines = d.withDefaults()
	return w
}

var engines = []string{"sqlite", "postgres"}

func (w *world) count(kind string) int {
	w.t.Helper()
	if kind == kindAdmission {
		return w.charged()
	}
	recs, err := w.st.List(context.Background(), kind, "", "", 1000)
	if err != nil {
		w.t.Fatal(err)
	}
	return len(recs)
}

// charged counts the budgets that count a send now.
func (w *world) charged() int {
	w.t.Helper()
	ctx := context.Background()
	names, err := w.st.CounterNames(ctx, kindAdmission+"/", "", 1000)
	if err != nil {
		w.t.Fatal(err)
	}
	budgets := map[string]bool{}
	for _, name := range names {
		n, err := w.st.Counted(ctx, name, 0)
		if err != nil {
			w.t.Fatal(err)
		}
		if n > 0 {
			budgets[name[:strings.LastIndex(name, "/")]] = true
		}
	}
	return len(budgets)
}

// TestStartAnswersWithinItsDeadline: with every store call taking 700 ms,
// a start answers when its operation deadline ends, truthfully and with
// no code sent, instead of running on for ten seconds; once the store
// recovers, the identical start sends one code.
func TestStartAnswersWithinItsDeadline(t *testing.T) {
	t.Parallel() // the store sleeps; the wait is not work
	slow := &slowStore{delay: 700 * time.Millisecond}
	w := slowWorld(t, slow, Deadlines{Operation: 2 * time.Second})
	slow.armed.Store(true)
	began := time.Now()
	_, err := w.start(context.Background(), web, stayArgs())
	took := time.Since(began)
	slow.armed.Store(false)
	if took > 2400*time.Millisecond {
		t.Fatalf("start answered after %v, past its 2 s deadline", took)
	}
	want := "This booking cannot be checked right now. Try again in a few minutes or call +1 303 555 0111.\nhttp://localhost:8080/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"
	if got := refusalText(err); got != want {
		t.Fatalf("start on a slow store = %q, want %q", got, want)
	}
	if n := len(w.messages()); n != 0 {
		t.Fatalf("%d mails sent by a start that answered with a refusal", n)
	}
	if _, err := w.start(context.Background(), web, stayArgs()); err != nil {
		t.Fatalf("start after the store recovered: %s", refusalText(err))
	}
	if n := len(w.messages()); n != 1 {
		t.Fatalf("%d mails after the store recovered, want 1", n)
	}
}

// TestNoCodeWithoutAdmissionInTime: when the mail admission's reads and
// write take longer than its 2 seconds, the shared code counter's write
// failed: no code is sent and the caller gets §13's fixed pause sentence,
// whether the store gave up at the deadline or acknowledged the charge
// late. Nothing is left that would let an
// identical start claim a code was mailed: once admission is quick
// again, the identical start sends its code.
func TestNoCodeWithoutAdmissionInTime(t *testing.T) {
	t.Parallel() // the store sleeps; the wait is not work
	for _, engine := range engines {
		for _, late := range []bool{false, true} {
			name := engine + "/" + map[bool]string{false: "store gives up", true: "store acknowledges late"}[late]
			t.Run(name, func(t *testing.T) { t.Parallel(); checkNoCodeWithoutAdmission(t, engine, late) })
		}
	}
}

func checkNoCodeWithoutAdmission(t *testing.T, engine string, late bool) {
	slow := &slowStore{delay: 2100 * time.Millisecond, ignoreCtx: late, only: func(kind string) bool { return kind == kindAdmission }}
	w := slowWorldOn(t, engine, slow, Deadlines{})
	slow.armed.Store(true)
	_, err := w.start(context.Background(), web, stayArgs())
	slow.armed.Store(false)
	want := "Chat booking is briefly paused. The booking form is available, or call +1 303 555 0111.\nhttp://localhost:8080/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"
	if got := refusalText(err); got != want {
		t.Fatalf("start with a late admission = %q, want %q", got, want)
	}
	if n := len(w.messages()); n != 0 {
		t.Fatalf("%d codes sent without an admission in time", n)
	}
	if n := w.count(kindIntent); n != 0 {
		t.Fatalf("%d intents left by a start that sent nothing", n)
	}
	if late {
		if n := w.count(kindAdmission); n != 0 {
			t.Fatalf("%d charges kept for a send known not to have happened", n)
		}
	}
	w.clock.Advance(sendWindow)
	res, err := w.start(context.Background(), web, stayArgs())
	if err != nil {
		t.Fatalf("identical start once admission is quick: %s", refusalText(err))
	}
	if n := len(w.messages()); n != 1 {
		t.Fatalf("%d codes after the identical start, want 1", n)
	}
	if _, err := w.confirm(context.Background(), web, args("booking_id", res.BookingID, "code", w.lastCode("ada@example.com"))); err != nil {
		t.Fatalf("confirm: %s", refusalText(err))
	}
}

// TestNoCancellationCodeWithoutAdmissionInTime is the same for the first
// cancellation step: no code, the phone route, and a later first step
// that sends its own code rather than answer with one never mailed.
func TestNoCancellationCodeWithoutAdmissionInTime(t *testing.T) {
	t.Parallel() // the store sleeps; the wait is not work
	slow := &slowStore{delay: 2100 * time.Millisecond, ignoreCtx: true, only: func(kind string) bool { return kind == kindAdmission }}
	w := slowWorld(t, slow, Deadlines{})
	ref := w.book(stayArgs())
	mails := len(w.messages())
	slow.armed.Store(true)
	_, got := cancelStep1(w, ref)
	slow.armed.Store(false)
	if got != notInChat {
		t.Fatalf("first step with a late admission = %q, want %q", got, notInChat)
	}
	if n := len(w.messages()) - mails; n != 0 {
		t.Fatalf("%d cancellation codes sent without an admission in time", n)
	}
	c1, got := cancelStep1(w, ref)
	if got != "" {
		t.Fatalf("first step once admission is quick: %s", got)
	}
	done, err := w.cancel(context.Background(), web, args("cancel_id", c1.CancelID, "code", w.lastCode("ada@example.com")))
	if err != nil || done.Status != string(reservation.Cancelled) {
		t.Fatalf("second step = %s", refusalText(err))
	}
}

// TestCancellationWithinItsDeadline: with every store call taking 700 ms
// and a 4-second operation deadline, the second cancellation step answers
// by its deadline, either with the cancellation or with the sentence
// that says it may have gone through. Whatever it left, the sweep
// finishes it and a retry with the same code reports it: the room is
// released once.
func TestCancellationWithinItsDeadline(t *testing.T) {
	t.Parallel() // the store sleeps; the wait is not work
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) { t.Parallel(); checkCancellationWithinDeadline(t, engine) })
	}
}

func checkCancellationWithinDeadline(t *testing.T, engine string) {
	slow := &slowStore{delay: 700 * time.Millisecond}
	w := slowWorldOn(t, engine, slow, Deadlines{Operation: 4 * time.Second})
	ctx := context.Background()
	ref, cancelID, code := w.openCancellation()
	slow.armed.Store(true)
	began := time.Now()
	res, err := w.cancel(ctx, web, args("cancel_id", cancelID, "code", code))
	took := time.Since(began)
	slow.armed.Store(false)
	if took > 4400*time.Millisecond {
		t.Fatalf("cancellation answered after %v, past its 4 s deadline", took)
	}
	text := refusalText(err)
	truthful := err == nil && res.Status == string(reservation.Cancelled) ||
		strings.HasPrefix(text, "The cancellation outcome could not be checked right now. The cancellation may have gone through.") ||
		strings.HasPrefix(text, "The cancellation may have gone through.")
	if !truthful {
		t.Fatalf("cancellation on a slow store = %v %q", res, text)
	}
	// The sweep finishes what the timed-out step left, after the grace
	// that keeps it from racing the step itself.
	w.clock.Advance(noticeGrace)
	w.sweep()
	checkConsistent(t, w, "after the sweep")
	r, gerr := w.svc.getBooked(ctx, ref)
	if gerr != nil || r.State != reservation.Cancelled || freeDoubles(t, w) != 2 {
		t.Fatalf("after the sweep the reservation is %s with %d doubles free (%v)", r.State, freeDoubles(t, w), gerr)
	}
	again, err := w.cancel(ctx, web, args("cancel_id", cancelID, "code", code))
	if err != nil || again.Status != string(reservation.Cancelled) {
		t.Fatalf("retry with the same code = %s", refusalText(err))
	}
}

// TestConfirmWithinItsDeadline: with every store call taking 700 ms and
// a 4-second operation deadline, a confirmation answers by its deadline
// without claiming a reservation it did not make, and the same pair
// later books exactly one room.
func TestConfirmWithinItsDeadline(t *testing.T) {
	t.Parallel() // the store sleeps; the wait is not work
	slow := &slowStore{delay: 700 * time.Millisecond}
	w := slowWorld(t, slow, Deadlines{Operation: 4 * time.Second})
	ctx := context.Background()
	start, err := w.start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	pair := args("booking_id", start.BookingID, "code", w.lastCode("ada@example.com"))
	slow.armed.Store(true)
	began := time.Now()
	res, err := w.confirm(ctx, web, pair)
	took := time.Since(began)
	slow.armed.Store(false)
	if took > 4400*time.Millisecond {
		t.Fatalf("confirmation answered after %v, past its 4 s deadline", took)
	}
	text := refusalText(err)
	truthful := err == nil && res.Status == string(reservation.Reserved) ||
		strings.HasPrefix(text, "This booking cannot be checked right now.") ||
		strings.HasPrefix(text, "The booking outcome could not be checked right now. The booking may have gone through;")
	if !truthful {
		t.Fatalf("confirmation on a slow store = %v %q", res, text)
	}
	if err != nil && strings.HasPrefix(text, "This booking cannot be checked") && freeDoubles(t, w) != 2 {
		t.Fatal("a room is held behind an answer that says nothing was checked")
	}
	res, err = w.confirm(ctx, web, pair)
	if err != nil || res.Status != string(reservation.Reserved) || freeDoubles(t, w) != 1 {
		t.Fatalf("retry = %s with %d doubles free", refusalText(err), freeDoubles(t, w))
	}
	checkConsistent(t, w, "after the retry")
}

// TestSlowStoreStillBooksAndCancels: with every store call taking 700 ms
// and the worksheet's own deadlines, the whole guest path still works,
// each call well within its 25 seconds: a start admits its mail in time
// (its budget reads run in parallel) and sends one code, the code books,
// and both cancellation steps finish.
func TestSlowStoreStillBooksAndCancels(t *testing.T) {
	t.Parallel() // the store sleeps; the wait is not work
	slow := &slowStore{delay: 700 * time.Millisecond}
	w := slowWorld(t, slow, Deadlines{})
	ctx := context.Background()
	slow.armed.Store(true)
	timed := func(what string, call func() error) {
		t.Helper()
		began := time.Now()
		err := call()
		if err != nil {
			t.Fatalf("%s on a slow store: %s", what, refusalText(err))
		}
		if took := time.Since(began); took > 20*time.Second {
			t.Fatalf("%s took %v", what, took)
		}
	}
	var start *StartResult
	timed("start", func() (err error) { start, err = w.start(ctx, web, stayArgs()); return err })
	if n := len(w.messages()); n != 1 {
		t.Fatalf("%d codes sent, want 1", n)
	}
	var conf *ConfirmResult
	timed("confirm", func() (err error) {
		conf, err = w.confirm(ctx, web, args("booking_id", start.BookingID, "code", w.lastCode("ada@example.com")))
		return err
	})
	var step1 *reservation.CancelResult
	timed("cancel step one", func() (err error) {
		step1, err = w.cancel(ctx, web, args("reservation_number", conf.ReservationNumber, "phone_last4", "0199"))
		return err
	})
	var done *reservation.CancelResult
	timed("cancel step two", func() (err error) {
		done, err = w.cancel(ctx, web, args("cancel_id", step1.CancelID, "code", w.lastCode("ada@example.com")))
		return err
	})
	if done.Status != string(reservation.Cancelled) {
		t.Fatalf("cancellation ended %s", done.Status)
	}
}

// hungMail is a provider that never answers: a send ends only when its
// context does, or after a long while.
type hungMail struct{}

func (hungMail) Send(ctx context.Context, _ message.Email) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(5 * time.Second):
		return nil
	}
}

// TestHungMailIsCutAtItsLimit: a code send that gets no answer is cut at
// the mail limit. Its code may have arrived, so the start answers with
// its booking_id and keeps the charge rather than refund and send again.
func TestHungMailIsCutAtItsLimit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.svc.deadlines = Deadlines{MailSend: 300 * time.Millisecond}.withDefaults()
	w.svc.mail = hungMail{}
	began := time.Now()
	res, err := w.start(context.Background(), web, stayArgs())
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("start waited %v for a provider that never answers", took)
	}
	if err != nil || res.BookingID == "" {
		t.Fatalf("start after an unanswered send = %s", refusalText(err))
	}
	if n := w.count(kindAdmission); n != 3 {
		t.Fatalf("%d charges kept after an uncertain send, want 3", n)
	}
}

// hungApply is a store whose writes hang once armed, as a location that
// stops answering mid-commit: each gives up when its context ends,
// having written nothing, or after a while longer than the location
// limit but well within the operation's deadline.
type hungApply struct {
	store.Store
	armed atomic.Bool
}

func (s *hungApply) Apply(ctx context.Context, w []store.Write) ([]store.Record, error) {
	if s.armed.Load() {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(6 * time.Second):
		}
	}
	return s.Store.Apply(ctx, w)
}

// TestHungStoreRequestIsCutAtItsLimit: a store request that hangs is cut
// at the worksheet's 4 seconds though the confirmation has 25: the
// confirmation answers truthfully after about 4 seconds, the cut-off
// write is reported as possibly done (never as nothing happened), and
// the same pair later books exactly one room.
func TestHungStoreRequestIsCutAtItsLimit(t *testing.T) {
	t.Parallel() // the store sleeps; the wait is not work
	base := newWorld(t)
	hung := &hungApply{Store: base.st}
	w := newWorldOn(t, base.cfg, hung)
	ctx := context.Background()
	start, err := w.start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	pair := args("booking_id", start.BookingID, "code", w.lastCode("ada@example.com"))
	hung.armed.Store(true)
	began := time.Now()
	_, err = w.confirm(ctx, web, pair)
	took := time.Since(began)
	hung.armed.Store(false)
	if took < 4*time.Second || took > 5*time.Second {
		t.Fatalf("confirmation answered after %v, want the 4 s store limit", took)
	}
	const uncertain = "The booking outcome could not be checked right now. The booking may have gone through;"
	if text := refusalText(err); !strings.HasPrefix(text, uncertain) {
		t.Fatalf("confirmation with a hung write = %q, want the uncertain sentence", text)
	}
	res, err := w.confirm(ctx, web, pair)
	if err != nil || res.Status != string(reservation.Reserved) || freeDoubles(t, w) != 1 {
		t.Fatalf("retry = %s with %d doubles free", refusalText(err), freeDoubles(t, w))
	}
	checkConsistent(t, w, "after the retry")
}
