package orp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"frontdesk/store"
)

// InboxPage is one page of a party's inbox (§4.2): oldest first, at most
// 100 messages, and the cursor to pass as after next time.
type InboxPage struct {
	Messages []json.RawMessage `json:"messages"`
	Next     string            `json:"next"`
}

const inboxPage = 100

// kindInboxSeq keys, per recipient, the last inbox position handed out.
const kindInboxSeq = "orp.inboxseq"

// inboxSeq is a recipient's inbox counter.
type inboxSeq struct {
	Last uint64 `json:"last"`
}

// delivery is a message waiting for its place in an inbox.
type delivery struct {
	party string
	msg   []byte
}

// deliver queues msg for a party's inbox; commit gives it its position in
// the same Apply as the change it reports.
func (o *op) deliver(party string, msg []byte) {
	o.outbox = append(o.outbox, delivery{party: party, msg: msg})
}

// seqPrefix starts every position key. It sorts after the digits that
// began the time-stamped keys of earlier versions, so a cursor from
// before still finds every later message.
const seqPrefix = "s"

// stampInbox turns the queued deliveries into writes: each recipient's
// counter moves by a conditional write in the same Apply as its messages.
// Two messages for one recipient can therefore never commit out of order:
// position n+1 is handed out only after the Apply that took n committed,
// so a reader paging with next sees every message exactly once, oldest
// first, however senders interleave.
func (o *op) stampInbox(ctx context.Context) error {
	counters := map[string]uint64{}
	var order []string
	records := map[string]store.Record{}
	for _, d := range o.outbox {
		opaque := o.h.opaqueOf(d.party)
		if opaque == "" {
			// A party of another origin: this host was started with the
			// wrong one. Nothing is applied, so nothing is marked sent.
			return fmt.Errorf("deliver: party is not on this host's origin %s", o.h.opts.Origin)
		}
		if _, ok := counters[opaque]; !ok {
			var seq inboxSeq
			r, err := o.h.get(ctx, kindInboxSeq, opaque, &seq)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("read inbox counter: %w", err)
			}
			counters[opaque], records[opaque] = seq.Last, r
			order = append(order, opaque)
		}
		counters[opaque]++
		key := fmt.Sprintf("%s/%s%020d", opaque, seqPrefix, counters[opaque])
		o.writes = append(o.writes, create(kindInbox, key, json.RawMessage(d.msg), o.now))
	}
	for _, opaque := range order {
		seq := inboxSeq{Last: counters[opaque]}
		if r := records[opaque]; r.Version > 0 {
			o.writes = append(o.writes, swap(r, seq, o.now))
		} else {
			o.writes = append(o.writes, create(kindInboxSeq, opaque, seq, o.now))
		}
	}
	o.outbox = nil
	return nil
}

// commit stamps the queued deliveries and applies every write of the op
// in one transaction, then runs what waits for the commit.
func (o *op) commit(ctx context.Context, writes []store.Write) error {
	if err := o.stampInbox(ctx); err != nil {
		return err
	}
	if _, err := o.h.store.Apply(ctx, append(writes, o.writes...)); err != nil {
		return err
	}
	for _, f := range o.after {
		f()
	}
	return nil
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
