package usp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/uspspec"
	"frontdesk/sqlite"
	"frontdesk/usp"
	"frontdesk/usp/usptest"
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
		schemas.Check(t, schemas.MCPResult(t, "usp_services_feed"), envelope)
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
		cursor = pg["cursor"].(string)
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
	schemas.Check(t, uspspec.REST("GET", "/services/feed", 200), raw)
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
