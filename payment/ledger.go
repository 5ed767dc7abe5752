package payment

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/internal/money"
	"frontdesk/internal/random"
	"frontdesk/store"
)

// Record kinds of the ledger.
const (
	kindPayment = "payment"
	kindEvent   = "payment-event"
	// kindLatest maps a reference to its latest payment's id.
	kindLatest = "payment-latest"
)

// MetadataPayment is the metadata key that carries the ledger's payment
// id to the provider and back on its events.
const MetadataPayment = "frontdesk_payment"

// Payment states.
const (
	// StateStarting is written before the provider is asked for a page.
	// A payment left in it was interrupted before its page reached the
	// guest, so nothing can be paid on it: the sweep closes it as
	// expired once StartGrace has passed, and the guest asks again.
	StateStarting = "starting"
	StateOpen     = "open"    // the page is open; nothing is paid yet
	StatePaid     = "paid"    // the provider reported the money taken
	StateExpired  = "expired" // the page closed unpaid
)

// Refund states.
const (
	// RefundPending is written before the provider is asked; a refund
	// left in it is asked again, with the same idempotency key.
	RefundPending = "pending"
	RefundDone    = "done"
)

// Payment is one write-ahead payment record: the truth of what was asked
// and what was taken. It holds no guest data.
type Payment struct {
	ID string `json:"id"`
	// Reference is what the payment is for, such as a reservation number.
	Reference   string `json:"reference"`
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Description string `json:"description"`
	State       string `json:"state"`
	Provider    string `json:"provider"`
	// ExpiresAt is when the page closes. The return addresses are not
	// kept: they may carry a guest's page token, which is stored hashed
	// and nowhere else.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// Checkout is the provider's page and URL where the guest pays;
	// ProviderPayment the provider's id of the money taken.
	Checkout        string        `json:"checkout,omitempty"`
	URL             string        `json:"url,omitempty"`
	ProviderPayment string        `json:"provider_payment,omitempty"`
	Refunds         []RefundEntry `json:"refunds,omitempty"`
	Created         time.Time     `json:"created"`
	PaidAt          time.Time     `json:"paid_at,omitzero"`
	// Settled is what the reservation's end (a cancellation, a decline,
	// a no-show, or no booking at all) did with the money, recorded once.
	Settled *Settlement `json:"settled,omitempty"`
	// Waiver is a late-cancellation fee staff waived, recorded once.
	Waiver *Waiver `json:"waiver,omitempty"`

	version int64
}

// RefundEntry is one refund of a payment, written before the provider
// is asked.
type RefundEntry struct {
	ID       string    `json:"id"` // the ledger's id, the provider's idempotency key
	Amount   int64     `json:"amount"`
	State    string    `json:"state"`
	Provider string    `json:"provider,omitempty"` // the provider's refund id
	At       time.Time `json:"at"`
	// Reason names a refund made once whatever asks for it, such as
	// ReasonCancellation; empty for one made each time it is asked.
	Reason string `json:"reason,omitempty"`
	// By is the staff login that made a manual refund or waiver, and
	// Note the reason they gave; both empty for the ledger's own.
	By   string `json:"by,omitempty"`
	Note string `json:"note,omitempty"`
}

// Refunded is the amount refunded or being refunded.
func (p Payment) Refunded() int64 {
	var n int64
	for _, r := range p.Refunds {
		n += r.Amount
	}
	return n
}

// Ledger keeps the payment records and talks to the provider.
type Ledger struct {
	records  store.Records
	provider Provider
	clock    clock.Clock
	rand     io.Reader
	missing  string
	hooks    hooks
	bookings Bookings // nil: the sweep does not look for charges without a booking
}

// Options build a Ledger.
type Options struct {
	Records store.Records
	// Provider is nil when none is configured: then every call that
	// needs one is refused with Missing, a sentence naming the setting.
	Provider Provider
	Missing  string
	Clock    clock.Clock
	Rand     io.Reader
}

// NewLedger returns a ledger over o.Records.
func NewLedger(o Options) *Ledger {
	return &Ledger{records: o.Records, provider: o.Provider, clock: o.Clock, rand: random.Locked(o.Rand), missing: o.Missing}
}

// Charge is one payment to take.
type Charge struct {
	Reference             string
	Amount                int64
	Currency              string
	Description           string
	SuccessURL, CancelURL string
	ExpiresAt             time.Time
}

func (c Charge) check() error {
	switch {
	case c.Reference == "":
		return fail(CodeInvalid, "A payment needs the reference it pays for.")
	case c.Amount <= 0:
		return fail(CodeInvalid, "A payment's amount must be more than zero.")
	case !money.ValidCurrency(c.Currency):
		return fail(CodeInvalid, fmt.Sprintf("%q is not an ISO 4217 currency code.", c.Currency))
	case c.Description == "":
		return fail(CodeInvalid, "A payment needs a description the guest sees on the payment page.")
	case !absolute(c.SuccessURL) || !absolute(c.CancelURL):
		return fail(CodeInvalid, "A payment's return addresses must be absolute http or https URLs.")
	}
	return nil
}

func absolute(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

func (l *Ledger) ready() error {
	if l.provider == nil {
		return fail(CodeNoProvider, l.missing)
	}
	return nil
}

// Begin records a payment and opens its hosted page: the record is
// written first, in StateStarting, so a crash before the page opens
// leaves a record of the attempt, which the sweep closes.
func (l *Ledger) Begin(ctx context.Context, c Charge) (Payment, error) {
	if err := l.ready(); err != nil {
		return Payment{}, err
	}
	if err := c.check(); err != nil {
		return Payment{}, err
	}
	id, err := l.newID("pay_")
	if err != nil {
		return Payment{}, err
	}
	p := Payment{
		ID: id, Reference: c.Reference, Amount: c.Amount, Currency: strings.ToUpper(c.Currency), Description: c.Description,
		State: StateStarting, Provider: l.provider.Name(), ExpiresAt: c.ExpiresAt.UTC(), Created: l.clock.Now().UTC(),
	}
	body, err := json.Marshal(p)
	if err != nil {
		return Payment{}, internal("payment begin", err)
	}
	writes := []store.Write{{Op: store.OpCreate, Record: store.Record{Kind: kindPayment, Key: id, Value: body, UpdatedAt: p.Created}}}
	latest := store.Record{Kind: kindLatest, Key: c.Reference, Value: []byte(id), UpdatedAt: p.Created}
	switch prev, err := l.records.Get(ctx, kindLatest, c.Reference); {
	case err == nil:
		latest.Version = prev.Version
		writes = append(writes, store.Write{Op: store.OpSwap, Record: latest})
	case errors.Is(err, store.ErrNotFound):
		writes = append(writes, store.Write{Op: store.OpCreate, Record: latest})
	default:
		return Payment{}, internal("payment begin", err)
	}
	if _, err := l.records.Apply(ctx, writes); err != nil {
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrExists) {
			return Payment{}, fail(CodeState, "Another payment for this was started at the same moment; reload the page.")
		}
		return Payment{}, internal("payment begin", err)
	}
	p.version = 1
	return l.open(ctx, p, c)
}

// Latest returns the payment last begun for reference, or CodeNotFound.
func (l *Ledger) Latest(ctx context.Context, reference string) (Payment, error) {
	rec, err := l.records.Get(ctx, kindLatest, reference)
	if errors.Is(err, store.ErrNotFound) {
		return Payment{}, fail(CodeNotFound, "Nothing was paid for this.")
	}
	if err != nil {
		return Payment{}, internal("payment latest", err)
	}
	return l.Get(ctx, string(rec.Value))
}

// Ready is nil when a provider is configured, and otherwise the refusal
// that names the missing setting.
func (l *Ledger) Ready() error { return l.ready() }

// open asks the provider for p's page, keyed by p's id, and records it.
func (l *Ledger) open(ctx context.Context, p Payment, c Charge) (Payment, error) {
	co, err := l.provider.CreateCheckout(ctx, CheckoutRequest{
		Amount: p.Amount, Currency: p.Currency, Description: p.Description,
		SuccessURL: c.SuccessURL, CancelURL: c.CancelURL, ExpiresAt: p.ExpiresAt,
		Metadata: map[string]string{MetadataPayment: p.ID, "reference": p.Reference}, IdempotencyKey: p.ID,
	})
	if err != nil {
		return p, &Error{Code: CodeUnavailable, Message: "The payment page could not be opened; try again in a moment.", Err: err}
	}
	return l.update(ctx, p.ID, func(q *Payment) (bool, error) {
		if q.State != StateStarting {
			return false, nil
		}
		q.State, q.Checkout, q.URL = StateOpen, co.ID, co.URL
		return true, nil
	})
}

// Get returns one payment.
func (l *Ledger) Get(ctx context.Context, id string) (Payment, error) {
	rec, err := l.records.Get(ctx, kindPayment, id)
	if errors.Is(err, store.ErrNotFound) {
		return Payment{}, fail(CodeNotFound, "No payment has this id.")
	}
	if err != nil {
		return Payment{}, internal("payment get", err)
	}
	return decode(rec)
}

func decode(rec store.Record) (Payment, error) {
	var p Payment
	if err := json.Unmarshal(rec.Value, &p); err != nil {
		return Payment{}, internal("payment decode "+rec.Key, err)
	}
	p.version = rec.Version
	return p, nil
}

// update applies change to the current record of id and stores it,
// reading again after a concurrent write. change reports whether it
// changed anything; an unchanged record is not written.
func (l *Ledger) update(ctx context.Context, id string, change func(*Payment) (bool, error)) (Payment, error) {
	var p Payment
	var answer error // returned as it is, beside p
	err := store.Retrier{Attempts: 8}.Run(ctx, func() error {
		var err error
		if p, err = l.Get(ctx, id); err != nil {
			p, answer = Payment{}, err
			return store.Final(err)
		}
		changed, err := change(&p)
		if err != nil || !changed {
			answer = err
			return store.Final(err)
		}
		rec, err := l.record(p)
		if err != nil {
			p, answer = Payment{}, err
			return store.Final(err)
		}
		if rec, err = l.records.Swap(ctx, rec); err != nil {
			return err // a change made meanwhile reads the payment again
		}
		p.version = rec.Version
		return nil
	})
	if answer != nil || err == nil {
		return p, answer
	}
	return Payment{}, internal("payment update", err)
}

// record is p as the store keeps it, at its current version.
func (l *Ledger) record(p Payment) (store.Record, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return store.Record{}, internal("payment encode", err)
	}
	return store.Record{Kind: kindPayment, Key: p.ID, Value: body, Version: p.version, UpdatedAt: l.clock.Now().UTC()}, nil
}

// Refund returns amount of a paid payment: the refund is recorded as
// pending first, then the provider is asked with the refund's id as its
// idempotency key, so asking again after a crash refunds once. More than
// what remains unrefunded is refused.
func (l *Ledger) Refund(ctx context.Context, id string, amount int64) (Payment, error) {
	return l.refund(ctx, id, RefundEntry{Amount: amount}, nil)
}

// RefundOnce is Refund made once for reason: when a refund for reason is
// already recorded, it is not made again; a pending one is asked again
// of the provider with its own idempotency key, and a done one is left
// as it is, whatever amount is asked now.
func (l *Ledger) RefundOnce(ctx context.Context, id, reason string, amount int64) (Payment, error) {
	return l.refund(ctx, id, RefundEntry{Reason: reason, Amount: amount}, nil)
}

// refund records the refund want (its Reason, Amount, By and Note) and
// asks the provider for it. also, when set, changes the payment in the
// same write as the refund's record.
func (l *Ledger) refund(ctx context.Context, id string, want RefundEntry, also func(*Payment)) (Payment, error) {
	if err := l.ready(); err != nil {
		return Payment{}, err
	}
	reason, amount := want.Reason, want.Amount
	var entry RefundEntry
	p, err := l.update(ctx, id, func(p *Payment) (bool, error) {
		if reason != "" {
			for _, r := range p.Refunds {
				if r.Reason == reason {
					entry = r
					return false, nil
				}
			}
		}
		switch left := p.Amount - p.Refunded(); {
		case p.State != StatePaid:
			return false, fail(CodeState, "Only a paid payment can be refunded; this one is "+p.State+".")
		case amount <= 0:
			return false, fail(CodeInvalid, "A refund's amount must be more than zero.")
		case amount > left:
			return false, fail(CodeInvalid, fmt.Sprintf("A refund of %s is more than the %s left to refund.", money.Format(amount, p.Currency), money.Format(left, p.Currency)))
		}
		entry = RefundEntry{ID: fmt.Sprintf("%s_r%d", p.ID, len(p.Refunds)+1), Amount: amount, State: RefundPending, At: l.clock.Now().UTC(),
			Reason: reason, By: want.By, Note: want.Note}
		p.Refunds = append(p.Refunds, entry)
		if also != nil {
			also(p)
		}
		return true, nil
	})
	if err != nil {
		return Payment{}, err
	}
	if entry.State == RefundDone {
		return p, nil
	}
	return l.finishRefund(ctx, p, entry)
}

// finishRefund asks the provider for a pending refund and records its
// answer. A provider that does not answer leaves the refund pending.
func (l *Ledger) finishRefund(ctx context.Context, p Payment, entry RefundEntry) (Payment, error) {
	r, err := l.provider.Refund(ctx, RefundRequest{
		Payment: p.ProviderPayment, Amount: entry.Amount, IdempotencyKey: entry.ID,
		Metadata: map[string]string{MetadataPayment: p.ID, "refund": entry.ID},
	})
	if err != nil {
		return p, &Error{Code: CodeUnavailable, Message: "The refund is recorded and will be sent again; the payment provider did not answer.", Err: err}
	}
	return l.update(ctx, p.ID, func(q *Payment) (bool, error) {
		for i := range q.Refunds {
			if q.Refunds[i].ID == entry.ID && q.Refunds[i].State == RefundPending {
				q.Refunds[i].State, q.Refunds[i].Provider = RefundDone, r.ID
				return true, nil
			}
		}
		return false, nil
	})
}

// StartGrace is how long a payment may stay in StateStarting before the
// sweep takes it for interrupted: far longer than asking the provider
// for a page takes.
const StartGrace = 10 * time.Minute

// Resume finishes what a crash interrupted on one payment: a page never
// opened (in StateStarting past StartGrace) is closed as expired, and
// pending refunds are asked again with the idempotency key of their
// first attempt.
func (l *Ledger) Resume(ctx context.Context, id string) (Payment, error) {
	if err := l.ready(); err != nil {
		return Payment{}, err
	}
	cutoff := l.clock.Now().Add(-StartGrace)
	p, err := l.update(ctx, id, func(q *Payment) (bool, error) {
		if q.State != StateStarting || q.Created.After(cutoff) {
			return false, nil
		}
		q.State = StateExpired
		return true, nil
	})
	if err != nil {
		return Payment{}, err
	}
	for _, r := range p.Refunds {
		if r.State == RefundPending {
			if p, err = l.finishRefund(ctx, p, r); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

// Unfinished lists the ids of payments a crash left mid-way (a page not
// opened past StartGrace, a refund not sent) among up to limit payments
// after the id after, and the id to continue after; "" when none are
// left.
func (l *Ledger) Unfinished(ctx context.Context, after string, limit int) (ids []string, next string, err error) {
	page, next, err := l.page(ctx, after, limit, func(p Payment) bool {
		pending := p.State == StateStarting && !p.Created.After(l.clock.Now().Add(-StartGrace))
		for _, r := range p.Refunds {
			pending = pending || r.State == RefundPending
		}
		return pending
	})
	for _, p := range page {
		ids = append(ids, p.ID)
	}
	return ids, next, err
}

// page reads up to limit payments after the id after and keeps those
// keep takes, with the id to continue after; "" when none are left.
func (l *Ledger) page(ctx context.Context, after string, limit int, keep func(Payment) bool) (out []Payment, next string, err error) {
	recs, err := l.records.List(ctx, kindPayment, "", after, limit)
	if err != nil {
		return nil, "", internal("payment list", err)
	}
	for _, rec := range recs {
		p, err := decode(rec)
		if err != nil {
			return nil, "", err
		}
		if keep(p) {
			out = append(out, p)
		}
	}
	if len(recs) == limit {
		next = recs[len(recs)-1].Key
	}
	return out, next, nil
}

func (l *Ledger) newID(prefix string) (string, error) {
	var b [12]byte
	if _, err := io.ReadFull(l.rand, b[:]); err != nil {
		return "", internal("payment id", err)
	}
	return prefix + hex.EncodeToString(b[:]), nil
}

// sweepPage is how many payments one read of the sweep looks at.
const sweepPage = 200

// Sweep finishes every payment a crash left mid-way (see Resume), then
// reconciles the ledger (see Reconcile), and returns how many payments
// it finished or settled. A payment whose provider still does not answer
// stays for the next pass; the others go on. Without a provider there
// is nothing to finish.
func (l *Ledger) Sweep(ctx context.Context) (int, error) {
	if l.provider == nil {
		return 0, nil
	}
	done, after := 0, ""
	var failed error
	for {
		ids, next, err := l.Unfinished(ctx, after, sweepPage)
		if err != nil {
			return done, err
		}
		for _, id := range ids {
			if _, err := l.Resume(ctx, id); err != nil {
				failed = errors.Join(failed, err)
				continue
			}
			done++
		}
		if next == "" {
			r, err := l.Reconcile(ctx)
			return done + r.Refunded + r.Paid + r.Expired, errors.Join(failed, err)
		}
		after = next
	}
}
