package orp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"frontdesk/store"
)

// providerTolerance is the replay window of a provider's signed event:
// its signature's timestamp must be this close to the host clock.
const providerTolerance = 5 * time.Minute

// ProviderResult says what one provider event did. It never names the
// click id or anything about the buyer.
type ProviderResult struct {
	Event   string `json:"event"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason,omitempty"`
	Deal    string `json:"deal,omitempty"`
	Counted bool   `json:"counted,omitempty"`
}

// stripeEvent is the part of a Stripe-compatible event the host reads.
type stripeEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		Object stripeObject `json:"object"`
	} `json:"data"`
}

type stripeObject struct {
	ID                string            `json:"id"`
	Amount            *int64            `json:"amount"`
	AmountTotal       *int64            `json:"amount_total"`
	AmountReceived    *int64            `json:"amount_received"`
	AmountRefunded    *int64            `json:"amount_refunded"`
	Currency          string            `json:"currency"`
	Metadata          map[string]string `json:"metadata"`
	ClientReferenceID string            `json:"client_reference_id"`
	PaymentIntent     json.RawMessage   `json:"payment_intent"`
	Charge            json.RawMessage   `json:"charge"`
}

// idOf reads a Stripe reference that is an id or an expanded object.
func idOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &o) // checked or written by this code already; what does not decode reads as empty
	return o.ID
}

// VerifyStripeSignature checks a Stripe-Signature header over body: a
// timestamp t and one or more v1 HMAC-SHA256 signatures of "t.body"
// under the endpoint's secret, with t inside the replay window of now.
func VerifyStripeSignature(header string, body []byte, secret string, now time.Time) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return refuse(Unauthorized, "The event carries no valid signature header.")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > providerTolerance || d < -providerTolerance {
		return refuse(Stale, "The event's signature is outside the replay window of five minutes.")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return refuse(BadSignature, "The event's signature does not verify.")
}

// StripeSignature is the Stripe-Signature header a provider sends for
// body at t: what tests and local tools sign events with.
func StripeSignature(body []byte, secret string, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// ProviderEvent applies one signed event from a Stripe-compatible
// payment provider's webhook (T10, P5, §14.2). The signature and replay
// window are checked first; each event id applies once. Sales
// (checkout.session.completed, payment_intent.succeeded,
// charge.succeeded) carrying a click id (metadata orp_click or the
// checkout's client_reference_id) or a code (metadata orp_code) are
// conversions with basis provider, keyed by their payment intent so one
// purchase counts once; refunds (charge.refunded) and chargebacks
// (charge.dispute.created) of a known sale always apply and reverse its
// payout; payout.paid and payout.failed with metadata orp_deal and
// orp_payout mark a payout paid or failed, with the rail's id as ref.
// Other events are acknowledged and change nothing.
func (h *Host) ProviderEvent(ctx context.Context, provider, signature string, body []byte) (ProviderResult, error) {
	secret := h.opts.ProviderSecrets[provider]
	if secret == "" {
		return ProviderResult{}, refuse(NotFound, "This host takes no events from this provider.")
	}
	if err := VerifyStripeSignature(signature, body, secret, h.clock.Now()); err != nil {
		return ProviderResult{}, err
	}
	var ev stripeEvent
	if err := json.Unmarshal(body, &ev); err != nil || !eventPattern.MatchString(ev.ID) {
		return ProviderResult{}, invalid("", "The event is not a provider event with an id.")
	}
	res := ProviderResult{Event: ev.ID}
	obj := ev.Data.Object
	sale := idOf(obj.PaymentIntent)
	if sale == "" {
		sale = obj.ID
	}
	currency := strings.ToUpper(obj.Currency)
	switch ev.Type {
	case "checkout.session.completed", "payment_intent.succeeded", "charge.succeeded":
		click := obj.Metadata["orp_click"]
		if click == "" {
			click = obj.ClientReferenceID
		}
		code := obj.Metadata["orp_code"]
		if click == "" && code == "" {
			res.Reason = "The event carries no click id or code."
			return res, nil
		}
		if click != "" {
			code = ""
		}
		amount := firstAmount(obj.AmountTotal, obj.AmountReceived, obj.Amount)
		c := Conversion{Event: ev.ID, Click: click, Code: code, Sale: sale}
		if amount != nil && currency != "" {
			c.Amount = &Money{AmountMinor: *amount, Currency: currency}
		}
		return h.providerConversion(ctx, provider, c, res)
	case "charge.refunded", "charge.dispute.created":
		if ev.Type == "charge.dispute.created" {
			if s := idOf(obj.PaymentIntent); s != "" {
				sale = s
			} else if s := idOf(obj.Charge); s != "" {
				sale = s
			}
		}
		before, known, err := h.SaleRefunded(ctx, provider, sale)
		if err != nil {
			return res, err
		}
		if !known {
			res.Reason = "The event names no sale this host attributed."
			return res, nil
		}
		c := Conversion{Event: ev.ID, Sale: sale, Refund: true}
		if ev.Type == "charge.refunded" && obj.AmountRefunded != nil && currency != "" {
			// Stripe reports the running total refunded; the change is new.
			c.Amount = &Money{AmountMinor: max(*obj.AmountRefunded-before, 0), Currency: currency}
		} else if obj.Amount != nil && currency != "" {
			c.Amount = &Money{AmountMinor: *obj.Amount, Currency: currency}
		}
		return h.providerConversion(ctx, provider, c, res)
	case "payout.paid", "payout.failed":
		state := payoutPaid
		if ev.Type == "payout.failed" {
			state = payoutFailed
		}
		return h.providerPayout(ctx, provider, ev.ID, obj, state, res)
	}
	res.Reason = "This event type changes nothing here."
	return res, nil
}

func firstAmount(as ...*int64) *int64 {
	for _, a := range as {
		if a != nil {
			return a
		}
	}
	return nil
}

func (h *Host) providerConversion(ctx context.Context, provider string, c Conversion, res ProviderResult) (ProviderResult, error) {
	cr, err := h.ProviderConversion(ctx, provider, c)
	if err != nil {
		if _, ok := clickIDSecond(c.Click); ok && AsError(err).Code == NotFound {
			// A click id of this host's shape that no click carries yet:
			// the provider asks again later, and nothing was recorded, so
			// the same event id then applies. A final answer here would
			// lose a sale to a store that has not caught up.
			return res, &Error{Code: ClickPending, Message: "The event's click id is not known to this host yet. Send the event again later.", RetryAfter: clickPendingRetry, Err: err}
		}
		if AsError(err).Code == NotFound {
			res.Reason = "The event's click id or code belongs to no deal on this host."
			return res, nil
		}
		return res, err
	}
	res.Applied, res.Deal, res.Counted, res.Reason = true, cr.Deal, cr.Counted, cr.Reason
	return res, nil
}

// providerPayout marks a payout paid or failed from the rail's event,
// once per event id.
func (h *Host) providerPayout(ctx context.Context, provider, event string, obj stripeObject, state string, res ProviderResult) (ProviderResult, error) {
	deal, id := obj.Metadata["orp_deal"], obj.Metadata["orp_payout"]
	if deal == "" || id == "" || !eventPattern.MatchString(obj.ID) {
		res.Reason = "The event names no payout of this host."
		return res, nil
	}
	key := provider + " " + event
	err := h.retry(ctx, func() error {
		if _, err := h.store.Get(ctx, kindEvent, key); err == nil {
			res.Applied, res.Reason = false, "This event was already applied."
			return nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		o := &op{h: h, now: h.clock.Now()}
		var p payoutRecord
		rec, err := h.get(ctx, kindPayout, payoutKey(deal, id), &p)
		if errors.Is(err, store.ErrNotFound) {
			res.Reason = "The event names no payout of this host."
			return nil
		}
		if err != nil {
			return err
		}
		if p.State != payoutPayable && p.State != payoutSent {
			res.Reason = "The payout is " + p.State + "."
			return nil
		}
		p.Ref = obj.ID
		if err := o.setPayout(storedPayout{p: &p, rec: rec}, state); err != nil {
			return err
		}
		if state == payoutPaid {
			d, dr, err := h.loadDeal(ctx, deal)
			if err != nil {
				return err
			}
			payouts, err := o.opPayouts(ctx, deal)
			if err != nil {
				return err
			}
			settled, err := o.settlePay(ctx, d, payouts)
			if err != nil {
				return err
			}
			if settled {
				o.saveDeal(d, dr, false)
				if err := o.publish(ctx, d, nil); err != nil {
					return err
				}
			}
		}
		o.writes = append(o.writes, create(kindEvent, key, map[string]string{"type": state}, o.now))
		res.Applied, res.Deal, res.Reason = true, deal, ""
		return o.commit(ctx, nil)
	})
	return res, err
}
