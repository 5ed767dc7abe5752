package payment

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"frontdesk/store"
)

// Outcome says what one provider event did. It names no guest.
type Outcome struct {
	Event   string `json:"event"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason,omitempty"`
	Payment string `json:"payment,omitempty"`
}

// seenEvent is the record of an event id: it exists once the event was
// received, whether or not it changed a payment.
type seenEvent struct {
	Type    string    `json:"type"`
	Payment string    `json:"payment,omitempty"`
	At      time.Time `json:"at"`
}

// Receive applies one signed provider event. The signature and replay
// window are checked first; then each event id is applied once: the
// record of the event id and the payment's change are written in one
// transaction, so a replayed event changes nothing. A completed page
// marks its payment paid when the amount and currency are the ones
// recorded; an expired page marks an unpaid payment expired. Other
// events are acknowledged and change nothing.
func (l *Ledger) Receive(ctx context.Context, signature string, body []byte) (Outcome, error) {
	if err := l.ready(); err != nil {
		return Outcome{}, err
	}
	ev, err := l.provider.Verify(signature, body, l.clock.Now())
	if err != nil {
		return Outcome{}, err
	}
	if ev.ID == "" {
		return Outcome{}, fail(CodeInvalid, "The event has no id.")
	}
	out := Outcome{Event: ev.ID}
	key := l.provider.Name() + " " + ev.ID
	var answer error // returned as it is
	err = store.Retrier{Attempts: 8}.Run(ctx, func() error {
		if _, err := l.records.Get(ctx, kindEvent, key); err == nil {
			out.Reason = "This event was already received."
			return nil
		} else if !errors.Is(err, store.ErrNotFound) {
			answer = internal("payment event", err)
			return store.Final(answer)
		}
		now := l.clock.Now().UTC()
		seen := seenEvent{Type: ev.Type, At: now}
		writes, reason, err := l.eventWrites(ctx, ev, &seen)
		if err != nil {
			answer = err
			return store.Final(err)
		}
		mark, err := json.Marshal(seen)
		if err != nil {
			answer = internal("payment event", err)
			return store.Final(answer)
		}
		event := store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindEvent, Key: key, Value: mark, UpdatedAt: now}}
		writes = append([]store.Write{event}, writes...)
		_, err = l.records.Apply(ctx, writes)
		switch we, _ := errors.AsType[*store.WriteError](err); {
		case err == nil:
			out.Applied, out.Reason, out.Payment = len(writes) > 1, reason, seen.Payment
			return nil
		case we != nil && we.Refused(event) && errors.Is(err, store.ErrExists):
			out.Reason = "This event was already received."
			return nil
		case errors.Is(err, store.ErrConflict):
			return err // the payment changed meanwhile: read it again
		default:
			answer = internal("payment event", err)
			return store.Final(answer)
		}
	})
	switch {
	case answer != nil:
		return Outcome{}, answer
	case err != nil:
		return Outcome{}, internal("payment event", err)
	}
	if out.Applied && ev.Type == EventCheckoutCompleted {
		l.tellPaid(ctx, out.Payment)
	}
	return out, nil
}

// eventWrites is the change ev makes, as writes to apply with the
// event's record, and why it makes none when it makes none.
func (l *Ledger) eventWrites(ctx context.Context, ev Event, seen *seenEvent) ([]store.Write, string, error) {
	if ev.Type != EventCheckoutCompleted && ev.Type != EventCheckoutExpired {
		return nil, "This event type changes no payment.", nil
	}
	co := ev.Checkout
	id := co.Metadata[MetadataPayment]
	if id == "" {
		return nil, "The event names no payment of this business.", nil
	}
	p, err := l.Get(ctx, id)
	if ErrorCode(err) == CodeNotFound {
		return nil, "The event names no payment of this business.", nil
	}
	if err != nil {
		return nil, "", err
	}
	seen.Payment = p.ID
	switch {
	case p.Checkout != "" && co.ID != p.Checkout:
		return nil, "The event's page is not the payment's page.", nil
	case ev.Type == EventCheckoutExpired && (p.State == StateOpen || p.State == StateStarting):
		p.State, p.URL = StateExpired, ""
	case ev.Type == EventCheckoutExpired:
		return nil, "The payment is " + p.State + "; an expired page changes nothing.", nil
	case p.State == StatePaid:
		return nil, "The payment is already paid.", nil
	case !co.Paid:
		return nil, "The page completed without the money taken.", nil
	case co.Amount != p.Amount || !strings.EqualFold(co.Currency, p.Currency):
		return nil, "The amount paid is not the amount asked.", nil
	default:
		// Paid, even after the page was marked expired: the money was
		// taken and must be accounted for.
		p.State, p.Checkout, p.URL, p.ProviderPayment, p.PaidAt = StatePaid, co.ID, "", co.Payment, l.clock.Now().UTC()
	}
	rec, err := l.record(p)
	if err != nil {
		return nil, "", err
	}
	return []store.Write{{Op: store.OpSwap, Record: rec}}, "", nil
}
