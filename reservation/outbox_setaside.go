package reservation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"frontdesk/internal/clock"
	"frontdesk/store"
)

// Setting aside. A consumer's error on an event is one of two things.
//
// An outage: the store could not be reached or did not answer in time
// (an error the engine's store.Outages reports, a context's cancellation
// or deadline, the pass's own context ending, or a desk *Error of
// CodeUnavailable, which says the same). The event is offered again at
// the next pass and nothing is counted: an outage says nothing of the
// event, and every event would fail alike.
//
// A failure of that event: anything else, such as the ORP host refusing
// a refund conversion as invalid, a record the consumer needs that is
// missing, or a refusal of one of the consumer's writes at commit. Such
// an error repeats on every pass, and while the cursor waits on the
// event every later event of the consumer waits behind it. So a failure
// is counted in a stored record of the consumer (kindOutboxFailing), so a
// restart does not reset it, and once the event has failed on
// setAsideAttempts offers it is set aside: a stored record
// (kindOutboxSetAside) keeps the event, the error's text and the count,
// and the cursor moves past it in the same transaction. Staff see what is
// set aside (SetAsideEvents) and offer it again (RetrySetAside).
//
// Counting. A failed offer counts only when failureSpacing has passed
// since the last one counted: serve relays after every commit, so a burst
// of bookings would otherwise spend the attempts within a second. The
// event is still offered at every pass, so a consumer mended is heard at
// once; an event is set aside no sooner than (setAsideAttempts-1) ×
// failureSpacing after its first failure.
const (
	kindOutboxFailing  = "outbox-failing"   // key: consumer name; value: a Failure, not yet set aside
	kindOutboxSetAside = "outbox-set-aside" // key: consumer name "/" 20-digit position; value: a Failure
	setAsideAttempts   = 5
	failureSpacing     = 30 * time.Second
	// maxErrorText caps the error text a failure keeps: a consumer's
	// error says what went wrong, not a page of it.
	maxErrorText = 500
)

// OutboxOptions are the relay's collaborators, set at wiring, before
// Run. Zero fields take defaults.
type OutboxOptions struct {
	// Clock dates failures; the system clock when nil.
	Clock clock.Clock
	// Outages tells the store's outages from other errors; when nil, the
	// desk's store, if it tells them.
	Outages store.Outages
	// Logger hears an event's first failure (a warning) and its setting
	// aside (an error), once each; nothing when nil.
	Logger *slog.Logger
	// SetAside counts an event set aside, by consumer (a metric).
	SetAside func(consumer string)
}

// Outbox sets the relay's collaborators.
func (d *Desk) Outbox(o OutboxOptions) {
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	if o.Outages == nil {
		o.Outages, _ = d.st.(store.Outages)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Logger = o.Logger.With("component", "outbox")
	if o.SetAside == nil {
		o.SetAside = func(string) {}
	}
	d.outbox = o
}

// Failure is an event a consumer failed on: while it is counted, and once
// it is set aside. It keeps the event itself, which holds nothing of the
// guest, so a retry finds it after the outbox purged its own copy.
type Failure struct {
	Consumer  string      `json:"consumer"`
	Position  int64       `json:"position"`
	Reference string      `json:"reference"`
	Error     string      `json:"error"` // the consumer's error text, capped at maxErrorText bytes
	Attempts  int         `json:"attempts"`
	First     time.Time   `json:"first"`
	Last      time.Time   `json:"last"`
	Event     StoredEvent `json:"event"`
}

// EventError is the error of a pass that left an event of a consumer
// undelivered because the consumer failed on it (not an outage). The
// failure is logged once, by the desk, so Run does not report it again.
type EventError struct {
	Consumer string
	Position int64
	Attempts int // failed offers counted so far
	Err      error
}

func (e *EventError) Error() string {
	return fmt.Sprintf("consumer %s failed on event %d (failed offers counted: %d): %v", e.Consumer, e.Position, e.Attempts, e.Err)
}

func (e *EventError) Unwrap() error { return e.Err }

// outage reports an error that says the store is out of service rather
// than anything of the event it was met on (see above).
func (d *Desk) outage(ctx context.Context, err error) bool {
	switch {
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true
	case ErrorCode(err) == CodeUnavailable:
		return true
	}
	return d.outbox.Outages != nil && d.outbox.Outages.IsOutage(err)
}

// onlyEventErrors reports a pass error made only of EventErrors, which
// the desk logged already.
func onlyEventErrors(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !onlyEventErrors(e) {
				return false
			}
		}
		return true
	}
	_, ok := errors.AsType[*EventError](err)
	return ok
}

func setAsideKey(consumer string, pos int64) string { return consumer + "/" + positionKey(pos) }

func errorText(err error) string {
	s := err.Error()
	if len(s) <= maxErrorText {
		return s
	}
	s = s[:maxErrorText]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// failing is a consumer's failing record as read: absent is version 0.
type failing struct {
	f   Failure
	rec store.Record
}

// cursorOf reads consumer name's cursor and failing record in one round
// trip.
func (d *Desk) cursorOf(ctx context.Context, name string) (mark, failing, error) {
	recs, err := d.st.GetMany(ctx, []store.Key{{Kind: kindEventCursor, Key: name}, {Kind: kindOutboxFailing, Key: name}})
	if err != nil {
		return mark{}, failing{}, err
	}
	return markOf(name, recs[0], recs[1])
}

// markOf decodes consumer name's cursor and failing records as read.
func markOf(name string, cursor, failingRec store.Record) (mark, failing, error) {
	cur := mark{rec: cursor}
	if cursor.Version > 0 {
		var err error
		if cur.pos, err = strconv.ParseInt(string(cursor.Value), 10, 64); err != nil {
			return mark{}, failing{}, fmt.Errorf("decode %s %s: %w", kindEventCursor, name, err)
		}
	}
	fl := failing{rec: failingRec}
	if failingRec.Version > 0 {
		if err := json.Unmarshal(failingRec.Value, &fl.f); err != nil {
			return mark{}, failing{}, fmt.Errorf("decode %s %s: %w", kindOutboxFailing, name, err)
		}
	}
	return cur, fl, nil
}

// clear is the delete of the failing record once the cursor passes its
// event, or nothing.
func (fl failing) clear(passed int64) []store.Write {
	if fl.rec.Version == 0 || fl.f.Position > passed {
		return nil
	}
	return []store.Write{{Op: store.OpDelete, Record: fl.rec}}
}

// failed records consumer name's failure on event e, whose cursor cur
// the pass read; the cursor moves to passed (the events before e that
// asked for no writes), at passedAt. It counts the failure when
// failureSpacing has passed since the last one counted and sets the
// event aside at the last attempt. It returns whether the event was set
// aside (the pass goes on) and otherwise the pass's *EventError; lost
// says that another relay moved the cursor first.
func (d *Desk) failed(ctx context.Context, name string, cur mark, fl failing, passed int64, passedAt time.Time, e StoredEvent, cause error) (setAside, lost bool, err error) {
	now := d.outbox.Clock.Now().UTC()
	f := Failure{Consumer: name, Position: e.Position, Reference: e.Reference, First: now, Event: e}
	if fl.rec.Version > 0 && fl.f.Position == e.Position {
		f = fl.f
		if now.Sub(f.Last) < failureSpacing {
			return false, false, &EventError{Consumer: name, Position: e.Position, Attempts: f.Attempts, Err: cause}
		}
	}
	f.Attempts++
	f.Last, f.Error = now, errorText(cause)
	v, err := json.Marshal(f)
	if err != nil {
		return false, false, err
	}
	var writes []store.Write
	if f.Attempts >= setAsideAttempts {
		writes = append(writes, cur.advance(kindEventCursor, name, e.Position, e.At),
			store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindOutboxSetAside, Key: setAsideKey(name, e.Position), Value: v, UpdatedAt: now}})
		writes = append(writes, fl.clear(e.Position)...)
	} else {
		// When the cursor stays, its swap only guards the count against
		// another relay's; a cursor never written is created where it is.
		if passedAt.IsZero() {
			passedAt = e.At
		}
		writes = append(writes, cur.advance(kindEventCursor, name, passed, passedAt))
		rec := store.Record{Kind: kindOutboxFailing, Key: name, Value: v, Version: fl.rec.Version, UpdatedAt: now}
		if fl.rec.Version == 0 {
			writes = append(writes, store.Write{Op: store.OpCreate, Record: rec})
		} else {
			writes = append(writes, store.Write{Op: store.OpSwap, Record: rec})
		}
	}
	if _, err := d.st.Apply(ctx, writes); err != nil {
		if _, refused := errors.AsType[*store.WriteError](err); refused {
			return false, true, nil
		}
		return false, false, err
	}
	log := d.outbox.Logger.With("consumer", name, "position", e.Position, "attempts", f.Attempts, "err", f.Error)
	switch {
	case f.Attempts >= setAsideAttempts:
		log.ErrorContext(ctx, "reservation outbox event set aside")
		d.outbox.SetAside(name)
		return true, false, nil
	case f.Attempts == 1:
		log.WarnContext(ctx, "reservation outbox event failed; offered again at each pass")
	}
	return false, false, &EventError{Consumer: name, Position: e.Position, Attempts: f.Attempts, Err: cause}
}

// SetAsideEvents lists the events set aside, by consumer, then position.
func (d *Desk) SetAsideEvents(ctx context.Context) ([]Failure, error) {
	var out []Failure
	for after := ""; ; {
		recs, err := d.st.List(ctx, kindOutboxSetAside, "", after, 500)
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			var f Failure
			if err := json.Unmarshal(rec.Value, &f); err != nil {
				return nil, fmt.Errorf("decode %s %s: %w", kindOutboxSetAside, rec.Key, err)
			}
			out = append(out, f)
		}
		if len(recs) < 500 {
			return out, nil
		}
		after = recs[len(recs)-1].Key
	}
}

// ErrNotSetAside is the refusal of a retry of an event that is not set
// aside for that consumer (never, or retried already).
var ErrNotSetAside = &Error{Code: CodeNotFound, Message: "No event is set aside for this consumer at this position."}

// RetrySetAside offers the event set aside for consumer at position to
// the consumer again, out of the outbox's order (later events went on
// without it). On success the consumer's writes commit with the removal
// of the set-aside record, so the event takes effect once however many
// retries race; on a failure the record stays, with the attempt counted,
// and the error is returned. Refusals: ErrNotSetAside (CodeNotFound) for
// an event not set aside or a consumer not registered, CodeConflict when
// another retry came first, CodeUnavailable in an outage.
func (d *Desk) RetrySetAside(ctx context.Context, consumer string, position int64) error {
	rec, err := d.st.Get(ctx, kindOutboxSetAside, setAsideKey(consumer, position))
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotSetAside
	}
	if err != nil {
		return fail(CodeUnavailable, "The set-aside event could not be read.", err)
	}
	var c Consumer
	for _, n := range d.consumers {
		if n.name == consumer {
			c = n.f
		}
	}
	if c == nil {
		return fail(CodeNotFound, "No consumer of this name runs in this process.", nil)
	}
	var f Failure
	if err := json.Unmarshal(rec.Value, &f); err != nil {
		return fail(CodeInternal, "The set-aside event does not decode.", err)
	}
	ws, err := c(ctx, f.Event)
	if err == nil {
		done := store.Write{Op: store.OpDelete, Record: rec}
		_, err = d.st.Apply(ctx, append([]store.Write{done}, ws...))
		if we, refused := errors.AsType[*store.WriteError](err); refused && we.Refused(done) {
			return fail(CodeConflict, "Another retry of this event came first.", err)
		}
		if err == nil {
			d.outbox.Logger.InfoContext(ctx, "reservation outbox event delivered on retry", "consumer", consumer, "position", position, "attempts", f.Attempts+1)
			return nil
		}
	}
	if d.outage(ctx, err) {
		return fail(CodeUnavailable, "The store is unavailable; nothing changed.", err)
	}
	f.Attempts++
	f.Last, f.Error = d.outbox.Clock.Now().UTC(), errorText(err)
	v, merr := json.Marshal(f)
	if merr != nil {
		return merr
	}
	rec.Value, rec.UpdatedAt = v, f.Last
	if _, serr := d.st.Swap(ctx, rec); errors.Is(serr, store.ErrConflict) || errors.Is(serr, store.ErrNotFound) {
		return fail(CodeConflict, "Another retry of this event came first.", serr)
	} else if serr != nil {
		return fail(CodeUnavailable, "The failed retry could not be recorded.", serr)
	}
	return &EventError{Consumer: consumer, Position: position, Attempts: f.Attempts, Err: err}
}
