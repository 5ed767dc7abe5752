package usp_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/httpsig"
	"frontdesk/internal/uspspec"
	"frontdesk/sqlite"
	"frontdesk/usp"
	"frontdesk/usp/keyset"
	"frontdesk/usp/usptest"
	"frontdesk/usp/webhook"
)

// TestCatalogFeedOverBothBindings: the feed pages through every service
// of the demo in (modified_at, id) order over MCP, each page accepted by
// the OpenRPC result schema, and over REST by the OpenAPI one.
func TestCatalogFeedOverBothBindings(t *testing.T) {
	tb := startTrust(t)
	schemas := uspspec.Load(t)
	p := tb.keyPlatform(t, 6, "/pop.json")
	var ids []string
	cursor := ""
	for page := 0; ; page++ {
		args := map[string]any{"limit": 3}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "usp_services_feed", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("feed page %d: %v %+v", page, err, res)
		}
		envelope, _ := json.Marshal(map[string]any{"structuredContent": res.StructuredContent, "content": res.Content})
		schemas.Check(t, schemas.NewerMCPResult(t, "usp_services_feed"), envelope)
		out := res.StructuredContent.(map[string]any)
		for _, it := range out["items"].([]any) {
			item := it.(map[string]any)
			if item["state"] != "updated" {
				t.Fatalf("item %v", item)
			}
			ids = append(ids, item["data"].(map[string]any)["id"].(string))
		}
		pg := out["pagination"].(map[string]any)
		if pg["has_more"] != true {
			break
		}
		if _, old := pg["cursor"]; old {
			t.Fatalf("feed pagination %v carries cursor, which §3.1 names next_cursor", pg)
		}
		cursor = pg["next_cursor"].(string)
		if page > 20 {
			t.Fatal("the feed does not end")
		}
	}
	meta := 0
	for _, l := range config.Demo().Locations {
		meta += len(l.Units)
	}
	if len(ids) != meta || !slices.IsSorted(ids) {
		t.Fatalf("feed ids %v, want the %d services once each in id order (all modified at once)", ids, meta)
	}
	status, doc := tb.send(t, tb.request(t, rest{"GET", "/usp/services/feed?limit=2&location_id=airport", "", nil}))
	raw, _ := json.Marshal(doc)
	if status != 200 {
		t.Fatalf("REST feed: %d %s", status, raw)
	}
	schemas.Check(t, uspspec.NewerREST("GET", "/services/feed", 200), raw)
	status, _ = tb.send(t, tb.request(t, rest{"GET", "/usp/services/feed?cursor=bogus", "", nil}))
	if status != 400 {
		t.Fatalf("a made-up cursor: %d", status)
	}
}

// TestCatalogFeedRemembersChanges: SyncCatalog dates services at the
// start that first publishes them and keeps the date while they do not
// change; a service gone from the config is a deleted record dated at the
// start that noticed, after the others.
func TestCatalogFeedRemembersChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usp.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFixed(usptest.Now)
	feed := func(cfg config.Config) []usp.FeedItem {
		t.Helper()
		b := usptest.On(t, cfg, st, clk, nil, nil, path)
		if err := b.SyncCatalog(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, err := b.Feed(context.Background(), usp.Call{}, usp.FeedRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Items
	}
	first := feed(config.Demo())
	clk.Advance(time.Hour)
	again := feed(config.Demo())
	if a, b := jsonOf(first), jsonOf(again); a != b {
		t.Fatalf("an unchanged config changed the feed:\n%s\n%s", a, b)
	}
	clk.Advance(time.Hour)
	cfg := config.Demo()
	for i := range cfg.Locations {
		if cfg.Locations[i].Slug == "airport" {
			cfg.Locations[i].Units = cfg.Locations[i].Units[:len(cfg.Locations[i].Units)-1]
		}
	}
	after := feed(cfg)
	last := after[len(after)-1]
	if len(after) != len(first) || last.State != "deleted" || last.ModifiedAt != clk.Now().UTC().Format(time.RFC3339) {
		t.Fatalf("after removing a unit the feed ends with %+v (%d items, had %d)", last, len(after), len(first))
	}
	if data, _ := json.Marshal(last.Data); len(data) > 60 {
		t.Fatalf("a deleted record carries more than its id: %s", data)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFeedSubscriptionGetsCatalogEvents: a platform subscribes (201 over
// REST, the schema's FeedSubscription); a start with a changed config
// queues service.updated for it in the same write as the new catalog
// state, and the outbox delivers it signed to the callback URL, a
// CatalogEvent of the official schema.
func TestFeedSubscriptionGetsCatalogEvents(t *testing.T) {
	schemas := uspspec.Load(t)
	tb := startTrust(t)
	var mu sync.Mutex
	var got [][]byte
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := httpsig.VerifyContentDigest(r.Header.Values("Content-Digest"), body); err != nil || r.Header.Get("Signature-Input") == "" {
			t.Errorf("catalog event not signed: %v", err)
		}
		mu.Lock()
		got = append(got, body)
		mu.Unlock()
	}))
	defer hook.Close()

	// serve records the catalog at start, before any subscription.
	if err := tb.business.SyncCatalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	agent := `profile="` + tb.plat.URL + `/platform.json"`
	body := `{"callback_url":"` + hook.URL + `/catalog","categories":["timed"]}`
	status, doc := tb.send(t, tb.request(t, rest{"POST", "/usp/services/feed/subscriptions", body, map[string]string{"USP-Agent": agent, "Authorization": usptest.Bearer}}))
	raw, _ := json.Marshal(doc)
	if status != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", status, raw)
	}
	schemas.Check(t, uspspec.REST("POST", "/services/feed/subscriptions", 201), raw)
	status, _ = tb.send(t, tb.request(t, rest{"POST", "/usp/services/feed/subscriptions", `{"callback_url":"ftp://x.example/"}`, map[string]string{"USP-Agent": agent, "Authorization": usptest.Bearer}}))
	if status != 422 {
		t.Fatalf("an ftp callback: %d", status)
	}
	// The development switch (on here) admits loopback callbacks only:
	// the metadata address, in any spelling, and plain http elsewhere are
	// refused in every mode.
	for _, cb := range []string{"https://169.254.169.254/hook", "https://[::ffff:169.254.169.254]/hook", "https://0xa9fea9fe/hook", "http://hooks.example/hook", "https://10.1.2.3/hook"} {
		status, _ = tb.send(t, tb.request(t, rest{"POST", "/usp/services/feed/subscriptions", `{"callback_url":"` + cb + `"}`, map[string]string{"USP-Agent": agent, "Authorization": usptest.Bearer}}))
		if status != 422 {
			t.Fatalf("callback %s in development: %d, want 422", cb, status)
		}
	}
	status, _ = tb.send(t, tb.request(t, rest{"POST", "/usp/services/feed/subscriptions", body, map[string]string{"USP-Agent": agent}}))
	if status != 401 {
		t.Fatalf("an anonymous subscription: %d", status)
	}

	// A later start with the shuttle dearer tells the subscriber, and
	// only of the timed service.
	cfg := usptest.WithPlatform(config.Demo())
	for i := range cfg.Locations {
		for j := range cfg.Locations[i].Units {
			u := &cfg.Locations[i].Units[j]
			if u.Type == "shuttle" {
				u.Price = "31.00"
			}
		}
	}
	later := usptest.On(t, cfg, tb.store, tb.clock, tb.plat, nil, "")
	tb.clock.Advance(time.Hour)
	if err := later.SyncCatalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	ks := keyset.Set{Records: tb.store, Rand: rand.Reader}
	if err := ks.Ensure(context.Background(), tb.clock.Now()); err != nil {
		t.Fatal(err)
	}
	box := &webhook.Outbox{Records: tb.store, Client: usp.CallbackClient(true, nil), Sign: ks, Clock: tb.clock, Render: later.EventBody}
	if res, err := box.Deliver(context.Background()); err != nil || res.Delivered != 1 {
		t.Fatalf("deliver = %+v, %v; want the one catalog event: %s", res, err, got)
	}
	mu.Lock()
	defer mu.Unlock()
	schemas.Check(t, "https://usp-protocol.dev/schemas/services/webhook_event.json#/$defs/CatalogEvent", got[0])
	var ev map[string]any
	json.Unmarshal(got[0], &ev)
	subID := doc["subscription"].(map[string]any)["id"].(string)
	if ev["event"] != "service.updated" || ev["service_id"] != "svc_airport_shuttle" || ev["subscription_id"] != subID {
		t.Fatalf("catalog event %s", got[0])
	}

	// The lifecycle: get, pause (no events while paused), resume,
	// unsubscribe; a canceled subscription cannot be resumed.
	auth := map[string]string{"USP-Agent": agent, "Authorization": usptest.Bearer}
	path := "/usp/services/feed/subscriptions/" + subID
	op := func(method, suffix, spec string, want string) map[string]any {
		t.Helper()
		status, doc := tb.send(t, tb.request(t, rest{method, path + suffix, "", auth}))
		raw, _ := json.Marshal(doc)
		if status != 200 || doc["subscription"].(map[string]any)["status"] != want {
			t.Fatalf("%s %s: %d %s, want %s", method, suffix, status, raw, want)
		}
		schemas.Check(t, uspspec.REST(method, "/services/feed/subscriptions/{subscription_id}"+spec, 200), raw)
		return doc
	}
	op("GET", "", "", "active")
	op("POST", "/pause", "/pause", "paused")
	cfg.Locations[0].Units[0].Count++
	tb.clock.Advance(time.Hour)
	if err := usptest.On(t, cfg, tb.store, tb.clock, tb.plat, nil, "").SyncCatalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left, _ := tb.store.List(context.Background(), "usp-event", "", "", 100); len(left) != 0 {
		t.Fatalf("a paused subscription got %d events", len(left))
	}
	op("POST", "/resume", "/resume", "active")
	op("DELETE", "", "", "canceled")
	again := op("POST", "/resume", "/resume", "canceled")
	if msgs := again["messages"].([]any); len(msgs) != 1 || msgs[0].(map[string]any)["code"] != "invalid_transition" {
		t.Fatalf("resuming a canceled subscription: %v", again)
	}
	// Over MCP another platform does not find it.
	other := tb.keyPlatform(t, 7, "/platform.json")
	_, err := other.signed(t, "usp_services_feed_subscription_get", map[string]any{"subscription_id": subID}, "")
	refusedWith(t, "another platform's subscription", err, "subscription_not_found")
}

// catalogOnlyProfile lists the catalog without feed subscriptions, and
// orphanSubscriptionsProfile the subscriptions without their base.
const (
	catalogOnlyProfile = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/services/catalog.json"}]}}}`
	orphanSubscriptionsProfile = `{"usp":{"version":"2026-08-20","capabilities":{
 "dev.usp-protocol.services.catalog.subscriptions":[{"version":"2026-08-20","spec":"https://usp-protocol.dev/specification","schema":"https://usp-protocol.dev/schemas/rest_common.json#/$defs/FeedSubscription","extends":"dev.usp-protocol.services.catalog"}]}}}`
)

// TestProfileDeclaresEveryServedCapability: the profile of a business
// serving privileged calls declares the capability of every method it
// serves, feed subscriptions included (§3.12.2), and still passes the
// official BusinessProfile schema.
func TestProfileDeclaresEveryServedCapability(t *testing.T) {
	tb := startTrust(t)
	caps := tb.business.Profile().USP.Capabilities
	for _, m := range tb.business.Served() {
		if len(caps[m.Capability]) == 0 {
			t.Errorf("%s is served but its capability %s is not declared", m.Name, m.Capability)
		}
	}
	if got := caps[usp.CapabilitySubscriptions]; len(got) != 1 || got[0].Extends != usp.CapabilityCatalog {
		t.Fatalf("subscriptions entry = %+v, want one extending the catalog", got)
	}
	uspspec.Load(t).Check(t, uspspec.Def("profile.json", "BusinessProfile"), tb.business.ProfileJSON())
}

// TestSubscriptionsNegotiateLikeTheOtherCapabilities: subscribing needs
// the subscriptions capability in the platform's profile, and its base,
// the catalog, too (§8.3 prunes an extension without its base); without
// either the answer is capabilities_incompatible and nothing is stored.
func TestSubscriptionsNegotiateLikeTheOtherCapabilities(t *testing.T) {
	tb := startTrust(t)
	args := map[string]any{"callback_url": "https://hooks.example/catalog"}
	for i, c := range []struct {
		profile string
		want    string // a message code, or "" for a created subscription
	}{
		{"/platform.json", ""},
		{"/catalog-only.json", "capabilities_incompatible"},
		{"/orphan-subscriptions.json", "capabilities_incompatible"},
	} {
		t.Run(strings.TrimPrefix(c.profile, "/"), func(t *testing.T) {
			p := tb.keyPlatform(t, byte(20+i), c.profile)
			out, err := p.signed(t, "usp_services_feed_subscribe", args, "")
			if err != nil {
				t.Fatal(err)
			}
			msgs, _ := out["messages"].([]any)
			if c.want == "" {
				if out["subscription"] == nil || len(msgs) != 0 {
					t.Fatalf("subscribe = %v, want a subscription", out)
				}
				caps := out["usp"].(map[string]any)["capabilities"].(map[string]any)
				if _, ok := caps[string(usp.CapabilitySubscriptions)]; !ok || len(caps) != 1 {
					t.Fatalf("negotiated %v, want the subscriptions capability alone", caps)
				}
				return
			}
			if out["subscription"] != nil || len(msgs) != 1 || msgs[0].(map[string]any)["code"] != c.want {
				t.Fatalf("subscribe = %v, want only the message %s", out, c.want)
			}
		})
	}
	if recs, _ := tb.store.List(context.Background(), "usp-feed-subscription", "", "", 10); len(recs) != 1 {
		t.Fatalf("%d subscriptions stored, want the one negotiated", len(recs))
	}
}
