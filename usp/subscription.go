package usp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"frontdesk/store"
	"frontdesk/usp/webhook"
)

// Feed subscriptions (§3.12.2): a platform registers a callback URL and
// receives catalog events (service.created, service.updated,
// service.deleted) for the services it cares about, signed and retried
// like booking webhooks. The catalog changes only when the config does,
// so events are queued by SyncCatalog at the start that notices a change,
// in the same write that records it.

// kindSubscription is the record kind of feed subscriptions, by id.
const kindSubscription = "usp-feed-subscription"

// catalogEvents are the event types a subscription may ask for.
var catalogEvents = []string{"service.created", "service.updated", "service.deleted", "service.suspended"}

// Subscription is a feed subscription (rest_common.json FeedSubscription).
type Subscription struct {
	ID          string   `json:"id"`
	CallbackURL string   `json:"callback_url"`
	Categories  []string `json:"categories,omitempty"`
	Events      []string `json:"events,omitempty"`
	Status      string   `json:"status"`
	CreatedAt   string   `json:"created_at"`
	// Platform is whose it is; never shown.
	Platform string `json:"-"`
}

type storedSubscription struct {
	Subscription
	Platform string `json:"platform"`
}

// SubscribeRequest is usp_services_feed_subscribe / POST
// /services/feed/subscriptions.
type SubscribeRequest struct {
	CallbackURL string   `json:"callback_url"`
	Categories  []string `json:"categories"`
	Events      []string `json:"events"`
}

// SubscriptionResult answers a subscription operation.
type SubscriptionResult struct {
	USP          Meta          `json:"usp"`
	Subscription *Subscription `json:"subscription,omitempty"`
	Messages     []Message     `json:"messages"`
}

// Created reports whether the result is a new subscription (REST 201).
func (r *SubscriptionResult) Created() bool { return r.Subscription != nil }

// Subscribe registers a feed subscription of the calling platform. The
// callback URL must be an https URL of a public host (outbound.Rule; loopback,
// and plain http to it, only with allow_private_profiles, for
// development); deliveries to it obey the same rule at connect time.
func (b *Business) Subscribe(ctx context.Context, call Call, in SubscribeRequest) (res *SubscriptionResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_services_feed_subscribe", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	res = &SubscriptionResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	if in.CallbackURL == "" {
		return nil, fail(CodeInvalidRequest, "callback_url is required.")
	}
	if err := b.dialRule().CheckURL(in.CallbackURL); err != nil {
		return nil, &Error{Code: CodeValidation, Message: "callback_url must be an absolute https URL of a public host.", Err: err}
	}
	for _, e := range in.Events {
		if !slices.Contains(catalogEvents, e) {
			return nil, fail(CodeValidation, "events may name only %v.", catalogEvents)
		}
	}
	if p.Platform == "" {
		return nil, fail(CodeAuthenticationRequired, "A feed subscription belongs to a platform; staff cannot subscribe.")
	}
	now := b.clock.Now().UTC()
	sub := Subscription{
		ID:          "sub_" + digestOf(p.Platform, in.CallbackURL, fmt.Sprint(in.Categories), fmt.Sprint(in.Events)),
		CallbackURL: in.CallbackURL, Categories: in.Categories, Events: in.Events,
		Status: "active", CreatedAt: now.Format(time.RFC3339),
	}
	v, err := json.Marshal(storedSubscription{Subscription: sub, Platform: p.Platform})
	if err != nil {
		return nil, err
	}
	_, err = b.st.Create(ctx, store.Record{Kind: kindSubscription, Key: sub.ID, Value: v, UpdatedAt: now})
	if errors.Is(err, store.ErrExists) {
		// The same platform asked for the same subscription: it has it.
		st, _, err := store.GetJSON[storedSubscription](ctx, b.st, kindSubscription, sub.ID)
		if err != nil {
			return nil, fmt.Errorf("read subscription: %w", err)
		}
		sub = st.Subscription
	} else if err != nil {
		return nil, fmt.Errorf("store subscription: %w", err)
	}
	res.Subscription = &sub
	return res, nil
}

// catalogEvent is a catalog webhook body (webhook_event.json CatalogEvent).
type catalogEvent struct {
	Event          string `json:"event"`
	EventID        string `json:"event_id"`
	ServiceID      string `json:"service_id"`
	SubscriptionID string `json:"subscription_id"`
	Timestamp      string `json:"timestamp"`
	Data           any    `json:"data,omitempty"`
}

// catalogChange is one service that changed at a sync.
type catalogChange struct {
	event   string // service.created, service.updated or service.deleted
	id      string
	service *Service // nil when deleted
}

// subscriptionWrites are the outbox writes that tell every active
// subscription that wants them of changes, at now.
func (b *Business) subscriptionWrites(ctx context.Context, changes []catalogChange, now time.Time) ([]store.Write, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	var writes []store.Write
	after := ""
	for {
		page, err := b.st.List(ctx, kindSubscription, "", after, 100)
		if err != nil {
			return nil, fmt.Errorf("list subscriptions: %w", err)
		}
		for _, rec := range page {
			after = rec.Key
			var sub storedSubscription
			if err := json.Unmarshal(rec.Value, &sub); err != nil {
				return nil, fmt.Errorf("decode subscription: %w", err)
			}
			if sub.Status != "active" {
				continue
			}
			for _, c := range changes {
				if len(sub.Events) > 0 && !slices.Contains(sub.Events, c.event) {
					continue
				}
				if len(sub.Categories) > 0 && c.service != nil && !slices.ContainsFunc(c.service.Categories, func(cat Category) bool { return slices.Contains(sub.Categories, cat.ID) }) {
					continue
				}
				id := fmt.Sprintf("evt_%s_%020d_%s", sub.ID, now.UnixNano(), c.id)
				ev := catalogEvent{Event: c.event, EventID: id, ServiceID: c.id, SubscriptionID: sub.ID, Timestamp: now.Format(time.RFC3339)}
				if c.service != nil {
					ev.Data = c.service
				}
				body, err := json.Marshal(ev)
				if err != nil {
					return nil, err
				}
				w, err := webhook.Queue(id, sub.Platform, sub.ID, sub.CallbackURL, body, now)
				if err != nil {
					return nil, err
				}
				writes = append(writes, w)
			}
		}
		if len(page) < 100 {
			return writes, nil
		}
	}
}

// CodeSubscriptionNotFound is a subscription id that names no
// subscription of the caller (404, like booking_not_found).
const CodeSubscriptionNotFound Code = "subscription_not_found"

// Subscription operations that change its status, by method name, with
// the status they lead to and the statuses they may leave.
var subscriptionMoves = map[string]struct {
	to   string
	from []string
}{
	"usp_services_feed_subscription_pause":  {"paused", []string{"active", "paused"}},
	"usp_services_feed_subscription_resume": {"active", []string{"paused", "active"}},
	"usp_services_feed_unsubscribe":         {"canceled", []string{"active", "paused", "canceled"}},
}

// SubscriptionOp runs a subscription operation of the calling platform:
// usp_services_feed_subscription_get reads it; pause, resume and
// unsubscribe move its status (canceled is terminal: a move from it is
// invalid_transition in messages[]; one to the status it has answers it
// unchanged).
func (b *Business) SubscriptionOp(ctx context.Context, call Call, method, id string) (res *SubscriptionResult, err error) {
	meta, p, outcome, err := b.begin(ctx, method, call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	res = &SubscriptionResult{USP: meta, Messages: []Message{}}
	notFound := fail(CodeSubscriptionNotFound, "%q names no feed subscription of this platform.", id)
	sub, err := store.Update(ctx, b.st, kindSubscription, id, b.clock.Now(), func(sub *storedSubscription, found bool) error {
		if !found || p.Staff == "" && sub.Platform != p.Platform {
			return notFound
		}
		if outcome != nil {
			res.Messages = append(res.Messages, *outcome)
			return store.ErrNoChange
		}
		move, changes := subscriptionMoves[method]
		if !changes || sub.Status == move.to {
			return store.ErrNoChange
		}
		if !slices.Contains(move.from, sub.Status) {
			res.Messages = append(res.Messages, *outcomeMsg("invalid_transition", "The subscription is "+sub.Status+"; it cannot become "+move.to+".", ""))
			return store.ErrNoChange
		}
		sub.Status = move.to
		return nil
	})
	if errors.Is(err, notFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, fmt.Errorf("save subscription: %w", err)
	}
	res.Subscription = &sub.Subscription
	return res, nil
}
