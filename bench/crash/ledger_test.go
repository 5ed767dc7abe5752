package crash

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/postgres"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
	"frontdesk/usp/webhook"
)

// ledger is what the clients were told, kept on the client side: the
// state each reservation was last acknowledged in, the states a request
// left unanswered may have reached since, the clicks answered with a
// click id, the USP creates to replay, and the webhook events the
// acknowledged transitions of USP bookings announce.
type ledger struct {
	mu      sync.Mutex
	claims  map[string]*claim
	clicks  map[string]bool
	creates []uspCreate          // answered with a booking, for the replay check
	retry   map[string]uspCreate // sent but unanswered, by idempotency key
	events  map[string][]string  // USP reference → event types its transitions announce
	pool    []string             // references handed to staff
	acks    map[string]int       // acknowledgements by what was done
	lost    []string             // acknowledgements whose subject could not be found
}

// claim is one reservation as the clients know it.
type claim struct {
	door  string
	state reservation.State   // as last acknowledged
	maybe []reservation.State // reached perhaps, by a request left unanswered
	usp   bool
}

// uspCreate is one USP create as a platform sends it: replaying it with
// its key must answer with the same booking.
type uspCreate struct {
	mcp  bool
	key  string
	body map[string]any
	ref  string // the booking it answered with
}

func newLedger() *ledger {
	return &ledger{claims: map[string]*claim{}, clicks: map[string]bool{}, retry: map[string]uspCreate{},
		events: map[string][]string{}, acks: map[string]int{}}
}

// ack records that a client was told ref is now in state, by what.
func (l *ledger) ack(ref, what string, state reservation.State) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.claims[ref]
	if c == nil {
		c = &claim{door: what}
		l.claims[ref] = c
	}
	c.state, c.maybe = state, nil
	l.acks[what]++
	if c.usp {
		if typ := eventOf(state); typ != "" {
			l.events[ref] = append(l.events[ref], typ)
		}
	}
}

// ackUSP records a USP booking created.
func (l *ledger) ackUSP(cr uspCreate, what string) {
	l.ack(cr.ref, what, reservation.Reserved)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.claims[cr.ref].usp = true
	l.creates = append(l.creates, cr)
	delete(l.retry, cr.key)
}

// eventOf is the webhook event a USP booking's move to s announces.
func eventOf(s reservation.State) string {
	switch s {
	case reservation.Confirmed:
		return "booking.confirmed"
	case reservation.Cancelled:
		return "booking.canceled"
	case reservation.Moved:
		return "booking.rescheduled"
	}
	return ""
}

// unanswered records that a request moving ref to state got no answer:
// it may have committed.
func (l *ledger) unanswered(ref string, state reservation.State) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.claims[ref]; c != nil {
		c.maybe = append(c.maybe, state)
	}
}

// lose records an acknowledgement whose subject cannot be found.
func (l *ledger) lose(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lost = append(l.lost, what)
}

func (l *ledger) click(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clicks[id] = true
	l.acks["click"]++
}

// handOver gives ref to staff; take picks one at random.
func (l *ledger) handOver(ref string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pool = append(l.pool, ref)
}

func (l *ledger) take(r *rand.Rand) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pool) == 0 {
		return "", false
	}
	i := r.IntN(len(l.pool))
	ref := l.pool[i]
	l.pool = slices.Delete(l.pool, i, i+1)
	return ref, true
}

// pending returns the USP creates sent but never answered, for a retry.
func (l *ledger) pending(mcp bool) []uspCreate {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uspCreate
	for _, cr := range l.retry {
		if cr.mcp == mcp {
			out = append(out, cr)
		}
	}
	return out
}

func (l *ledger) sent(cr uspCreate) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retry[cr.key] = cr
}

func (l *ledger) dropRetry(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.retry, key)
}

// summary is the acknowledgements so far, for the log.
func (l *ledger) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	for what, n := range l.acks {
		parts = append(parts, fmt.Sprintf("%s %d", what, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// openStore opens the store a server left.
func openStore(t *testing.T, data, database string) store.Store {
	t.Helper()
	var st store.Store
	var err error
	if database != "" {
		st, err = postgres.Open(context.Background(), database)
	} else {
		st, err = sqlite.Open(context.Background(), filepath.Join(data, "frontdesk.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// listAll reads every record of kind.
func listAll(t *testing.T, st store.Store, kind string) []store.Record {
	t.Helper()
	var all []store.Record
	for after := ""; ; {
		recs, err := st.List(context.Background(), kind, "", after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, recs...)
		if len(recs) < 1000 {
			return all
		}
		after = recs[len(recs)-1].Key
	}
}

// check opens the store the server left and checks the invariants: every
// acknowledged reservation is in the state last acknowledged (or one a
// later unanswered request was reaching), no night of a unit is held
// beyond its count, no reservation in a terminal state holds units,
// every notice was delivered, every acknowledged click is stored, and
// every webhook an acknowledged USP transition announces was delivered
// or waits for its retry.
func check(t *testing.T, data, database string, l *ledger, hooks *receiver) {
	ctx := context.Background()
	st := openStore(t, data, database)
	defer st.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, lost := range l.lost {
		t.Errorf("lost: %s", lost)
	}
	for ref, c := range l.claims {
		r, err := st.GetReservation(ctx, ref)
		if err != nil {
			t.Errorf("acknowledged reservation %s (%s): %v", ref, c.door, err)
			continue
		}
		if got := reservation.State(r.State); got != c.state && !slices.Contains(c.maybe, got) {
			t.Errorf("reservation %s (%s) is %s, acknowledged %s (unanswered since: %v)", ref, c.door, got, c.state, c.maybe)
		}
	}
	counts, err := st.Counts(ctx, "riverside", firstNight.Format(time.DateOnly), firstNight.AddDate(0, 0, 2*stayWindows).Format(time.DateOnly))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Unit == "double" && c.Held > doubles {
			t.Errorf("night %s: %d doubles held of %d: oversold", c.Slot, c.Held, doubles)
		}
	}
	for after := ""; ; {
		holds, err := st.Holds(ctx, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range holds {
			r, err := st.GetReservation(ctx, h.ID)
			if err == nil && reservation.State(r.State).Terminal() {
				t.Errorf("reservation %s is %s and still holds units", h.ID, r.State)
			}
		}
		if len(holds) < 1000 {
			break
		}
		after = holds[len(holds)-1].ID
	}
	notices := listAll(t, st, "booking-notice")
	for _, n := range notices {
		var v struct{ State string }
		if err := json.Unmarshal(n.Value, &v); err != nil || v.State != "sent" {
			t.Errorf("notice %s is %q, not delivered", n.Key, v.State)
		}
	}
	var clicks [][]byte
	for _, kind := range []string{"orp.clicks", "orp.clicklog"} {
		for _, r := range listAll(t, st, kind) {
			clicks = append(clicks, r.Value)
		}
	}
	stored := bytes.Join(clicks, nil)
	for id := range l.clicks {
		if !bytes.Contains(stored, []byte(`"`+id+`"`)) {
			t.Errorf("acknowledged click %s is not stored", id)
		}
	}
	// Why each queued event still waits: under the lease of a delivery
	// a kill cut off, behind an earlier event of its booking, or retrying.
	queued := map[string]string{}
	now := time.Now()
	for _, r := range listAll(t, st, webhook.Kind) {
		var e struct {
			webhook.Event
			NextAt     time.Time `json:"next_at"`
			LeaseUntil time.Time `json:"lease_until"`
			LastError  string    `json:"last_error"`
		}
		if err := json.Unmarshal(r.Value, &e); err != nil {
			t.Fatal(err)
		}
		why := "behind an earlier event"
		switch {
		case now.Before(e.LeaseUntil):
			why = "leased"
		case e.LastError != "":
			why = "retrying after " + e.LastError
		}
		queued[e.Reference+" "+e.Type] = why
	}
	for _, r := range listAll(t, st, webhook.DeadKind) {
		t.Errorf("webhook event %s was given up", r.Key)
	}
	delivered := hooks.seen()
	waiting := map[string]int{}
	for ref, types := range l.events {
		for _, typ := range types {
			switch {
			case delivered[ref+" "+typ]:
			case queued[ref+" "+typ] != "":
				waiting[queued[ref+" "+typ]]++
			default:
				t.Errorf("webhook %s of %s was neither delivered nor queued", typ, ref)
			}
		}
	}
	t.Logf("%d reservations acknowledged, all as told; %d clicks stored; %d webhook events delivered, queued for retry: %v; %d notices, all delivered",
		len(l.claims), len(l.clicks), len(delivered), waiting, len(notices))
}
