// Package referral turns bookings into partner conversions: a
// reservation made after a partner's tracked link (its click id) or with
// its code (T9) is reported to the ORP host as the business's own sale,
// in the reservation's transaction, and the stay's end settles it: a
// cancellation before the stay, a decline or a move refunds it (P5), and
// completion makes it final. The settling follows the end through the
// reservation outbox (a consumer, once per end, after the end's commit),
// so an end never waits for the host nor fails with it. Only the
// reservation's total and currency cross to the host; nothing about the
// guest does.
package referral

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"frontdesk/orp"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Host is what the ledger needs from the ORP host.
type Host interface {
	PayerConversionWrites(ctx context.Context, party string, c orp.Conversion) (orp.ConversionResult, []store.Write, error)
	Payouts(ctx context.Context, deal string) ([]orp.Payout, error)
	PayerSent(ctx context.Context, party, deal, payout, ref string) error
	// PartyName is the name a party gave when it joined, or "".
	PartyName(ctx context.Context, id string) (string, error)
}

// Mark is where a guest came from, as a door heard it: the core's.
type Mark = reservation.Mark

// Options are a Ledger's collaborators.
type Options struct {
	Host Host
	// Payer returns the business's party on the host; "" means the
	// business has none, and nothing is attributed.
	Payer    func(ctx context.Context) (string, error)
	Currency string
	// Store holds the attributions, for the owner's summary.
	Store  store.Records
	Logger *slog.Logger
}

// Ledger attributes bookings and follows them to their end.
type Ledger struct {
	host     Host
	payer    func(ctx context.Context) (string, error)
	currency string
	st       store.Records
	log      *slog.Logger
}

// New returns a Ledger.
func New(o Options) *Ledger {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Ledger{host: o.Host, payer: o.Payer, currency: o.Currency, st: o.Store, log: log.With("component", "referral")}
}

// kindBooking keys an attributed reservation by its reference.
const kindBooking = "referral.booking"

// The states of an attributed booking.
const (
	StateCounted  = "counted"  // reported as a sale; its payout follows the stay
	StateRefunded = "refunded" // cancelled before the stay, declined or moved: reversed (P5)
	StateFinal    = "final"    // the stay took place (or the guest did not come): kept
)

// Booking is one attributed reservation as the business's own screens
// see it: the deal it counts for and the money, never the guest.
type Booking struct {
	Reference  string    `json:"-"`
	Deal       string    `json:"deal"`
	Obligation string    `json:"obligation"`
	Door       string    `json:"door"`
	Total      int64     `json:"total"`
	Currency   string    `json:"currency"`
	State      string    `json:"state"`
	At         time.Time `json:"at"`
}

// saleID and refundID are the event ids the business reports under, one
// per reservation, so a retried report counts once.
func saleID(ref string) string   { return "booking." + ref }
func refundID(ref string) string { return "booking-refund." + ref }

// Addition is the typed addition that records a new reservation's
// attribution in its own transaction: the booking record and the
// host's conversion, payout and messages. A mark that attributes
// nothing (unknown, a bot's click, outside the window, a revoked deal)
// gives an empty Addition; only a failure to read the host is an error.
func (l *Ledger) Addition(ctx context.Context, m Mark, ref string, total int64, door reservation.Source, at time.Time) (reservation.Addition, error) {
	writes, err := l.attribution(ctx, Sale{Mark: m, Reference: ref, Total: total, Door: door, At: at})
	if err != nil || len(writes) == 0 {
		return reservation.Addition{}, err
	}
	return reservation.Records(ErrRaced, writes...), nil
}

// Sale is a new reservation a mark may attribute: what Addition takes,
// as another location of a split deployment reports it to the one that
// hosts ORP. Only the total crosses, never the guest.
type Sale struct {
	Mark      Mark               `json:"mark"`
	Reference string             `json:"reference"`
	Total     int64              `json:"total"`
	Door      reservation.Source `json:"door"`
	At        time.Time          `json:"at"`
}

// attribution is the writes that record sale's attribution, none when
// its mark attributes nothing.
func (l *Ledger) attribution(ctx context.Context, sale Sale) ([]store.Write, error) {
	m := sale.Mark
	if l == nil || m.Empty() {
		return nil, nil
	}
	payer, err := l.payer(ctx)
	if err != nil || payer == "" {
		return nil, err
	}
	c := orp.Conversion{Event: saleID(sale.Reference), Sale: saleID(sale.Reference), Amount: &orp.Money{AmountMinor: sale.Total, Currency: l.currency}}
	if m.Click != "" {
		c.Click = m.Click
	} else {
		c.Code = m.Code
	}
	res, writes, err := l.host.PayerConversionWrites(ctx, payer, c)
	if _, refused := orp.Refusal(err); refused {
		l.log.InfoContext(ctx, "referral not attributed", "reason", "unknown")
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("attribute booking: %w", err)
	}
	if !res.Counted {
		l.log.InfoContext(ctx, "referral not attributed", "reason", res.Reason)
		return nil, nil
	}
	b := Booking{Deal: res.Deal, Obligation: res.Obligation, Door: string(sale.Door), Total: sale.Total, Currency: l.currency, State: StateCounted, At: sale.At}
	v, _ := json.Marshal(b)
	return append(writes, store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindBooking, Key: sale.Reference, Value: v, UpdatedAt: sale.At}}), nil
}

// Record attributes a sale another location reported, in a transaction
// of its own. A sale recorded already (its report repeated) changes
// nothing, so a location that reports again after a lost answer never
// counts a conversion twice.
func (l *Ledger) Record(ctx context.Context, sale Sale) error {
	return store.Retry(ctx, func() error {
		writes, err := l.attribution(ctx, sale)
		if err != nil || len(writes) == 0 {
			return store.Final(err)
		}
		_, err = l.st.Apply(ctx, writes)
		if we, ok := errors.AsType[*store.WriteError](err); ok && we.Write.Record.Kind == kindBooking && errors.Is(we.Err, store.ErrExists) {
			return nil // recorded by an earlier report
		}
		return err
	})
}

// Ended settles a sale another location reported once its reservation
// reached the end e there, as Attach does for this location's own; an
// end told again changes nothing.
func (l *Ledger) Ended(ctx context.Context, e reservation.StoredEvent) error {
	if !e.To.Terminal() || e.From.Terminal() {
		return nil
	}
	return store.Retry(ctx, func() error {
		writes, err := l.end(ctx, l.st, e)
		if err != nil || len(writes) == 0 {
			return store.Final(err)
		}
		_, err = l.st.Apply(ctx, writes)
		return err
	})
}

// ErrRaced is what a refused attribution write wraps (within a
// reservation.CodeConflict): the host's records, such as a partner's
// inbox, moved under the booking and nothing was stored. The door asks
// for the attribution again and retries.
var ErrRaced = errors.New("referral: the host's records changed under the booking")

// Attach makes the ledger follow every attributed reservation on desk to
// its end, as a consumer of desk's outbox reading attributions in st: a
// terminal event settles its booking in the relay's transaction, with
// the ledger's cursor, after the end committed. The end waits for none
// of it, and a failure here leaves the event to the next pass; one that
// repeats (the host refusing the refund) sets the event aside for staff,
// so it does not hold the ends after it.
func (l *Ledger) Attach(desk *reservation.Desk, st store.Records) {
	desk.Consume("referral", func(ctx context.Context, e reservation.StoredEvent) ([]store.Write, error) {
		if !e.To.Terminal() || e.From.Terminal() {
			return nil, nil
		}
		return l.end(ctx, st, e)
	})
}

// end settles an attributed reservation that reached a terminal state.
// A booking already settled is left as it is, so an event offered again
// changes nothing.
func (l *Ledger) end(ctx context.Context, st store.Records, e reservation.StoredEvent) ([]store.Write, error) {
	rec, err := st.Get(ctx, kindBooking, e.Reference)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read attribution: %w", err)
	}
	var b Booking
	if err := json.Unmarshal(rec.Value, &b); err != nil {
		// No pass will read it better: failing would hold every later
		// end behind this one. It is left as it is, for staff to see.
		l.log.ErrorContext(ctx, "referral attribution unreadable; its end is not settled", "err", err)
		return nil, nil
	}
	if b.State != StateCounted {
		return nil, nil
	}
	var writes []store.Write
	b.State = StateFinal
	if refunds(e.To, e.Slots, e.At) {
		payer, err := l.payer(ctx)
		if err != nil {
			return nil, err
		}
		c := orp.Conversion{Event: refundID(e.Reference), Sale: saleID(e.Reference), Refund: true, Amount: &orp.Money{AmountMinor: b.Total, Currency: b.Currency}}
		_, ws, err := l.host.PayerConversionWrites(ctx, payer, c)
		if err != nil {
			return nil, fmt.Errorf("refund booking: %w", err)
		}
		writes, b.State = ws, StateRefunded
	}
	v, _ := json.Marshal(b)
	return append(writes, store.Write{Op: store.OpSwap, Record: store.Record{Kind: kindBooking, Key: e.Reference, Value: v, Version: rec.Version, UpdatedAt: e.At}}), nil
}

// refunds reports an end in state at time at that takes the sale back:
// a decline, a move to another reservation, or a cancellation before the
// stay's first slot (by the date of the slot, as the reservation stores
// it). A completed stay, a no-show and a cancellation once the stay
// began are final.
func refunds(state reservation.State, slots []string, at time.Time) bool {
	switch state {
	case reservation.Declined, reservation.Moved:
		return true
	case reservation.Cancelled:
		return len(slots) > 0 && at.UTC().Format("2006-01-02") < slots[0][:min(10, len(slots[0]))]
	}
	return false
}

// Bookings lists the attributed reservations, oldest reference first.
func Bookings(ctx context.Context, st store.Records) ([]Booking, error) {
	var out []Booking
	after := ""
	for {
		recs, err := st.List(ctx, kindBooking, "", after, 500)
		if err != nil {
			return nil, fmt.Errorf("list attributions: %w", err)
		}
		for _, r := range recs {
			var b Booking
			if err := json.Unmarshal(r.Value, &b); err != nil {
				return nil, fmt.Errorf("decode attribution: %w", err)
			}
			b.Reference = r.Key
			out = append(out, b)
		}
		if len(recs) < 500 {
			return out, nil
		}
		after = recs[len(recs)-1].Key
	}
}

var codePattern = regexp.MustCompile(`^[A-Za-z0-9]{4,32}$`)

// ValidCode reports a code of the form ORP gives out (T9): 4 to 32
// letters or digits.
func ValidCode(s string) bool { return codePattern.MatchString(s) }

var clickPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,64}$`)

// ValidClick reports a value of the shape of the host's click ids, so a
// page carries nothing else from its address.
func ValidClick(s string) bool { return clickPattern.MatchString(s) }

// ClickParams are the query names a tracked link puts its click id
// under (T3): the default param and the alias the spec names.
var ClickParams = []string{"via", "ref"}
