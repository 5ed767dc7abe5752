package relay

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/direct/directtest"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/mail"
	"frontdesk/pricing"
	"frontdesk/store"
)

// lateCommit is a location's store whose reservation commit, once armed,
// is held until an instant and then made whatever the caller's deadline
// says: a write sent before the deadline that lands after it. With slow
// set, every other request takes 90% of the time its deadline leaves it:
// each awaited call nearly its full limit, as clipped.
type lateCommit struct {
	store.Store
	until atomic.Pointer[time.Time]
	slow  atomic.Bool
	done  chan struct{}
	once  sync.Once
}

// wait is one request's delay.
func (s *lateCommit) wait(ctx context.Context) error {
	end, ok := ctx.Deadline()
	if !s.slow.Load() || !ok {
		return nil
	}
	time.Sleep(time.Until(end) * 9 / 10)
	return ctx.Err()
}

func (s *lateCommit) Get(ctx context.Context, kind, key string) (store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return store.Record{}, err
	}
	return s.Store.Get(ctx, kind, key)
}

func (s *lateCommit) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.Store.GetMany(ctx, keys)
}

func (s *lateCommit) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	until := s.until.Load()
	if until == nil || !commitsReservation(writes) {
		if err := s.wait(ctx); err != nil {
			return nil, err
		}
		return s.Store.Apply(ctx, writes)
	}
	time.Sleep(time.Until(*until))
	defer s.once.Do(func() { close(s.done) })
	return s.Store.Apply(context.WithoutCancel(ctx), writes)
}

func commitsReservation(writes []store.Write) bool {
	for _, w := range writes {
		if w.Op == store.OpCreateReservation {
			return true
		}
	}
	return false
}

// scaledDeadlines are the worksheet's location limits divided by scale.
func scaledDeadlines(scale time.Duration) direct.Deadlines {
	return direct.Deadlines{Operation: 25 * time.Second / scale, Admission: 2 * time.Second / scale, MailSend: 3500 * time.Millisecond / scale,
		Inventory: 3 * time.Second / scale, Policy: 2 * time.Second / scale, Contact: 4 * time.Second / scale,
		Lookup: 5 * time.Second / scale, Location: 4 * time.Second / scale}
}

// raceWorld is a hub's door relaying to one location whose deadlines are
// the worksheet's divided by scale, on a store of lateCommit.
type raceWorld struct {
	door    *Door
	hub     bookingWorld
	loc     bookingWorld
	late    *lateCommit
	st      store.Store
	confirm map[string]any // a started booking's confirmation
}

func newRaceWorld(t *testing.T, scale time.Duration) *raceWorld {
	t.Helper()
	c := clock.NewFixed(bookNow)
	cfg, st := directtest.Demo(t)
	w := &raceWorld{hub: newBookingWorld(t, c), late: &lateCommit{Store: st, done: make(chan struct{})}, st: st}
	dev := mail.NewDev(st, c, nil)
	svc := direct.New(direct.Options{
		Config: direct.Config{Portfolio: cfg.Portfolio, Mail: cfg.Mail.Addresses, Deployment: cfg.Deployment.Deployment}, Store: w.late,
		Pricer: pricing.New(cfg.Portfolio, "http://localhost:8080"), Clock: c, Rand: random.Seeded([32]byte{2}), Mail: dev,
		Resolve: directtest.Resolver(cfg), Deadlines: scaledDeadlines(scale)})
	w.loc = bookingWorld{svc: svc, mail: dev}
	srv := NewServer(ServerOptions{Keys: []Key{key1}, Clock: c, Deployment: production(), Phone: PhoneOf(config.Demo().Portfolio)})
	ServeBookings(srv, svc)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	client, err := NewClient(ClientOptions{Origins: map[string]string{"riverside": ts.URL}, Keys: []Key{key1}, Clock: c, Rand: random.SeededBy(5)})
	if err != nil {
		t.Fatal(err)
	}
	w.door = NewDoor(client, w.hub.svc)
	res, err := w.door.Start(context.Background(), guest, directtest.Stay())
	if err != nil {
		t.Fatalf("start: %s", answerText(err))
	}
	w.confirm = directtest.Args("booking_id", res.BookingID, "code", w.loc.lastCode(t))
	return w
}

// settled asks the same confirmation again through the hub, with the
// store answering at once, until the location's own call is over, and
// checks that one reservation holds one room at the location alone.
func (w *raceWorld) settled(t *testing.T) *direct.ConfirmResult {
	t.Helper()
	ctx := context.Background()
	w.late.until.Store(nil)
	w.late.slow.Store(false)
	var conf *direct.ConfirmResult
	var err error
	for end := time.Now().Add(5 * time.Second); ; {
		if conf, err = w.door.Confirm(ctx, guest, w.confirm); err == nil || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || conf.Status != "reserved" {
		t.Fatalf("the same confirmation asked again through the hub = %+v, %s", conf, answerText(err))
	}
	found, err := w.door.Lookup(ctx, guest, directtest.Args("reservation_number", conf.ReservationNumber, "phone_last4", "0199"))
	if err != nil || found.Status != "reserved" {
		t.Fatalf("lookup of %s through the hub = %+v, %s", conf.ReservationNumber, found, answerText(err))
	}
	rows, err := w.st.ListReservations(ctx, store.ReservationFilter{Limit: 10})
	if err != nil || len(rows) != 1 {
		t.Fatalf("the location holds %d reservations (%v), want one", len(rows), err)
	}
	holds, err := w.st.Holds(ctx, "", 10)
	if err != nil || len(holds) != 1 || holds[0].ID != conf.ReservationNumber {
		t.Fatalf("holds at the location = %+v, %v; want %s's room held", holds, err, conf.ReservationNumber)
	}
	if rows, _ := w.hub.svc.Store().ListReservations(ctx, store.ReservationFilter{Limit: 10}); len(rows) != 0 {
		t.Fatalf("the hub holds %d reservations", len(rows))
	}
	return conf
}

// sentUncertain is the hub's answer to a confirmation whose outcome it
// could not learn in time.
const sentUncertain = "The booking outcome could not be checked right now. The booking may have gone through; a confirmation email is the proof. Ask again in a minute with the same booking_id and code, or call +1 303 555 0111."

// TestSplitWorstPathResponseRace: the worksheet's deadlines scaled by
// 1/10 (the hub's 44 s is 4.4 s, a location's 25 s is 2.5 s). The hub's
// own work takes half its budget before the target call, so the relayed
// confirmation (a 40 s mutation relay) is clipped to the 2.2 s left,
// under the location's 2.5 s; the location's commit lands 100 ms after
// the hub's deadline, and its answer after that. The hub answers by its
// deadline with the uncertainty sentence, never as undone; the
// reservation the late commit made is the only one, holds its room, and
// the same confirmation asked again through the hub answers with it, as
// a lookup of it does.
func TestSplitWorstPathResponseRace(t *testing.T) {
	const scale = 10
	hubDeadline := 44 * time.Second / scale // mcpfront.CallDeadline, scaled
	w := newRaceWorld(t, scale)
	call, cancel := context.WithTimeout(context.Background(), hubDeadline)
	defer cancel()
	time.Sleep(hubDeadline / 2) // the hub's own reads before the target call
	deadline, _ := call.Deadline()
	commitAt := deadline.Add(100 * time.Millisecond)
	w.late.until.Store(&commitAt)
	_, err := w.door.Confirm(call, guest, w.confirm)
	answered := time.Now()
	if got := answerText(err); got != sentUncertain || !IsUncertain(err) {
		t.Fatalf("the hub's answer at its deadline = %q (%v), want %q", got, err, sentUncertain)
	}
	if answered.Before(deadline.Add(-50*time.Millisecond)) || answered.After(deadline.Add(300*time.Millisecond)) {
		t.Fatalf("the hub answered %v from its deadline; the relayed call is clipped to what remains of it", answered.Sub(deadline))
	}
	// The write the location sent in time lands after the hub answered;
	// nothing takes it back.
	select {
	case <-w.late.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the location's commit never landed")
	}
	if !time.Now().After(deadline) {
		t.Fatal("the commit landed before the hub's deadline")
	}
	w.settled(t)
}

// TestSplitWorstPathWithinTheHubDeadline: the worksheet's deadlines
// scaled by 1/10, and every store request of the location taking 90% of
// what its limit leaves it (the policy read's 200 ms, the contact
// reads' 400 ms, a store request's 400 ms), so each awaited call on the
// confirmation's path takes nearly its full limit and the later ones
// are clipped to what remains of the location's 2.5 s. The location
// answers by its deadline, truthfully, and the hub passes that answer on
// well before its own 4.4 s; asked again, the confirmation books exactly
// one room.
func TestSplitWorstPathWithinTheHubDeadline(t *testing.T) {
	const scale = 10
	hubDeadline := 44 * time.Second / scale
	w := newRaceWorld(t, scale)
	w.late.slow.Store(true)
	call, cancel := context.WithTimeout(context.Background(), hubDeadline)
	defer cancel()
	began := time.Now()
	conf, err := w.door.Confirm(call, guest, w.confirm)
	took := time.Since(began)
	if took > 25*time.Second/scale+300*time.Millisecond {
		t.Fatalf("the hub answered after %v, past the location's %v", took, 25*time.Second/scale)
	}
	text := answerText(err)
	truthful := err == nil && conf.Status == "reserved" || text == sentUncertain ||
		strings.HasPrefix(text, "This booking cannot be checked right now. Try again in a few minutes or call +1 303 555 0111.")
	if !truthful {
		t.Fatalf("the hub's answer on the worst path = %+v %q", conf, text)
	}
	if got := w.settled(t); err == nil && got.ReservationNumber != conf.ReservationNumber {
		t.Fatalf("asked again: %s, first %s", got.ReservationNumber, conf.ReservationNumber)
	}
}
