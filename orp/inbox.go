package orp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// InboxPage is one page of a party's inbox (§4.2): oldest first, at most
// 100 messages, and the cursor to pass as after next time.
type InboxPage struct {
	Messages []json.RawMessage `json:"messages"`
	Next     string            `json:"next"`
}

const inboxPage = 100

// deliver queues msg for a party's inbox in the same Apply as the change
// it reports. Keys sort by time, then by order within this message.
func (o *op) deliver(party string, msg []byte) {
	opaque := o.h.opaqueOf(party)
	if opaque == "" {
		return
	}
	// The host-wide sequence orders messages written at the same instant;
	// the random tail keeps instances from colliding.
	seq := o.h.inboxSeq.Add(1) % 1000000
	key := fmt.Sprintf("%s/%019d%06d%s", opaque, o.now.UnixNano(), seq, o.h.randomString(4, alphabet))
	o.writes = append(o.writes, create(kindInbox, key, json.RawMessage(msg), o.now))
}

// Inbox returns the caller's messages after the cursor.
func (h *Host) Inbox(ctx context.Context, token, after string) (InboxPage, error) {
	p, err := h.Authenticate(ctx, token)
	if err != nil {
		return InboxPage{}, err
	}
	if len(after) > 64 || strings.ContainsAny(after, "/") {
		return InboxPage{}, invalid("/after", "after is not a cursor this host gave out.")
	}
	prefix := p.Opaque + "/"
	from := ""
	if after != "" {
		from = prefix + after
	}
	recs, err := h.store.List(ctx, kindInbox, prefix, from, inboxPage)
	if err != nil {
		return InboxPage{}, fmt.Errorf("inbox: %w", err)
	}
	page := InboxPage{Messages: []json.RawMessage{}, Next: after}
	for _, r := range recs {
		page.Messages = append(page.Messages, json.RawMessage(r.Value))
		page.Next = strings.TrimPrefix(r.Key, prefix)
	}
	return page, nil
}
