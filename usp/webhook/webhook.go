// Package webhook delivers USP webhooks (§9.2.3, §10.1.1) from the
// durable outbox: the events the USP door writes in the same transaction
// as each transition of a USP platform's reservation. Each
// event is POSTed to the platform's webhook URL, signed with the
// business's current key (Content-Digest and an RFC 9421 signature with
// created and a keyid from the business profile), and offered to the
// platform's live MCP sessions as a usp_webhook notification.
//
// Delivery is at least once: a worker claims an event with a lease (a
// compare-and-swap on its record), POSTs it, and deletes it on a 2xx. A
// failure is retried 30 s, 60 s and 120 s later (three retries, all
// within 15 minutes); a worker that dies mid-delivery leaves a lease that
// expires, and the next pass delivers again with the same event_id. The
// events of one reservation are delivered in order: a later one waits
// until the earlier is delivered or given up. Given-up events move to
// DeadKind, where staff and monitoring can still see them.
//
// It imports store, reservation and internal helpers, never an adapter.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"time"

	"frontdesk/internal/clock"
	"frontdesk/store"
)

// DeadKind is the record kind of events whose every attempt failed.
const DeadKind = "usp-event-dead"

// Delivery schedule. §9.2.3 of both the 2026-08-20 snapshot and the newer
// text: "Businesses SHOULD retry failed deliveries (non-2xx response or
// timeout) with exponential backoff: initial delay 30 seconds, maximum 3
// retries, maximum total delay 15 minutes." So the retries come 30 s,
// 60 s and 120 s after the attempt before (at +30 s, +90 s and +210 s),
// not at a fixed 30 s; the "retried at 30 s" is that initial
// delay.
const (
	FirstRetry = 30 * time.Second
	MaxRetries = 3
	// Lease is how long a claimed event is another worker's: longer than
	// a delivery may take (a 10 s answer, the connect and signing).
	Lease = time.Minute
	// pageSize is how many outbox records one list call reads.
	pageSize = 100
)

// ErrSkip, returned by a Render function, drops the event undelivered:
// a transition the platform is not told about.
var ErrSkip = errors.New("webhook: event not announced")

// Signer signs a webhook POST at now: keyset.Set in production.
type Signer interface {
	SignWebhook(ctx context.Context, now time.Time, r *http.Request, body []byte) error
}

// BookingEvent is the body of a booking webhook (webhook_event.json
// BookingEvent): the same bytes in the POST and in the usp_webhook
// notification's params.
type BookingEvent struct {
	Event     string `json:"event"`
	EventID   string `json:"event_id"`
	BookingID string `json:"booking_id"`
	// OrderID is the UCP order of a booking a UCP checkout made (§7.5
	// step 8), for the platform to correlate the two.
	OrderID   string          `json:"order_id,omitempty"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data,omitempty"`
}

// Outbox delivers the outbox's events.
type Outbox struct {
	Records store.Records
	// Client POSTs webhooks; usp.CallbackClient obeys the private-address
	// rule of profile fetches.
	Client *http.Client
	Sign   Signer
	// Endpoint returns the webhook URL of a platform; "" when it has
	// none, and then the event is only offered to its MCP sessions.
	Endpoint func(ctx context.Context, platform string) (string, error)
	// Render makes the body of a booking event; nil renders a
	// BookingEvent whose booking_id is the reservation reference and
	// without data. ErrSkip drops the event.
	Render func(ctx context.Context, e Event) ([]byte, error)
	// Notify offers the body to the platform's live MCP sessions as a
	// usp_webhook notification, once, at the first attempt; nil when
	// there is no MCP binding.
	Notify func(ctx context.Context, platform string, body []byte)
	Clock  clock.Clock
	Logger *slog.Logger
}

// row is an outbox record: the event as QueueEvent or Queue wrote it,
// and the delivery state this package keeps with it.
type row struct {
	Event
	// CallbackURL and Body are set on events rendered when queued, such
	// as catalog events for a feed subscription: Body goes to CallbackURL
	// as it is.
	CallbackURL string          `json:"callback_url,omitempty"`
	Body        json.RawMessage `json:"body,omitempty"`
	Attempts    int             `json:"attempts,omitempty"`
	NextAt      time.Time       `json:"next_at,omitzero"`
	LeaseUntil  time.Time       `json:"lease_until,omitzero"`
	LastError   string          `json:"last_error,omitempty"` // a status or transport failure, never a body
}

// Result counts what one pass did.
type Result struct {
	Delivered, Retrying, Dead, Dropped int
}

func (o *Outbox) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger.With("component", "webhook")
}

// Run delivers due events every interval until ctx ends.
func (o *Outbox) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := o.Deliver(ctx); err != nil && ctx.Err() == nil {
			o.log().Error("webhook pass", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Deliver makes one pass over the outbox: every event that is due, not
// leased by another worker and not waiting behind an earlier event of its
// reservation is claimed and delivered.
func (o *Outbox) Deliver(ctx context.Context) (Result, error) {
	var res Result
	waiting := map[string]bool{} // references with an earlier event still queued
	after := ""
	for {
		page, err := o.Records.List(ctx, Kind, "", after, pageSize)
		if err != nil {
			return res, fmt.Errorf("list outbox: %w", err)
		}
		for _, rec := range page {
			var r row
			if err := json.Unmarshal(rec.Value, &r); err != nil {
				o.log().Error("undecodable outbox event", "key", rec.Key, "err", err)
				continue
			}
			// Each delivery is its own operation: a pass that waited on
			// slow platforms must not claim with a lease already spent.
			now := o.Clock.Now()
			if waiting[r.Reference] || now.Before(r.NextAt) || now.Before(r.LeaseUntil) {
				waiting[r.Reference] = true
				continue
			}
			done, err := o.deliver(ctx, now, rec, r, &res)
			if err != nil {
				return res, err
			}
			if !done {
				waiting[r.Reference] = true
			}
		}
		if len(page) < pageSize {
			return res, nil
		}
		after = page[len(page)-1].Key
	}
}

// deliver claims and delivers one event; done is false while it stays
// queued (retrying, or claimed by another worker).
func (o *Outbox) deliver(ctx context.Context, now time.Time, rec store.Record, r row, res *Result) (done bool, err error) {
	first := r.Attempts == 0
	r.LeaseUntil = now.Add(Lease)
	claimed, err := o.swap(ctx, rec, r, now)
	if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
		return false, nil // another worker has it
	}
	if err != nil {
		return false, fmt.Errorf("claim event: %w", err)
	}
	body := []byte(r.Body)
	if body == nil {
		body, err = o.render(ctx, r.Event)
	}
	if errors.Is(err, ErrSkip) {
		res.Dropped++
		return true, o.remove(ctx, claimed)
	}
	if err != nil {
		return false, fmt.Errorf("render event %s: %w", r.ID, err)
	}
	if first && o.Notify != nil {
		o.Notify(ctx, r.Platform, body)
	}
	url, failure := r.CallbackURL, ""
	if url == "" && o.Endpoint != nil {
		if url, err = o.Endpoint(ctx, r.Platform); err != nil {
			// The platform's profile may be down for a moment: a failed
			// attempt like any other.
			failure = "endpoint: " + err.Error()
		}
	}
	if url == "" && failure == "" {
		res.Dropped++
		o.log().Debug("no webhook url", "platform", r.Platform, "event_id", r.ID)
		return true, o.remove(ctx, claimed)
	}
	if failure == "" {
		failure = o.post(ctx, now, url, body)
	}
	if failure == "" {
		res.Delivered++
		o.log().Info("webhook delivered", "platform", r.Platform, "event", r.Type, "event_id", r.ID, "attempt", r.Attempts+1)
		return true, o.remove(ctx, claimed)
	}
	r.Attempts++
	r.LastError = failure
	r.LeaseUntil = time.Time{}
	if r.Attempts > MaxRetries {
		res.Dead++
		o.log().Error("webhook delivery given up", "platform", r.Platform, "event", r.Type, "event_id", r.ID, "attempts", r.Attempts, "last_error", failure)
		return true, o.bury(ctx, claimed, r, now)
	}
	r.NextAt = now.Add(FirstRetry << (r.Attempts - 1))
	res.Retrying++
	o.log().Warn("webhook delivery failed", "platform", r.Platform, "event_id", r.ID, "attempt", r.Attempts, "retry_at", r.NextAt, "error", failure)
	if _, err := o.swap(ctx, claimed, r, now); err != nil && !errors.Is(err, store.ErrConflict) {
		return false, fmt.Errorf("schedule retry: %w", err)
	}
	return false, nil
}

// post sends one signed POST and returns "" on a 2xx, else why it failed.
func (o *Outbox) post(ctx context.Context, now time.Time, url string, body []byte) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "bad url"
	}
	req.Header.Set("Content-Type", "application/json")
	if err := o.Sign.SignWebhook(ctx, now, req, body); err != nil {
		return "sign: " + err.Error()
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return "transport: " + err.Error()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // drained for reuse; the status decided
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Sprintf("status %d", resp.StatusCode)
	}
	return ""
}

func (o *Outbox) render(ctx context.Context, e Event) ([]byte, error) {
	if o.Render != nil {
		return o.Render(ctx, e)
	}
	return json.Marshal(BookingEvent{Event: e.Type, EventID: e.ID, BookingID: e.Reference, Timestamp: e.At.UTC().Format(time.RFC3339)})
}

func (o *Outbox) swap(ctx context.Context, rec store.Record, r row, now time.Time) (store.Record, error) {
	v, err := json.Marshal(r)
	if err != nil {
		return store.Record{}, err
	}
	rec.Value, rec.UpdatedAt = v, now
	return o.Records.Swap(ctx, rec)
}

// remove deletes a delivered or dropped event; a record changed meanwhile
// (a lease that expired mid-delivery) is left to be delivered again.
func (o *Outbox) remove(ctx context.Context, rec store.Record) error {
	err := o.Records.Delete(ctx, rec.Kind, rec.Key, rec.Version)
	if err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("remove delivered event: %w", err)
	}
	return nil
}

// bury moves an event whose attempts are spent to DeadKind.
func (o *Outbox) bury(ctx context.Context, rec store.Record, r row, now time.Time) error {
	v, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = o.Records.Apply(ctx, []store.Write{
		{Op: store.OpDelete, Record: rec},
		{Op: store.OpCreate, Record: store.Record{Kind: DeadKind, Key: rec.Key, Value: v, UpdatedAt: now}},
	})
	if _, refused := errors.AsType[*store.WriteError](err); refused {
		return nil // changed meanwhile: the next pass sees it again
	}
	return err
}

// Queue is the outbox write of an event rendered now: body goes to url,
// signed like every webhook, with the same retries. chain orders events:
// those of one chain are delivered in the order of their ids. The id is
// the event_id body carries.
func Queue(id, platform, chain, url string, body []byte, now time.Time) (store.Write, error) {
	v, err := json.Marshal(row{Event: Event{ID: id, Type: "direct", Platform: platform, Reference: chain, At: now.UTC()}, CallbackURL: url, Body: body})
	if err != nil {
		return store.Write{}, err
	}
	return store.Write{Op: store.OpCreate, Record: store.Record{Kind: Kind, Key: id, Value: v, UpdatedAt: now}}, nil
}
