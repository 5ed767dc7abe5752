package orp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"frontdesk/orp"
)

// TestClickAttributedBeforeFold: a click counts for a sale from the
// moment its redirect is answered, before the click writer folds it into
// the pages (the host here never starts its writer, so nothing is folded
// until Flush). On SQLite the click sits in the journal, on PostgreSQL
// (and SQLite without a journal) in the store's click log, which a second
// instance on the same store reads too. A bot's click is found and still
// not counted; a click id of the host's shape that no click carries
// answers the provider with a retryable refusal and records nothing, so
// the same event applies once the click is there. Before the fix, every
// sale here answered applied:false, "belongs to no deal".
func TestClickAttributedBeforeFold(t *testing.T) {
	run := func(t *testing.T, e *env) {
		ctx := context.Background()
		maker, pub := e.autoParty(), e.autoParty()
		_, active := e.directDeal(maker, pub, affiliateTerms)
		link := linkOf(active, "place")

		via := viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
		e.clock.Advance(10 * time.Millisecond)
		sale := map[string]any{"id": "cs_soon_1", "object": "checkout.session", "amount_total": 10000, "currency": "eur",
			"client_reference_id": via, "payment_intent": "pi_soon_1"}
		if res := e.stripe("evt_soon_1", "checkout.session.completed", sale); !res.Applied || !res.Counted {
			t.Fatalf("sale 10 ms after its click = %+v, want applied and counted", res)
		}

		// Another instance on the same store, as on PostgreSQL behind a
		// load balancer, sees the clicks the first logged in the store.
		if e.journal == "" {
			e.clock.Advance(time.Second)
			via2 := viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
			other := e.newHost(e.db)
			b := stripeBody("evt_soon_2", "payment_intent.succeeded", map[string]any{"id": "pi_soon_2", "amount": 5000, "currency": "eur", "metadata": map[string]any{"orp_click": via2}})
			res, err := other.ProviderEvent(ctx, "stripe", orp.StripeSignature(b, testWebhookSecret, e.clock.Now()), b)
			if err != nil || !res.Applied || !res.Counted {
				t.Fatalf("sale on a second instance = %+v %v, want counted", res, err)
			}
		}

		// Uncounted clicks stay uncounted.
		e.clock.Advance(time.Second)
		bot := viaOf(t, e.click(link, map[string]string{"User-Agent": "curl/8.5.0"}, ""))
		res := e.stripe("evt_soon_bot", "payment_intent.succeeded", map[string]any{"id": "pi_soon_bot", "amount": 5000, "currency": "eur", "metadata": map[string]any{"orp_click": bot}})
		if !res.Applied || res.Counted {
			t.Fatalf("sale after a bot's click = %+v, want applied and not counted", res)
		}

		// A well-formed click id no click carries: retryable, nothing kept.
		raw, _ := base64.RawURLEncoding.DecodeString(via)
		raw[len(raw)-1] ^= 0xff
		unknown := base64.RawURLEncoding.EncodeToString(raw)
		b := stripeBody("evt_soon_unknown", "payment_intent.succeeded", map[string]any{"id": "pi_soon_unknown", "amount": 5000, "currency": "eur", "metadata": map[string]any{"orp_click": unknown}})
		_, err := e.host.ProviderEvent(ctx, "stripe", orp.StripeSignature(b, testWebhookSecret, e.clock.Now()), b)
		reply := e.host.ErrorMessage(err)
		if ae := orp.AsError(err); ae.Code != orp.ClickPending || reply.Status != 503 || reply.RetryAfter == 0 || !strings.Contains(string(reply.Body), `"retryable":true`) {
			t.Fatalf("unknown click id = %v, %d %s, want a retryable 503", err, reply.Status, reply.Body)
		}
		e.mustValidate("message.schema.json", reply.Body)
		// Not well-formed as this host's click id: a final answer.
		if res := e.stripe("evt_soon_other", "payment_intent.succeeded", map[string]any{"id": "pi_soon_other", "amount": 5000, "currency": "eur", "client_reference_id": "order-0000000000000001"}); res.Applied {
			t.Fatalf("foreign reference = %+v, want not applied", res)
		}

		// Folded, the clicks are found in the pages as before.
		e.host.Flush(ctx)
		if again := e.stripe("evt_soon_1", "checkout.session.completed", sale); !again.Counted {
			t.Fatalf("the same event after the fold = %+v, want the first answer", again)
		}
		e.clock.Advance(time.Second)
		late := viaOf(t, e.click(link, map[string]string{"User-Agent": browser}, ""))
		e.host.Flush(ctx)
		if res := e.stripe("evt_soon_3", "payment_intent.succeeded", map[string]any{"id": "pi_soon_3", "amount": 5000, "currency": "eur", "metadata": map[string]any{"orp_click": late}}); !res.Counted {
			t.Fatalf("sale after the fold = %+v, want counted", res)
		}
	}
	t.Run("sqlite journal", func(t *testing.T) { run(t, newEnv(t)) })
	t.Run("sqlite store log", func(t *testing.T) {
		e := newEnv(t)
		e.host.Close()
		e.journal = ""
		e.host = e.newHost(e.db)
		run(t, e)
	})
	t.Run("postgres", func(t *testing.T) { run(t, newEnvPG(t)) })
}

// stripeBody is a Stripe-compatible event as a provider posts it.
func stripeBody(id, typ string, object map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "type": typ, "object": "event", "data": map[string]any{"object": object}})
	return b
}
