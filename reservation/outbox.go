package reservation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"frontdesk/store"
)

// The outbox keeps every transition the desk commits, door-neutral, in
// the transaction of the transition, so a consumer reads each one once,
// in one total order, however the process dies.
//
// Ordering. A transition does not pick its position: on PostgreSQL two
// transactions that drew positions 7 and 8 from a sequence may commit 8
// first, and a reader that moved its cursor past 8 would never see 7.
// So a transition stores its event unsequenced, keyed by reference and
// version (unique: a version commits once), and the relay numbers the
// committed events afterwards, in its own transaction, under a
// compare-and-swap of one head record. Two relays cannot number at once
// (the later swap is refused and reads again), so positions become
// visible in the order they were given: every position below one a
// reader sees is already committed, and "position after cursor" skips
// nothing. A refused numbering leaves no gap, as it leaves nothing.
// Within a reference, versions are numbered in order: a later version
// commits only after the earlier one did.
//
// Delivery. A consumer has a name and a cursor record; the relay hands
// it the events after its cursor and commits what it returns with the
// cursor moved on, under a compare-and-swap of the cursor: a relay that
// lost the race commits nothing, so each event takes effect once. The
// referral ledger is one: it settles an attributed booking's end.
const (
	kindEventPending = "reservation-event-pending" // key: reference "/" 20-digit version
	kindEvent        = "reservation-event"         // key: 20-digit position
	kindEventHead    = "reservation-event-head"    // key: headKey; value: the last position given
	kindEventCursor  = "reservation-event-cursor"  // key: consumer name; value: the last position delivered
	headKey          = "head"
	// eventPage is how many events one numbering or one delivery takes.
	eventPage = 100
	// relayPassDeadline bounds one pass of Run, so a hung store cannot
	// keep it running; the next pass takes up what it left.
	relayPassDeadline = 24 * time.Second
	// maxRaces bounds how often one pass reads again after another relay
	// won a compare-and-swap; that relay delivers what this one left.
	maxRaces = 8
)

// StoredEvent is a transition as the outbox keeps it: which reservation,
// from what to what, at which version and when, and what it holds. It
// carries no contact nor anything else of the guest; a consumer that
// needs more reads the reservation.
type StoredEvent struct {
	// Position is the event's place in the outbox's one order, from 1;
	// 0 until the relay numbered it.
	Position  int64     `json:"position,omitempty"`
	Reference string    `json:"reference"`
	Version   int64     `json:"version"`
	From      State     `json:"from,omitempty"` // "" for a creation
	To        State     `json:"to"`
	Change    string    `json:"change"`
	At        time.Time `json:"at"`
	Location  string    `json:"location"`
	Unit      string    `json:"unit"`
	Slots     []string  `json:"slots"`
	Source    Source    `json:"source"`
	Lapsed    bool      `json:"lapsed,omitempty"` // Event.Lapsed
	Was       []string  `json:"was,omitempty"`    // Event.Was
}

// Stored is e as the outbox keeps it.
func (e Event) Stored() StoredEvent {
	r := e.Reservation
	return StoredEvent{Reference: r.Reference, Version: e.Version, From: e.From, To: r.State, Change: e.Change, At: e.At.UTC(),
		Location: r.Location, Unit: r.Unit, Slots: r.Slots, Source: r.Source, Lapsed: e.Lapsed, Was: e.Was}
}

// Consumer turns one stored event into writes committed with the
// consumer's cursor moving past it. It may read the store. A refusal of
// one of its writes, or an error, leaves the cursor where it was: the
// event is offered again at the next pass, and after repeated failures
// that are not outages it is set aside (outbox_setaside.go).
type Consumer func(ctx context.Context, e StoredEvent) ([]store.Write, error)

// Consume makes c, under name, a consumer of the outbox, at wiring,
// before Run. A name seen for the first time starts at the oldest event
// kept.
func (d *Desk) Consume(name string, c Consumer) { d.consumers = register(d.consumers, name, c) }

func pendingKey(ref string, version int64) string { return fmt.Sprintf("%s/%020d", ref, version) }

func positionKey(pos int64) string { return fmt.Sprintf("%020d", pos) }

// outboxWrite is the write that stores e unsequenced.
func outboxWrite(e Event) store.Write {
	v, err := json.Marshal(e.Stored())
	if err != nil {
		panic(fmt.Sprintf("reservation: encode event: %v", err)) // the package's own type always encodes
	}
	return store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindEventPending,
		Key: pendingKey(e.Reservation.Reference, e.Version), Value: v, UpdatedAt: e.At}}
}

// kicked tells the relay that a transition committed; a relay already
// told is not told twice.
func (d *Desk) kicked() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// Run relays the outbox until ctx ends: a pass at once, for what a
// stopped process left, one after every commit of a transition, and one
// every interval, for what another process committed. failed hears a
// pass's error, but for a consumer's failure on an event, which the desk
// logs once rather than at every pass.
func (d *Desk) Run(ctx context.Context, every time.Duration, failed func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		pass, cancel := context.WithTimeout(ctx, relayPassDeadline)
		if err := d.Relay(pass); err != nil && ctx.Err() == nil && !onlyEventErrors(err) {
			failed(err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-d.kick:
		case <-t.C:
		}
	}
}

// Relay numbers every committed event and delivers it to every
// consumer, returning once both are done or an error stops them. A
// consumer that failed on an event (an *EventError) leaves the others
// to go on; the errors are joined.
func (d *Desk) Relay(ctx context.Context) error {
	rest, err := d.relayTogether(ctx)
	if err != nil {
		// Whatever stopped the shared pass (a backlog, a race, an
		// outage), numbering and delivering one consumer at a time
		// takes it up and says what failed.
		if err := d.number(ctx); err != nil {
			return fmt.Errorf("number events: %w", err)
		}
		rest = d.consumers
	}
	var errs []error
	for _, c := range rest {
		if err := d.deliver(ctx, c.name, c.f); err != nil {
			errs = append(errs, fmt.Errorf("deliver events to %s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// errBacklog stops the shared pass at a full page: number and deliver
// take a backlog a page at a time.
var errBacklog = errors.New("more than a page of events")

// relayTogether is the relay of the usual pass, where the events are
// few and ask nothing of most consumers. It reads the head and every
// consumer's cursor in one round trip, the unsequenced events in
// another, and the numbered events after the slowest cursor, if any, in
// a third. It numbers the unsequenced events and offers each consumer
// its events, and in one transaction commits the numbering with the
// cursor of each consumer moved past the events that asked it for
// nothing. The head's and the cursors' swaps make a pass that raced
// another relay commit nothing. A consumer may thus be offered an event
// whose numbering does not commit; it is offered the event again, as
// after any lost race.
//
// It returns the consumers left for deliver: one with a failing event,
// and one an event asks writes of or fails in (its cursor moved as far
// as the events before). An error (errBacklog, a refused swap, an
// outage) commits nothing and leaves the whole pass to Relay's slower
// path.
func (d *Desk) relayTogether(ctx context.Context) ([]named[Consumer], error) {
	keys := make([]store.Key, 0, 1+2*len(d.consumers))
	keys = append(keys, store.Key{Kind: kindEventHead, Key: headKey})
	for _, c := range d.consumers {
		keys = append(keys, store.Key{Kind: kindEventCursor, Key: c.name}, store.Key{Kind: kindOutboxFailing, Key: c.name})
	}
	recs, err := d.st.GetMany(ctx, keys)
	if err != nil {
		return nil, err
	}
	head, err := markAt(kindEventHead, headKey, recs[0])
	if err != nil {
		return nil, err
	}
	pending, err := d.st.List(ctx, kindEventPending, "", "", eventPage)
	if err != nil {
		return nil, err
	}
	if len(pending) == eventPage {
		return nil, errBacklog
	}
	writes, numbered, err := numbering(head, pending)
	if err != nil {
		return nil, err
	}
	curs := make([]mark, len(d.consumers))
	from := head.pos
	for i, c := range d.consumers {
		if curs[i], _, err = markOf(c.name, recs[1+2*i], recs[2+2*i]); err != nil {
			return nil, err
		}
		from = min(from, curs[i].pos)
	}
	var events []StoredEvent
	if from < head.pos {
		if events, err = d.Events(ctx, from, eventPage); err != nil {
			return nil, err
		}
		if len(events) == eventPage {
			return nil, errBacklog
		}
		// Events past the head read were numbered by another relay
		// since: this pass's swap of the head is refused.
		events = slices.DeleteFunc(events, func(e StoredEvent) bool { return e.Position > head.pos })
	}
	events = append(events, numbered...)
	var left []named[Consumer]
	for i, c := range d.consumers {
		if recs[2+2*i].Version > 0 {
			left = append(left, c) // a failing event: deliver counts it
			continue
		}
		passed, passedAt, done := curs[i].pos, curs[i].rec.UpdatedAt, true
		for _, e := range events {
			if e.Position <= curs[i].pos {
				continue
			}
			ws, err := c.f(ctx, e)
			if err != nil || len(ws) > 0 {
				done = false
				break
			}
			passed, passedAt = e.Position, e.At
		}
		if !done {
			left = append(left, c)
		}
		if passed > curs[i].pos {
			writes = append(writes, curs[i].advance(kindEventCursor, c.name, passed, passedAt))
		}
	}
	if len(writes) > 0 {
		if _, err := d.st.Apply(ctx, writes); err != nil {
			return nil, err
		}
	}
	return left, nil
}

// number gives the unsequenced events positions after the head, a page
// per transaction, until none is left.
func (d *Desk) number(ctx context.Context) error {
	for races := 0; races < maxRaces; {
		head, err := d.position(ctx, kindEventHead, headKey)
		if err != nil {
			return err
		}
		pending, err := d.st.List(ctx, kindEventPending, "", "", eventPage)
		if err != nil || len(pending) == 0 {
			return err
		}
		writes, _, err := numbering(head, pending)
		if err != nil {
			return err
		}
		if _, err := d.st.Apply(ctx, writes); err != nil {
			if _, lost := errors.AsType[*store.WriteError](err); lost {
				races++ // another relay numbered them first
				continue
			}
			return err
		}
		if len(pending) < eventPage {
			// All there was is numbered. A transition committed since
			// kicked the relay after its commit, so the next pass
			// numbers it; another process's, the pass after the tick.
			return nil
		}
	}
	return nil
}

// numbering is the writes that give the unsequenced events pending
// positions after head, in their key order, under a swap of the head,
// and the events as numbered. No pending events, no writes.
func numbering(head mark, pending []store.Record) ([]store.Write, []StoredEvent, error) {
	if len(pending) == 0 {
		return nil, nil, nil
	}
	last := pending[len(pending)-1].UpdatedAt
	writes := []store.Write{head.advance(kindEventHead, headKey, head.pos+int64(len(pending)), last)}
	events := make([]StoredEvent, 0, len(pending))
	for i, rec := range pending {
		var e StoredEvent
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			return nil, nil, fmt.Errorf("decode event %s: %w", rec.Key, err)
		}
		e.Position = head.pos + int64(i) + 1
		v, err := json.Marshal(e)
		if err != nil {
			return nil, nil, err
		}
		writes = append(writes,
			store.Write{Op: store.OpDelete, Record: rec},
			store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindEvent, Key: positionKey(e.Position), Value: v, UpdatedAt: e.At}})
		events = append(events, e)
	}
	return writes, events, nil
}

// deliver hands consumer name the events after its cursor, a page per
// transaction, until it has them all or fails on one. An outage returns
// its error and counts nothing; a failure of one event is counted, and
// sets the event aside at the last attempt (outbox_setaside.go).
func (d *Desk) deliver(ctx context.Context, name string, c Consumer) error {
	for races := 0; races < maxRaces; {
		cur, fl, err := d.cursorOf(ctx, name)
		if err != nil {
			return err
		}
		events, err := d.Events(ctx, cur.pos, eventPage)
		if err != nil || len(events) == 0 {
			return err
		}
		// The cursor's swap comes first, so a relay that lost the race is
		// refused there, before any write of the consumer's is judged.
		// The page ends at the first event that writes: the consumer read
		// the store before this transaction, and a later event must read
		// what this one wrote (two settlements of one account would
		// otherwise swap the same version and be refused every pass).
		// It ends too at an event the consumer fails on; passed is how
		// far the events before it, which asked for nothing, take the
		// cursor.
		writes := []store.Write{{}}
		passed, passedAt := cur.pos, cur.rec.UpdatedAt
		var wrote, failedOn *StoredEvent // the event whose writes the page commits; the one it failed on
		var cause error
		for i, e := range events {
			ws, err := c(ctx, e)
			if err != nil {
				failedOn, cause = &events[i], err
				break
			}
			if len(ws) > 0 {
				writes, wrote = append(writes, ws...), &events[i]
				break
			}
			passed, passedAt = e.Position, e.At
		}
		if cause == nil {
			to, at := passed, passedAt
			if wrote != nil {
				to, at = wrote.Position, wrote.At
			}
			writes[0] = cur.advance(kindEventCursor, name, to, at)
			writes = append(writes, fl.clear(to)...)
			_, err = d.st.Apply(ctx, writes)
			if we, refused := errors.AsType[*store.WriteError](err); refused && we.Refused(writes[0]) {
				races++ // another relay delivered them first
				continue
			}
			if err == nil {
				if wrote == nil && len(events) < eventPage {
					return nil // every event there was is passed
				}
				continue
			}
			if wrote == nil {
				return err // the cursor alone did not move: nothing of an event
			}
			// The consumer's writes were refused, or failed: a failure
			// of the event that asked for them, unless the store is out.
			failedOn, cause = wrote, err
		}
		if d.outage(ctx, cause) {
			return fmt.Errorf("event %d: %w", failedOn.Position, cause)
		}
		setAside, lost, err := d.failed(ctx, name, cur, fl, passed, passedAt, *failedOn, cause)
		switch {
		case lost:
			races++ // another relay delivered or counted it first
		case !setAside:
			return err
		}
	}
	return nil
}

// Events returns up to limit stored events after position after, in
// order: what a consumer reads, and what tests and tools inspect.
func (d *Desk) Events(ctx context.Context, after int64, limit int) ([]StoredEvent, error) {
	recs, err := d.st.List(ctx, kindEvent, "", positionKey(after), limit)
	if err != nil {
		return nil, err
	}
	out := make([]StoredEvent, 0, len(recs))
	for _, rec := range recs {
		var e StoredEvent
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			return nil, fmt.Errorf("decode event %s: %w", rec.Key, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// mark is a position record as read: the head or a consumer's cursor.
// An absent one is position 0 at version 0.
type mark struct {
	pos int64
	rec store.Record
}

func (d *Desk) position(ctx context.Context, kind, key string) (mark, error) {
	rec, err := d.st.Get(ctx, kind, key)
	if errors.Is(err, store.ErrNotFound) {
		return mark{rec: store.Record{Kind: kind, Key: key}}, nil
	}
	if err != nil {
		return mark{}, err
	}
	return markAt(kind, key, rec)
}

// markAt is the position record rec as read; one never written (version
// 0) is position 0.
func markAt(kind, key string, rec store.Record) (mark, error) {
	if rec.Version == 0 {
		return mark{rec: store.Record{Kind: kind, Key: key}}, nil
	}
	pos, err := strconv.ParseInt(string(rec.Value), 10, 64)
	if err != nil {
		return mark{}, fmt.Errorf("decode %s %s: %w", kind, key, err)
	}
	return mark{pos: pos, rec: rec}, nil
}

// advance is the conditional write moving the mark to pos: a create for
// a mark never written, else a swap of the version read. at is when the
// last event it passes was committed: the relay keeps no clock.
func (m mark) advance(kind, key string, pos int64, at time.Time) store.Write {
	rec := store.Record{Kind: kind, Key: key, Value: []byte(strconv.FormatInt(pos, 10)), Version: m.rec.Version, UpdatedAt: at}
	if m.rec.Version == 0 {
		return store.Write{Op: store.OpCreate, Record: rec}
	}
	return store.Write{Op: store.OpSwap, Record: rec}
}

// PurgeEvents deletes, in one transaction, up to limit of the oldest
// events that every consumer has passed and that were committed before
// before; it returns how many went. Events after the slowest cursor stay
// whatever their age.
func (d *Desk) PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	passed := int64(-1)
	for _, c := range d.consumers {
		cur, err := d.position(ctx, kindEventCursor, c.name)
		if err != nil {
			return 0, err
		}
		if passed < 0 || cur.pos < passed {
			passed = cur.pos
		}
	}
	recs, err := d.st.List(ctx, kindEvent, "", "", limit)
	if err != nil {
		return 0, err
	}
	var writes []store.Write
	for _, rec := range recs {
		var e StoredEvent
		if err := json.Unmarshal(rec.Value, &e); err != nil {
			return 0, fmt.Errorf("decode event %s: %w", rec.Key, err)
		}
		if passed >= 0 && e.Position > passed || !e.At.Before(before) {
			break // in position order: the rest are newer or not passed
		}
		writes = append(writes, store.Write{Op: store.OpDelete, Record: rec})
	}
	if _, err := d.st.Apply(ctx, writes); err != nil {
		return 0, err
	}
	return len(writes), nil
}
