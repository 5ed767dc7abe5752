package usp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"frontdesk/reservation"
	"frontdesk/store"
	"frontdesk/usp/webhook"
)

// EventBody renders an outbox event as its webhook body (§5.4.1): a
// BookingEvent whose data is the booking as it was right after the
// transition. Holds are not bookings: their events are skipped.
func (b *Business) EventBody(_ context.Context, e webhook.Event) ([]byte, error) {
	var r reservation.Reservation
	if err := json.Unmarshal(e.Reservation, &r); err != nil {
		return nil, fmt.Errorf("decode event %s: %w", e.ID, err)
	}
	d, ok := detailOf(r)
	if !ok || d.Kind != "booking" {
		return nil, webhook.ErrSkip
	}
	r.Version, r.UpdatedAt = e.Version, e.At
	data, err := json.Marshal(b.view(r, d))
	if err != nil {
		return nil, err
	}
	ev := webhook.BookingEvent{Event: e.Type, EventID: e.ID, BookingID: r.Reference, Timestamp: e.At.UTC().Format(time.RFC3339), Data: data}
	if d.Pay != nil && d.Pay.Via == viaCheckout {
		ev.OrderID = d.Pay.OrderReference // the checkout's order.id, aliased (§7.5)
	}
	return json.Marshal(ev)
}

// WebhookURL is where a platform's webhooks go: the webhook_url the owner
// registered for it in the config, else the webhook_url of the profile
// its principal is bound to. "" when it has none. A profile's URL is used
// only when it passes outbound.Rule.CheckURL; the delivery client applies the
// rule again at connect time (CallbackClient).
func (b *Business) WebhookURL(ctx context.Context, platform string) (string, error) {
	for _, p := range b.cfg.Platforms {
		if p.Name == platform && p.WebhookURL != "" {
			return p.WebhookURL, nil
		}
	}
	if b.st == nil {
		return "", nil
	}
	uri, err := b.platformProfile(ctx, platform)
	if err != nil || uri == "" {
		return "", err
	}
	profile, err := b.profiles.Get(ctx, uri)
	if err != nil {
		return "", err
	}
	if profile.WebhookURL == "" || b.dialRule().CheckURL(profile.WebhookURL) != nil {
		return "", nil
	}
	return profile.WebhookURL, nil
}

// platformProfile is the profile URI a platform's principal is bound to:
// its API key's or its key's binding, or for a platform known by its
// request signatures (named by its profile's host) the first signing
// key's binding on that host.
func (b *Business) platformProfile(ctx context.Context, platform string) (string, error) {
	principal := MechanismAPIKey + ":" + platform
	if jkt, ok := strings.CutPrefix(platform, keyPlatformPrefix); ok {
		principal = "jkt:" + jkt
	}
	rec, err := b.st.Get(ctx, kindBinding, principal)
	if err == nil {
		return string(rec.Value), nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("read identity binding: %w", err)
	}
	after := ""
	for {
		page, err := b.st.List(ctx, kindBinding, signaturePrincipalPrefix, after, 100)
		if err != nil {
			return "", fmt.Errorf("read identity bindings: %w", err)
		}
		for _, r := range page {
			if u, err := url.Parse(string(r.Value)); err == nil && strings.EqualFold(u.Hostname(), platform) {
				return string(r.Value), nil
			}
			after = r.Key
		}
		if len(page) < 100 {
			return "", nil
		}
	}
}
