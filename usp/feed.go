package usp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/store"
)

// The catalog feed (§3.1): every service with when it last changed, in
// (modified_at, id) order, for aggregators that index incrementally. The
// catalog comes from the config, so "changed" means changed between two
// starts: SyncCatalog compares the services of this config with the digests
// recorded at the last start, dates new and changed ones now and keeps
// removed ones as deleted.

// kindCatalogState is the record of the catalog as last published.
const kindCatalogState = "usp-catalog-state"

// Feed page sizes (§3.1: the default is 50).
const (
	defaultFeedPage = 50
	maxFeedPage     = 200
)

type feedEntry struct {
	Digest     string    `json:"digest"` // of the service as published; "" once deleted
	Location   string    `json:"location"`
	ModifiedAt time.Time `json:"modified_at"`
}

type catalogState struct {
	Services map[string]feedEntry `json:"services"`
}

// SyncCatalog records the catalog of this config: services new or changed
// since the last record are modified now, services gone from the config
// are deleted now, and every active feed subscription that wants a change
// gets its catalog event queued in the same write. It is idempotent for
// an unchanged config.
func (b *Business) SyncCatalog(ctx context.Context) error {
	if b.st == nil {
		return nil
	}
	now := b.clock.Now().UTC()
	_, err := store.UpdateWith(ctx, b.st, kindCatalogState, "business", now, func(st *catalogState, _ store.Record) ([]store.Write, error) {
		if st.Services == nil {
			st.Services = map[string]feedEntry{}
		}
		var changes []catalogChange
		seen := map[string]bool{}
		for s := range b.catalog.all() {
			seen[s.ID] = true
			body, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			sum := sha256.Sum256(body)
			digest := base64.RawURLEncoding.EncodeToString(sum[:])
			e, ok := st.Services[s.ID]
			if ok && e.Digest == digest {
				continue
			}
			st.Services[s.ID] = feedEntry{Digest: digest, Location: s.loc.Slug, ModifiedAt: now}
			event := "service.updated"
			if !ok || e.Digest == "" {
				event = "service.created"
			}
			changes = append(changes, catalogChange{event: event, id: s.ID, service: &s})
		}
		for id, e := range st.Services {
			if !seen[id] && e.Digest != "" {
				st.Services[id] = feedEntry{Location: e.Location, ModifiedAt: now}
				changes = append(changes, catalogChange{event: "service.deleted", id: id})
			}
		}
		if len(changes) == 0 {
			return nil, store.ErrNoChange
		}
		slices.SortFunc(changes, func(a, b catalogChange) int { return strings.Compare(a.id, b.id) })
		// Another instance started at the same time makes this compare
		// with its record.
		return b.subscriptionWrites(ctx, changes, now)
	})
	if err != nil {
		return fmt.Errorf("save catalog state: %w", err)
	}
	return nil
}

// FeedRequest is usp_services_feed / GET /services/feed.
type FeedRequest struct {
	Cursor     string `json:"cursor"`
	Limit      *int   `json:"limit"`
	LocationID string `json:"location_id"`
}

// FeedItem is one record of the feed: the full service when updated, its
// id only when deleted.
type FeedItem struct {
	State      string `json:"state"`
	ModifiedAt string `json:"modified_at"`
	Data       any    `json:"data"`
}

// FeedMeta describes the feed as a whole.
type FeedMeta struct {
	GeneratedAt   string `json:"feed_generated_at"`
	TotalServices int    `json:"total_services"`
	Status        string `json:"feed_status"`
}

// FeedPagination is the feed's cursor state (§3.1): next_cursor, where
// list responses say cursor. NextCursor is nil on the last page.
type FeedPagination struct {
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// FeedResult answers the feed.
type FeedResult struct {
	USP        Meta           `json:"usp"`
	Items      []FeedItem     `json:"items"`
	Pagination FeedPagination `json:"pagination"`
	FeedMeta   FeedMeta       `json:"feed_meta"`
	Messages   []Message      `json:"messages"`
}

// feedPosition is where an item stands in (modified_at, id) order, as a
// string that sorts the same way: the instant in zero-padded nanoseconds,
// then the id.
func feedPosition(at time.Time, id string) string {
	return fmt.Sprintf("%020d|%s", at.UnixNano(), id)
}

// Feed returns one page of the catalog feed.
func (b *Business) Feed(ctx context.Context, call Call, in FeedRequest) (*FeedResult, error) {
	meta, _, outcome, err := b.begin(ctx, "usp_services_feed", call)
	if err != nil {
		return nil, err
	}
	now := b.clock.Now().UTC()
	res := &FeedResult{USP: meta, Items: []FeedItem{}, Messages: []Message{},
		FeedMeta: FeedMeta{GeneratedAt: now.Format(time.RFC3339), TotalServices: len(b.catalog.entries), Status: "healthy"}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	limit := defaultFeedPage
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, fail(CodeValidation, "limit must be 1 or more.")
		}
		limit = min(*in.Limit, maxFeedPage)
	}
	digest := digestOf("feed", in.LocationID)
	after := ""
	if in.Cursor != "" {
		c, err := decodeCursor(in.Cursor, digest)
		if err != nil {
			return nil, err
		}
		after = c.After
	}
	var st catalogState
	if b.st != nil {
		var err error
		if st, _, err = store.GetJSON[catalogState](ctx, b.st, kindCatalogState, "business"); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("read catalog state: %w", err)
		}
	}
	type entry struct {
		pos string
		id  string
		e   feedEntry
	}
	var entries []entry
	for id, e := range st.Services {
		if in.LocationID == "" || e.Location == in.LocationID {
			entries = append(entries, entry{feedPosition(e.ModifiedAt, id), id, e})
		}
	}
	// A service of this config that no state records yet (no store, or
	// SyncCatalog not run) is dated at the feed's generation.
	for _, e := range b.catalog.entries {
		id := serviceID(e.loc.Slug, e.unit.Type)
		if _, ok := st.Services[id]; !ok && (in.LocationID == "" || e.loc.Slug == in.LocationID) {
			entries = append(entries, entry{feedPosition(now, id), id, feedEntry{Digest: "-", Location: e.loc.Slug, ModifiedAt: now}})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.pos, b.pos) })
	last := ""
	for _, en := range entries {
		if en.pos <= after {
			continue
		}
		if len(res.Items) == limit {
			res.Pagination.HasMore = true
			break
		}
		item := FeedItem{State: "updated", ModifiedAt: en.e.ModifiedAt.UTC().Format(time.RFC3339), Data: map[string]string{"id": en.id}}
		if s, ok := b.catalog.get(en.id); ok && en.e.Digest != "" {
			item.Data = s
		} else {
			item.State = "deleted"
		}
		res.Items = append(res.Items, item)
		last = en.pos
	}
	if res.Pagination.HasMore {
		next := encodeCursor(cursor{Query: digest, After: last})
		res.Pagination.NextCursor = &next
	}
	return res, nil
}
