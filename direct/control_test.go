package direct

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/direct/chatdoor/catalogue"
	"frontdesk/direct/directtest"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/pgtest"
	"frontdesk/internal/random"
	"frontdesk/inventory"
	"frontdesk/mail"
	"frontdesk/postgres"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/store"
)

// groupLimits are the worked deployment's ceilings: 3 pending per
// location, 8 across the group, and 5 cancellation codes a day.
func groupLimits(c *config.Config) {
	workedLimits(c)
	c.Limits.LocationPending, c.Limits.PortfolioPending, c.Limits.CancelPortfolioDaily = 3, 8, 5
}

// controlStoreOn is the hub's control data on a fresh store of engine,
// with the worked limits and a fixed clock.
func controlStoreOn(t *testing.T, engine string) (*ControlStore, *clock.Fixed) {
	t.Helper()
	w := newWorld(t, groupLimits)
	if engine == "postgres" {
		st, err := postgres.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		w = newWorldOn(t, w.cfg, st)
	}
	return NewControlStore(w.svc), w.clock
}

// TestControlAdmissionCushion: the hub admits 8 codes an hour across the
// group and 3 per keyed mailbox; an admission counts 60 seconds past its
// window, and a refund gives exactly one back.
func TestControlAdmissionCushion(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			c, clk := controlStoreOn(t, engine)
			ctx := context.Background()
			for i := range 3 {
				if _, err := c.Admit(ctx, []string{"m1"}); err != nil {
					t.Fatalf("admission %d of m1: %v", i+1, err)
				}
			}
			var full *ControlFull
			if _, err := c.Admit(ctx, []string{"m1"}); !errors.As(err, &full) || full.Budget != "mailbox" {
				t.Fatalf("fourth code of one mailbox in an hour: %v", err)
			}
			var last Admitted
			for i := range 5 {
				a, err := c.Admit(ctx, []string{fmt.Sprint("other", i)})
				if err != nil {
					t.Fatalf("group admission %d: %v", i+4, err)
				}
				last = a
			}
			if _, err := c.Admit(ctx, []string{"m9"}); !errors.As(err, &full) || full.Budget != "group" {
				t.Fatalf("ninth code of the group in an hour: %v", err)
			}
			if !last.At.Equal(clk.Now().Add(admissionCushion)) {
				t.Fatalf("admitted at %v, want now plus the cushion", last.At)
			}
			if err := c.Refund(ctx, last); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Admit(ctx, []string{"m9"}); err != nil {
				t.Fatalf("after a refund: %v", err)
			}
			clk.Advance(time.Hour + 59*time.Second) // inside the cushion
			if _, err := c.Admit(ctx, []string{"m10"}); !errors.As(err, &full) || full.Budget != "group" {
				t.Fatalf("an hour and 59 s on: %v", err)
			}
			clk.Advance(2 * time.Second)
			if _, err := c.Admit(ctx, []string{"m10"}); err != nil {
				t.Fatalf("past the cushion: %v", err)
			}
		})
	}
}

// TestControlClaimsOnce: parallel claims never pass the group's 8; a
// reservation's place is taken once and given back once, however often
// its claim or release is repeated.
func TestControlClaimsOnce(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			c, clk := controlStoreOn(t, engine)
			ctx := context.Background()
			until := clk.Now().Add(72 * time.Hour)
			var won, refused atomic.Int32
			var wg sync.WaitGroup
			for i := range 12 {
				wg.Go(func() {
					err := c.Claim(ctx, fmt.Sprint("RIV-", i), until)
					var full *ControlFull
					switch {
					case err == nil:
						won.Add(1)
					case errors.As(err, &full) && full.Budget == "pending":
						refused.Add(1)
					default:
						t.Errorf("claim %d: %v", i, err)
					}
				})
			}
			wg.Wait()
			if won.Load() != 8 || refused.Load() != 4 {
				t.Fatalf("%d claims won and %d refused of 12 against 8", won.Load(), refused.Load())
			}
			n, err := c.Pending(ctx)
			if err != nil || n != 8 {
				t.Fatalf("pending %d, %v", n, err)
			}
			var held string
			for i := range 12 {
				if err := c.Claim(ctx, fmt.Sprint("RIV-", i), until); err == nil {
					held = fmt.Sprint("RIV-", i) // a repeated claim keeps its place
				}
			}
			for range 2 {
				if err := c.Release(ctx, held); err != nil {
					t.Fatal(err)
				}
			}
			if n, _ := c.Pending(ctx); n != 7 {
				t.Fatalf("pending after one release made twice: %d", n)
			}
			clk.Advance(73 * time.Hour)
			if n, _ := c.Pending(ctx); n != 0 {
				t.Fatalf("pending after every stay ended: %d", n)
			}
		})
	}
}

// TestControlMarkerLapses: a mailbox's marker refuses a second holder
// for 30 seconds, then lapses; a settle under a marker that lapsed and
// was taken again is refused, and the stay settled under the live one
// comes with the next marker.
func TestControlMarkerLapses(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			c, clk := controlStoreOn(t, engine)
			ctx := context.Background()
			first, err := c.Mark(ctx, []string{"m1"})
			if err != nil || !first.Until.Equal(clk.Now().Add(markerLease)) {
				t.Fatalf("mark: %+v, %v", first, err)
			}
			if _, err := c.Mark(ctx, []string{"m1"}); !errors.Is(err, ErrControlBusy) || !errors.Is(err, store.ErrConflict) {
				t.Fatalf("a held marker: %v", err)
			}
			if _, err := c.Mark(ctx, []string{"m2"}); err != nil {
				t.Fatalf("another mailbox: %v", err)
			}
			clk.Advance(markerLease)
			second, err := c.Mark(ctx, []string{"m1"})
			if err != nil {
				t.Fatalf("a lapsed marker: %v", err)
			}
			stay := &ControlStay{Location: "oldtown", Checkin: "2027-01-10", Checkout: "2027-01-12", Pending: true}
			if err := c.Settle(ctx, first, stay); !errors.Is(err, ErrControlBusy) {
				t.Fatalf("settle under a lapsed marker: %v", err)
			}
			if err := c.Settle(ctx, second, stay); err != nil {
				t.Fatal(err)
			}
			third, err := c.Mark(ctx, []string{"m1"})
			if err != nil || len(third.Stays) != 1 || third.Stays[0] != *stay {
				t.Fatalf("the next marker: %+v, %v", third, err)
			}
		})
	}
}

// hubControl is a location's Control on a ControlStore in this process,
// with mailboxes keyed as the relay keys them (any fixed key will do
// here), and an outage switch.
type hubControl struct {
	c    *ControlStore
	down atomic.Bool
	// pendingDown fails the group's pending counter alone.
	pendingDown atomic.Bool
}

var errHubDown = errors.New("hub: control store unreachable")

// stays are the stays the hub holds for email, read under a marker that
// is settled at once.
func (h *hubControl) stays(t *testing.T, email string) []ControlStay {
	t.Helper()
	ctx := context.Background()
	m, err := h.c.Mark(ctx, []string{h.key(email)})
	if err == nil {
		err = h.c.Settle(ctx, m, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m.Stays
}

func (h *hubControl) key(email string) string {
	s := sha256.Sum256([]byte("control\x00" + email))
	return hex.EncodeToString(s[:])
}

func (h *hubControl) up() error {
	if h.down.Load() {
		return errHubDown
	}
	return nil
}

func (h *hubControl) Admit(ctx context.Context, email string) (Admitted, error) {
	if err := h.up(); err != nil {
		return Admitted{}, err
	}
	return h.c.Admit(ctx, []string{h.key(email)})
}

func (h *hubControl) AdmitCancel(ctx context.Context) (Admitted, error) {
	if err := h.up(); err != nil {
		return Admitted{}, err
	}
	return h.c.AdmitCancel(ctx)
}

func (h *hubControl) Restate(ctx context.Context, email string, stay ControlStay, to *ControlStay) error {
	if err := h.up(); err != nil {
		return err
	}
	return h.c.Restate(ctx, []string{h.key(email)}, stay, to)
}

func (h *hubControl) Refund(ctx context.Context, a Admitted) error {
	if err := h.up(); err != nil {
		return err
	}
	return h.c.Refund(ctx, a)
}

func (h *hubControl) Pending(ctx context.Context) (int, error) {
	if err := h.up(); err != nil {
		return 0, err
	}
	if h.pendingDown.Load() {
		return 0, errHubDown
	}
	return h.c.Pending(ctx)
}

func (h *hubControl) Claim(ctx context.Context, ref string, until time.Time) error {
	if err := h.up(); err != nil {
		return err
	}
	if h.pendingDown.Load() {
		return errHubDown
	}
	return h.c.Claim(ctx, ref, until)
}

func (h *hubControl) Release(ctx context.Context, ref string) error {
	if err := h.up(); err != nil {
		return err
	}
	return h.c.Release(ctx, ref)
}

func (h *hubControl) Mark(ctx context.Context, email string) (Marker, error) {
	if err := h.up(); err != nil {
		return Marker{}, err
	}
	return h.c.Mark(ctx, []string{h.key(email)})
}

func (h *hubControl) Settle(ctx context.Context, m Marker, made *ControlStay) error {
	if err := h.up(); err != nil {
		return err
	}
	return h.c.Settle(ctx, m, made)
}

// splitWorlds are a hub and one world per location, each on a store of
// its own, sharing one clock, the locations consulting the hub's
// control data through hub.
func splitWorlds(t *testing.T, edit ...func(*config.Config)) (hub *hubControl, locations map[string]*world) {
	t.Helper()
	return splitWorldsSlow(t, nil, edit...)
}

// splitWorldsSlow is splitWorlds with the hub's store behind slow.
func splitWorldsSlow(t *testing.T, slow *slowStore, edit ...func(*config.Config)) (hub *hubControl, locations map[string]*world) {
	t.Helper()
	edit = append([]func(*config.Config){groupLimits}, edit...)
	cfg, hubStore := directtest.Demo(t, edit...)
	clk := clock.NewFixed(testNow)
	on := func(st store.Store, seed byte) *world {
		fm := &faultyMail{dev: mail.NewDev(st, clk, nil)}
		w := &world{t: t, cfg: cfg, st: st, clock: clk, mail: fm}
		w.svc = New(Options{Config: bookingConfig(cfg), Store: st, Pricer: pricing.New(cfg.Portfolio, "http://localhost:8080"),
			Clock: clk, Rand: random.SeededBy(seed), Mail: fm, Resolve: directtest.Resolver(cfg)})
		return w
	}
	if slow != nil {
		slow.Store, hubStore = hubStore, slow
	}
	hub = &hubControl{c: NewControlStore(on(hubStore, 1).svc)}
	locations = map[string]*world{}
	for i, l := range cfg.Locations {
		_, st := directtest.Demo(t, edit...)
		w := on(st, byte(i+2))
		var others []string
		for _, o := range cfg.Locations {
			if o.Slug != l.Slug {
				others = append(others, o.Slug)
			}
		}
		w.svc.UseControl(hub, others)
		locations[l.Slug] = w
	}
	return hub, locations
}

// moreCodes raises the code budgets so that pending places, not codes,
// run out first.
func moreCodes(c *config.Config) {
	c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 30, 100, 15
}

// TestSplitGroupCeiling: with the hub's control data the group holds at
// most 8 pending chat reservations over three locations of 3 each; a
// start past it and a confirmation racing for the last place get the
// paused-for-staff sentence.
func TestSplitGroupCeiling(t *testing.T) {
	_, locs := splitWorlds(t, moreCodes)
	ctx := context.Background()
	n := 0
	stay := func(slug string, i int) Args {
		return stayArgs("property", slug, "email", fmt.Sprintf("guest%d@example.com", i),
			"checkin", fmt.Sprintf("2027-02-%02d", i+1), "checkout", fmt.Sprintf("2027-02-%02d", i+2))
	}
	for _, slug := range []string{"riverside", "oldtown"} {
		for range 3 {
			locs[slug].book(stay(slug, n))
			n++
		}
	}
	// Three starts at the last location while the group has 6; two
	// places are left, so the third confirmation is refused.
	air := locs["airport"]
	var started []*StartResult
	for i := range 3 {
		res, err := air.start(ctx, web, stay("airport", n+i))
		if err != nil {
			t.Fatalf("start %d at airport: %s", i, refusalText(err))
		}
		started = append(started, res)
	}
	var refusals []string
	for i, res := range started {
		_, err := air.confirm(ctx, web, args("booking_id", res.BookingID, "code", air.lastCode(fmt.Sprintf("guest%d@example.com", n+i))))
		if err != nil {
			refusals = append(refusals, refusalText(err))
		}
	}
	if len(refusals) != 1 || !strings.HasPrefix(refusals[0], sentPausedForStaff) {
		t.Fatalf("confirmations past the group's 8: %q", refusals)
	}
	if _, err := air.start(ctx, web, stay("airport", 20)); !strings.HasPrefix(refusalText(err), sentPausedForStaff) {
		t.Fatalf("a start with the group full: %q", refusalText(err))
	}
}

// TestSplitControlOutage: with the hub's control data down, no code is
// sent (the shared mail counter is required), while confirmations of
// codes already sent go on under each location's own ceiling of 3 (9
// over three locations, past the group's 8), each naming for staff the
// locations whose stays were not read.
func TestSplitControlOutage(t *testing.T) {
	hub, locs := splitWorlds(t, moreCodes)
	ctx := context.Background()
	type started struct {
		w     *world
		id    string
		email string
	}
	var all []started
	i := 0
	for _, slug := range []string{"riverside", "oldtown", "airport"} {
		for range 4 {
			email := fmt.Sprintf("guest%d@example.com", i)
			w := locs[slug]
			res, err := w.start(ctx, web, stayArgs("property", slug, "email", email,
				"checkin", fmt.Sprintf("2027-03-%02d", i+1), "checkout", fmt.Sprintf("2027-03-%02d", i+2)))
			if err != nil {
				t.Fatalf("start %d: %s", i, refusalText(err))
			}
			all = append(all, started{w, res.BookingID, email})
			i++
		}
	}
	hub.down.Store(true)
	if _, err := locs["airport"].start(ctx, web, stayArgs("property", "airport", "email", "late@example.com")); !strings.HasPrefix(refusalText(err), sentPaused) {
		t.Fatalf("a start with the mail counter down: %q", refusalText(err))
	}
	reserved := map[string]int{}
	for _, s := range all {
		res, err := s.w.confirm(ctx, web, args("booking_id", s.id, "code", s.w.lastCode(s.email)))
		if err != nil {
			if !strings.HasPrefix(refusalText(err), sentPausedForStaff) {
				t.Fatalf("confirm with the hub down: %s", refusalText(err))
			}
			continue
		}
		_, facts, err := s.w.svc.Booked(ctx, res.ReservationNumber)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := s.w.svc.LocationOf(res.ReservationNumber)
		if len(facts.Unread) != 2 || strings.Contains(strings.Join(facts.Unread, ","), l.Slug) {
			t.Fatalf("%s at %s names %q unread", res.ReservationNumber, l.Slug, facts.Unread)
		}
		reserved[l.Slug]++
	}
	if reserved["riverside"] != 3 || reserved["oldtown"] != 3 || reserved["airport"] != 3 {
		t.Fatalf("reserved with the hub down: %v", reserved)
	}
}

var sentPaused, _ = catalogue.Sentence("paused")

// TestSplitSlowHubStore: with every request to the hub's store taking
// 700 ms, past the hub's 650 ms, a start answers the pause sentence
// within the admission's 2 seconds, sending nothing, and a confirmation
// of a code already sent reserves under the location's own limits
// within the location's deadline, naming the unread locations.
func TestSplitSlowHubStore(t *testing.T) {
	slow := &slowStore{delay: 700 * time.Millisecond}
	_, locs := splitWorldsSlow(t, slow, moreCodes)
	ctx := context.Background()
	w := locs["oldtown"]
	res, err := w.start(ctx, web, stayArgs("property", "oldtown", "email", "first@example.com"))
	if err != nil {
		t.Fatal(refusalText(err))
	}
	slow.armed.Store(true)
	sent := len(w.messages())
	began := time.Now()
	_, err = w.start(ctx, web, stayArgs("property", "oldtown", "email", "second@example.com", "checkin", "2027-01-10", "checkout", "2027-01-11"))
	if took := time.Since(began); !strings.HasPrefix(refusalText(err), sentPaused) || took > 3*time.Second {
		t.Fatalf("a start against a 700 ms hub store: %q after %v", refusalText(err), took)
	}
	if len(w.messages()) != sent {
		t.Fatal("a code was sent without an acknowledged admission")
	}
	began = time.Now()
	conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode("first@example.com")))
	if took := time.Since(began); err != nil || took > 25*time.Second {
		t.Fatalf("a confirmation against a 700 ms hub store: %q after %v", refusalText(err), took)
	}
	if _, facts, err := w.svc.Booked(ctx, conf.ReservationNumber); err != nil || len(facts.Unread) != 2 {
		t.Fatalf("unread %q, %v", facts.Unread, err)
	}
}

// TestMarkerDeadline: work under a contact marker ends 500 ms before the
// marker lapses, or at the operation's own deadline when that is sooner;
// without a marker the operation's deadline stands.
func TestMarkerDeadline(t *testing.T) {
	now := testNow
	op, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	opEnd, _ := op.Deadline()
	for _, c := range []struct {
		name  string
		m     marked
		until time.Duration // from the real now, roughly
	}{
		{"a marker lapsing in 2 s", marked{marker: &Marker{}, until: now.Add(2 * time.Second)}, 1500 * time.Millisecond},
		{"a marker lapsing in 30 s", marked{marker: &Marker{}, until: now.Add(30 * time.Second)}, 25 * time.Second},
		{"no marker", marked{unread: []string{"oldtown"}}, 25 * time.Second},
	} {
		ctx, cancel := markerDeadline(op, c.m, now)
		end, _ := ctx.Deadline()
		cancel()
		if want := time.Now().Add(c.until); end.After(opEnd) || end.Sub(want).Abs() > 200*time.Millisecond {
			t.Errorf("%s: ends in %v, want about %v", c.name, time.Until(end), c.until)
		}
	}
}

// TestSplitIdenticalConfirmsRace: two identical confirmations at once,
// with the hub's reads of the mailbox's other stays delayed 300 ms,
// make one reservation, and both answer with it (§8 step 5), as in one
// process: the one that found the marker held waits for the other's
// receipt rather than answering with contention.
func TestSplitIdenticalConfirmsRace(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			slow := &slowStore{delay: 300 * time.Millisecond, only: func(kind string) bool { return kind == kindControlMarker || kind == kindControlStays }}
			if engine == "postgres" {
				st, err := postgres.Open(context.Background(), pgtest.Schema(t))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				slow.Store = st
			}
			_, locs := splitWorldsSlow(t, slow)
			w := locs["riverside"]
			ctx := context.Background()
			res, err := w.start(ctx, web, stayArgs())
			if err != nil {
				t.Fatal(refusalText(err))
			}
			code := w.lastCode("ada@example.com")
			slow.armed.Store(true)
			var wg sync.WaitGroup
			refs, refusals := make([]string, 2), make([]string, 2)
			for i := range 2 {
				wg.Go(func() {
					conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
					if err != nil {
						refusals[i] = refusalText(err)
						return
					}
					refs[i] = conf.ReservationNumber
				})
			}
			wg.Wait()
			rows, err := w.st.ListReservations(ctx, store.ReservationFilter{Limit: 10})
			if err != nil || len(rows) != 1 || refs[0] == "" || refs[0] != refs[1] {
				t.Fatalf("%d reservations (%v), answers %q %q", len(rows), err, refs, refusals)
			}
		})
	}
}

// TestSplitSameEmailAcrossLocations: the same-email rules see the other
// locations' stays through the hub: an overlapping stay at a second
// location is refused with the contact sentence, and of two overlapping
// stays confirmed at once at two locations, with the hub's reads delayed
// 300 ms, exactly one is reserved.
func TestSplitSameEmailAcrossLocations(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			slow := &slowStore{delay: 300 * time.Millisecond, only: func(kind string) bool { return kind == kindControlMarker || kind == kindControlStays }}
			if engine == "postgres" {
				st, err := postgres.Open(context.Background(), pgtest.Schema(t))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				slow.Store = st
			}
			_, locs := splitWorldsSlow(t, slow, moreCodes)
			ctx := context.Background()
			locs["riverside"].book(stayArgs())
			_, err := locs["oldtown"].startConfirm(stayArgs("property", "oldtown", "checkin", "2027-01-01", "checkout", "2027-01-03"))
			if !strings.HasPrefix(refusalText(err), "This stay cannot be booked in chat.") {
				t.Fatalf("an overlapping stay at another location: %q", refusalText(err))
			}

			slow.armed.Store(true)
			var wg sync.WaitGroup
			made := make([]bool, 2)
			for i, slug := range []string{"oldtown", "airport"} {
				w := locs[slug]
				res, err := w.start(ctx, web, stayArgs("property", slug, "email", "grace@example.com", "checkin", "2027-02-01", "checkout", "2027-02-03"))
				if err != nil {
					t.Fatal(refusalText(err))
				}
				code := w.lastCode("grace@example.com")
				wg.Go(func() {
					_, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", code))
					made[i] = err == nil
				})
			}
			wg.Wait()
			if made[0] == made[1] {
				t.Fatalf("overlapping stays of one email confirmed at once at two locations: reserved %v", made)
			}
		})
	}
}

// TestControlStaysSurviveRotation: stays kept under a mailbox's key of
// the older secret version are read with the newest key's marker, and
// the next settle moves them under the newest key.
func TestControlStaysSurviveRotation(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			c, _ := controlStoreOn(t, engine)
			ctx := context.Background()
			before := ControlStay{Location: "riverside", Checkin: "2027-01-10", Checkout: "2027-01-12", Pending: true}
			m, err := c.Mark(ctx, []string{"old"})
			if err == nil {
				err = c.Settle(ctx, m, &before)
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err = c.Mark(ctx, []string{"new", "old"})
			if err != nil || len(m.Stays) != 1 || m.Stays[0] != before {
				t.Fatalf("after a rotation: %+v, %v", m, err)
			}
			after := ControlStay{Location: "airport", Checkin: "2027-02-10", Checkout: "2027-02-12"}
			if err := c.Settle(ctx, m, &after); err != nil {
				t.Fatal(err)
			}
			m, err = c.Mark(ctx, []string{"new"}) // the old version retired
			if err != nil || len(m.Stays) != 2 {
				t.Fatalf("under the newest key alone: %+v, %v", m, err)
			}
			if _, err := c.Mark(ctx, nil); err == nil {
				t.Fatal("a marker of no key")
			}
		})
	}
}

// TestControlCancelBudget: the hub admits the group's 5 cancellation
// codes a day apart from its booking codes, and a refund gives one back.
func TestControlCancelBudget(t *testing.T) {
	c, _ := controlStoreOn(t, "sqlite")
	ctx := context.Background()
	var last Admitted
	for i := range 5 {
		a, err := c.AdmitCancel(ctx)
		if err != nil || !a.Cancel {
			t.Fatalf("cancellation code %d: %+v, %v", i+1, a, err)
		}
		last = a
	}
	var full *ControlFull
	if _, err := c.AdmitCancel(ctx); !errors.As(err, &full) || full.Budget != "group" {
		t.Fatalf("a sixth cancellation code: %v", err)
	}
	if _, err := c.Admit(ctx, []string{"m1"}); err != nil {
		t.Fatalf("a booking code with the cancellation budget spent: %v", err)
	}
	if err := c.Refund(ctx, last); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AdmitCancel(ctx); err != nil {
		t.Fatalf("after a refund: %v", err)
	}
	if _, err := c.Admit(ctx, nil); err == nil {
		t.Fatal("an admission of no mailbox")
	}
}

// TestSplitGroupPlaceGoesBack: a reservation staff confirm gives its
// group place at the hub back as the outbox delivers the decision, once
// however often it is delivered.
func TestSplitGroupPlaceGoesBack(t *testing.T) {
	hub, locs := splitWorlds(t)
	ctx := context.Background()
	w := locs["riverside"]
	ref := w.book(stayArgs())
	if n, err := hub.c.Pending(ctx); err != nil || n != 1 {
		t.Fatalf("group pending after a booking: %d, %v", n, err)
	}
	if _, _, err := w.svc.Core().Decide(ctx, reservation.Decision{Reference: ref, To: reservation.Confirmed, By: "owner"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := hub.c.Pending(ctx); n != 1 {
		t.Fatalf("group pending before the outbox ran: %d", n)
	}
	for range 2 {
		if err := w.svc.Desk().Relay(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := hub.c.Pending(ctx); n != 0 {
		t.Fatalf("group pending once the decision was delivered: %d", n)
	}
}

// TestSplitDecisionsReachTheHubsStays: once staff confirm a stay the
// hub no longer counts it as awaiting staff, and once they cancel it the
// same email may book those nights at another location in chat.
func TestSplitDecisionsReachTheHubsStays(t *testing.T) {
	hub, locs := splitWorlds(t, moreCodes)
	ctx := context.Background()
	w := locs["riverside"]
	ref := w.book(stayArgs())
	decide := func(to reservation.State) {
		t.Helper()
		if _, _, err := w.svc.Core().Decide(ctx, reservation.Decision{Reference: ref, To: to, By: "owner"}); err != nil {
			t.Fatal(err)
		}
		if err := w.svc.Desk().Relay(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stays := func() []ControlStay { return hub.stays(t, "ada@example.com") }
	if s := stays(); len(s) != 1 || !s[0].Pending {
		t.Fatalf("after the booking: %+v", s)
	}
	decide(reservation.Confirmed)
	if s := stays(); len(s) != 1 || s[0].Pending {
		t.Fatalf("after staff confirmed: %+v", s)
	}
	decide(reservation.Cancelled)
	if s := stays(); len(s) != 0 {
		t.Fatalf("after staff cancelled: %+v", s)
	}
	locs["oldtown"].book(stayArgs("property", "oldtown"))
}

// TestControlAdmissionSurvivesRotation: a mailbox's codes admitted under
// the older version's key count against its ceiling under the newest.
func TestControlAdmissionSurvivesRotation(t *testing.T) {
	c, _ := controlStoreOn(t, "sqlite")
	ctx := context.Background()
	for range 2 {
		if _, err := c.Admit(ctx, []string{"old"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Admit(ctx, []string{"new", "old"}); err != nil {
		t.Fatalf("the third code of the hour: %v", err)
	}
	var full *ControlFull
	if _, err := c.Admit(ctx, []string{"new", "old"}); !errors.As(err, &full) || full.Budget != "mailbox" {
		t.Fatalf("a fourth code of the hour after a rotation: %v", err)
	}
}

// TestSplitMailboxLimitAcrossLocations: one mailbox's three codes an
// hour are counted across the group at the hub: a fourth start, at a
// location that sent it only one, gets the contact sentence.
func TestSplitMailboxLimitAcrossLocations(t *testing.T) {
	_, locs := splitWorlds(t, moreCodes)
	ctx := context.Background()
	for i, slug := range []string{"riverside", "oldtown", "airport", "oldtown"} {
		_, err := locs[slug].start(ctx, web, stayArgs("property", slug,
			"checkin", fmt.Sprintf("2027-04-%02d", 2*i+1), "checkout", fmt.Sprintf("2027-04-%02d", 2*i+2)))
		switch {
		case i < 3 && err != nil:
			t.Fatalf("code %d at %s: %s", i+1, slug, refusalText(err))
		case i == 3 && !strings.HasPrefix(refusalText(err), "This stay cannot be booked in chat."):
			t.Fatalf("a fourth code of the hour at %s: %q", slug, refusalText(err))
		}
	}
}

// TestControlHubTimings: each request to the hub's store ends at 650 ms:
// a 400 ms store still answers a claim and an admission, a 700 ms one
// fails them by the hub's own limits, never later, and a failure is no
// refusal of a full ceiling.
func TestControlHubTimings(t *testing.T) {
	for _, c := range []struct {
		delay time.Duration
		ok    bool
	}{{400 * time.Millisecond, true}, {700 * time.Millisecond, false}} {
		slow := &slowStore{delay: c.delay}
		w := newWorld(t, groupLimits)
		slow.Store = w.st
		hub := NewControlStore(newWorldOn(t, w.cfg, slow).svc)
		slow.armed.Store(true)
		ctx := context.Background()
		for name, op := range map[string]struct {
			run   func() error
			limit time.Duration
		}{
			"claim": {func() error { return hub.Claim(ctx, "RIV-1", testNow.Add(time.Hour)) }, hubMutation},
			"admit": {func() error { _, err := hub.Admit(ctx, []string{"m1"}); return err }, hubMailCounter},
			"mark":  {func() error { _, err := hub.Mark(ctx, []string{"m1"}); return err }, hubMutation},
		} {
			began := time.Now()
			err := op.run()
			took := time.Since(began)
			var full *ControlFull
			switch {
			case c.ok && err != nil:
				t.Errorf("%s on a %v store: %v", name, c.delay, err)
			case !c.ok && (err == nil || errors.As(err, &full)):
				t.Errorf("%s on a %v store: %v", name, c.delay, err)
			case !c.ok && took > op.limit+200*time.Millisecond:
				t.Errorf("%s on a %v store failed after %v, past its %v", name, c.delay, took, op.limit)
			}
		}
	}
}

// TestSplitMovedStayMovesAtTheHub: a chat stay rescheduled to other
// nights is held at the hub on its new nights once the outbox delivers
// the move, so the same email's overlapping stay at another location is
// refused there, and its old nights are free to book again.
func TestSplitMovedStayMovesAtTheHub(t *testing.T) {
	hub, locs := splitWorlds(t, moreCodes)
	ctx := context.Background()
	w := locs["riverside"]
	ref := w.book(stayArgs())
	r, _, err := w.svc.Booked(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := w.svc.LocationOf(ref)
	unit, _ := l.Unit(r.Unit)
	in, _ := civil.Parse("2027-03-01")
	_, err = w.svc.Desk().Reschedule(ctx, reservation.Reschedule{Slots: inventory.Nights(in, 3),
		Change: reservation.Change{Read: r, By: "owner", At: w.clock.Now(), Unit: reservation.UnitOf(l, unit)}})
	if err == nil {
		err = w.svc.Desk().Relay(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := ControlStay{Location: "riverside", Checkin: "2027-03-01", Checkout: "2027-03-04", Pending: true}
	if s := hub.stays(t, "ada@example.com"); len(s) != 1 || s[0] != want {
		t.Fatalf("the hub's stays after the move: %+v", s)
	}
	_, err = locs["airport"].startConfirm(stayArgs("property", "airport", "checkin", "2027-03-02", "checkout", "2027-03-05"))
	if !strings.HasPrefix(refusalText(err), "This stay cannot be booked in chat.") {
		t.Fatalf("a stay overlapping the moved stay's new nights: %q", refusalText(err))
	}
	locs["oldtown"].book(stayArgs("property", "oldtown")) // the old nights
}

// TestSplitPendingCountDownFlagsStaff: with the hub's pending counter
// failing while its contact markers work, a confirmation reserves under
// the location's own ceiling and tells staff that the group's count was
// not checked; the other locations' stays were read, so none is named.
func TestSplitPendingCountDownFlagsStaff(t *testing.T) {
	hub, locs := splitWorlds(t)
	ctx := context.Background()
	w := locs["oldtown"]
	hub.pendingDown.Store(true)
	ref := w.book(stayArgs("property", "oldtown"))
	_, facts, err := w.svc.Booked(ctx, ref)
	if err != nil || len(facts.Unread) != 0 || len(facts.Unchecked) != 1 || facts.Unchecked[0] != uncheckedGroupPending {
		t.Fatalf("unread %q, unchecked %q, %v", facts.Unread, facts.Unchecked, err)
	}
	hub.pendingDown.Store(false)
	ref = w.book(stayArgs("property", "oldtown", "email", "grace@example.com"))
	if _, facts, err := w.svc.Booked(ctx, ref); err != nil || len(facts.Unchecked) != 0 {
		t.Fatalf("with the counter back: unchecked %q, %v", facts.Unchecked, err)
	}
}
