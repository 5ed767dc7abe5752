package reservation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"frontdesk/internal/requestid"
	"frontdesk/store"
)

// Decision is a staff decision on one reservation: move it to To, on
// behalf of By, with an optional note for the audit.
type Decision struct {
	Reference string
	To        State
	By        string // the staff member, for the audit
	Note      string
	// Visible, when set, is the staff member's scope: a reservation at a
	// location it refuses is ErrNoReservation, as an absent one.
	Visible func(slug string) bool
	// From, when set, is the state the decision is taken from: a
	// reservation found in another state, or moved on meanwhile, is
	// refused with ErrAnswered and nothing changes.
	From State
	// Quiet sends the guest no mail about the decision, when the page
	// that took it words the result itself.
	Quiet bool
}

// ErrNoReservation means no reservation has the reference asked for, or
// none the caller may see.
var ErrNoReservation = errors.New("booking: no such reservation")

// ErrAnswered is the refusal of a decision taken from a state the
// reservation has left: someone answered it meanwhile, and nothing
// changed.
var ErrAnswered = errors.New("booking: answered")

// DecisionMail is the guest's mail about a staff decision. For each
// attempt of a decision the core asks it for the addition that queues
// the mail in the decision's transaction (none when quiet); once the
// decision is committed it calls send, which attempts the mail once and
// reports whether it went out. A queue refused because the mail of this
// very decision exists (an earlier decision to the same state, undone
// since) wraps the addition's Refused error: the core decides again
// without mail rather than lose the decision.
type DecisionMail interface {
	DecisionMail(ctx context.Context, read Reservation, to State, quiet bool, now time.Time) (queue Addition, send func(context.Context) bool, err error)
}

// Decide applies a staff decision: a conditional transition of the
// reservation that releases its units and pending places when it stops
// holding them, records who decided, and queues the guest's mail, all in
// one transaction; the mail is then attempted once and otherwise left
// for its sender's retries. Accepting a request that holds nothing holds
// its units in the same transaction. It returns the reservation as
// decided and whether the guest's mail went out. The desk decides: an
// illegal move, and any decision on a tentative hold, is an *Error of
// code CodeIllegalTransition; an unknown reference ErrNoReservation;
// units gone meanwhile ErrUnitTaken.
func (c *Core) Decide(ctx context.Context, d Decision) (Reservation, bool, error) {
	now := c.clock.Now()
	by := d.By
	if by == "" {
		by = "staff"
	}
	quiet := d.Quiet
	var out Reservation
	var sent bool
	err := store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
		r, err := Get(ctx, c.st, d.Reference)
		if errors.Is(err, store.ErrNotFound) {
			return store.Final(ErrNoReservation)
		}
		if err != nil {
			return store.Final(fmt.Errorf("read reservation: %w", err))
		}
		if d.Visible != nil && !d.Visible(r.Location) {
			return store.Final(ErrNoReservation)
		}
		if d.From != "" && r.State != d.From {
			out = r
			return store.Final(ErrAnswered)
		}
		if err := c.Refused(r, d.To); err != nil {
			out = r
			return store.Final(err)
		}
		requestid.SetReference(ctx, r.Reference) // the request's lines name the reservation decided on
		l, _ := c.Location(r.Location)
		unit, _ := l.Unit(r.Unit)
		var also []Addition
		send := func(context.Context) bool { return false }
		if c.notify != nil {
			mail, sender, err := c.notify.DecisionMail(ctx, r, d.To, quiet, now)
			if err != nil {
				return store.Final(err)
			}
			also, send = []Addition{mail}, sender
		}
		moved, err := c.desk.Decide(ctx, Change{
			Read: r, By: by, Note: d.Note, At: now, Unit: UnitOf(l, unit),
			Edit: func(m *Reservation) { m.Attention = "" }, // a decision answers whatever asked for attention
			Also: also,
		}, d.To)
		switch ErrorCode(err) {
		case "":
			c.log.InfoContext(ctx, "staff decision", "location", r.Location, "reference", r.Reference, "to", string(d.To))
			out, sent = moved, send(ctx)
			return nil
		case CodeConflict:
			if raced(err, also) {
				// The mail of this very decision exists: decide without
				// mail rather than lose the decision.
				quiet = true
			}
			return errDecideAgain // decided or changed meanwhile: read again
		case CodeUnitTaken, CodeIllegalTransition:
			out = r
			return store.Final(err)
		default:
			return store.Final(fmt.Errorf("save decision: %w", err))
		}
	})
	switch _, lost := errors.AsType[*store.LostRaces](err); {
	case lost:
		return Reservation{}, false, fmt.Errorf("decide: %w", store.ErrConflict)
	case err != nil && err == ctx.Err():
		// It ended between passes, as the next pass's read would have.
		return Reservation{}, false, fmt.Errorf("read reservation: %w", err)
	}
	return out, sent, err
}

// errDecideAgain asks Decide to read the reservation again: it was
// decided or changed since it was read.
var errDecideAgain = fmt.Errorf("reservation: decided meanwhile: %w", store.ErrConflict)
