package usp

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"frontdesk/referral"
	"frontdesk/reservation"
	"frontdesk/store"
	"frontdesk/usp/webhook"
)

// The waitlist extension (§11.1): a platform's buyer queues for a full
// slot, or for any slot of a service within preferred windows; when a
// place frees, the first eligible entry in line (waitlist_match.go) is
// offered it, held for OfferTTL, and accepts (the hold becomes a booking
// in one write), declines or lets it expire, and the next eligible entry
// is offered it. Entries are records of the store, one per buyer and slot
// (or open entry), keyed by service, slot ("" for an open entry) and a
// count of the service's entries, so that a service's line reads in order
// of joining; their changes queue their webhooks (waitlist.spot_offered,
// converted, expired, position_changed) in the same write.
const (
	CapabilityWaitlist Capability = "dev.usp-protocol.services.waitlist"
	// CodeEntryNotFound is an entry id that names no entry of the caller
	// (§9.4.3: 404).
	CodeEntryNotFound Code = "entry_not_found"

	kindWaitlist = "usp-waitlist"
	entryPrefix  = "wl_"
	// OfferTTL is how long an offered place is held for the entry.
	OfferTTL = 15 * time.Minute
	// MaxWaitlist bounds the queue of one slot, and the open entries of
	// one service; a join beyond it is waitlist_full.
	MaxWaitlist = 20
)

// Waitlist statuses (§11.1.2).
const (
	WaitWaiting  = "waiting"
	WaitOffered  = "offered"
	WaitAccepted = "accepted"
	WaitExpired  = "expired"
	WaitDeclined = "declined"
	WaitRemoved  = "removed"
)

// PreferredSlot is a time window the buyer would take.
type PreferredSlot struct {
	StartDate string `json:"start_date,omitempty"`
	EndDate   string `json:"end_date,omitempty"`
	TimeOfDay string `json:"time_of_day,omitempty"`
}

// OfferedSlot is the slot an entry is offered.
type OfferedSlot struct {
	SlotID string `json:"slot_id"`
	Start  string `json:"start"`
	End    string `json:"end"`
}

// WaitlistEntry is an entry as platforms see it (waitlist.json).
type WaitlistEntry struct {
	ID             string          `json:"id"`
	ServiceID      string          `json:"service_id"`
	Buyer          Buyer           `json:"buyer"`
	PreferredSlots []PreferredSlot `json:"preferred_slots,omitempty"`
	Status         string          `json:"status"`
	Position       int             `json:"position"`
	OfferedSlot    *OfferedSlot    `json:"offered_slot,omitempty"`
	OfferExpiresAt string          `json:"offer_expires_at,omitempty"`
	CreatedAt      string          `json:"created_at"`
	Revision       string          `json:"revision"`
}

// WaitlistResult answers join, get, leave and decline.
type WaitlistResult struct {
	USP      Meta           `json:"usp"`
	Entry    *WaitlistEntry `json:"entry,omitempty"`
	Messages []Message      `json:"messages"`
}

// Created reports whether the result is an entry in line (REST answers
// 201, the one success the specification gives a join, for a re-join
// too, whose messages[] say the entry was already there).
func (r *WaitlistResult) Created() bool { return r.Entry != nil && r.Entry.Status == WaitWaiting }

// WaitlistAcceptResult answers accept: the entry and the booking it
// became.
type WaitlistAcceptResult struct {
	USP      Meta           `json:"usp"`
	Entry    *WaitlistEntry `json:"entry,omitempty"`
	Booking  *Booking       `json:"booking,omitempty"`
	Messages []Message      `json:"messages"`
}

// WaitlistListResult answers list.
type WaitlistListResult struct {
	USP        Meta            `json:"usp"`
	Entries    []WaitlistEntry `json:"entries"`
	Pagination struct {
		NextCursor string `json:"next_cursor,omitempty"`
		Total      *int   `json:"total,omitempty"` // known on the last page
	} `json:"pagination"`
	Messages []Message `json:"messages"`
}

// JoinRequest is usp_waitlist_join / POST /waitlist.
type JoinRequest struct {
	ServiceID      string          `json:"service_id"`
	SlotID         string          `json:"slot_id,omitempty"`
	Buyer          *Buyer          `json:"buyer"`
	PreferredSlots []PreferredSlot `json:"preferred_slots,omitempty"`
}

// WaitlistListRequest is usp_waitlist_list / POST /waitlist/list.
type WaitlistListRequest struct {
	ServiceID  string `json:"service_id,omitempty"`
	Status     string `json:"status,omitempty"`
	Pagination struct {
		Limit  *int    `json:"limit"`
		Cursor *string `json:"cursor"`
	} `json:"pagination"`
}

// AcceptRequest is usp_waitlist_accept / POST /waitlist/{id}/accept.
type AcceptRequest struct {
	HoldID string `json:"hold_id,omitempty"`
}

// waitEntry is an entry as stored.
type waitEntry struct {
	Platform     string          `json:"platform"`
	ServiceID    string          `json:"service_id"`
	SlotID       string          `json:"slot_id"` // "" for an open entry
	Buyer        Buyer           `json:"buyer"`
	Preferred    []PreferredSlot `json:"preferred_slots,omitempty"`
	Status       string          `json:"status"`
	HoldRef      string          `json:"hold_ref,omitempty"` // the reservation holding the offered place
	OfferedSlot  string          `json:"offered_slot_id,omitempty"`
	OfferExpires time.Time       `json:"offer_expires,omitzero"`
	CreatedAt    time.Time       `json:"created_at"`
	BookingID    string          `json:"booking_id,omitempty"`
}

func (e waitEntry) queued() bool { return e.Status == WaitWaiting || e.Status == WaitOffered }

// offered is the slot of the entry's offer: the one it names, or for an
// open entry the one it was offered (entries offered before open entries
// existed stored none).
func (e waitEntry) offered() string {
	if e.OfferedSlot != "" {
		return e.OfferedSlot
	}
	return e.SlotID
}

// slotQueue is the key prefix of one slot's entries, or with slotID ""
// of a service's open entries.
func slotQueue(serviceID, slotID string) string { return serviceID + "|" + slotID + "|" }

// entryID is the public id of the entry stored under key.
func entryID(key string) string {
	return entryPrefix + base64.RawURLEncoding.EncodeToString([]byte(key))
}

// entryKey reads an entry id back into its key; ok is false for an id
// this business never gave.
func entryKey(id string) (string, bool) {
	raw, ok := strings.CutPrefix(id, entryPrefix)
	if !ok {
		return "", false
	}
	key, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil || strings.Count(string(key), "|") != 3 {
		return "", false
	}
	return string(key), true
}

func decodeEntry(rec store.Record) (waitEntry, error) {
	var e waitEntry
	if err := json.Unmarshal(rec.Value, &e); err != nil {
		return e, fmt.Errorf("decode waitlist entry %s: %w", rec.Key, err)
	}
	return e, nil
}

// queue reads a service's entries, of every slot and open, in order of
// joining: by the count in their key, then by key. The count is of the
// service's entries before them; entries from before open entries
// counted their slot's only, which still orders them among the entries
// they compete with (compete), all of their slot or joined later.
func (b *Business) queue(ctx context.Context, serviceID string) ([]store.Record, error) {
	var out []store.Record
	for after := ""; ; {
		page, err := b.st.List(ctx, kindWaitlist, serviceID+"|", after, 100)
		if err != nil {
			return nil, fmt.Errorf("read waitlist: %w", err)
		}
		out = append(out, page...)
		if len(page) < 100 {
			break
		}
		after = page[len(page)-1].Key
	}
	seq := func(rec store.Record) string { return strings.Split(rec.Key, "|")[2] }
	slices.SortStableFunc(out, func(a, c store.Record) int { return cmp.Or(cmp.Compare(seq(a), seq(c)), cmp.Compare(a.Key, c.Key)) })
	return out, nil
}

// position is 1 and the number of queued entries ahead of entry e, stored
// under key, in queue that compete with it for a place.
func (b *Business) position(s Service, queue []store.Record, key string, e waitEntry) int {
	n := 1
	for _, rec := range queue {
		if rec.Key == key {
			break
		}
		if other, err := decodeEntry(rec); err == nil && other.queued() && b.compete(s, other, e) {
			n++
		}
	}
	return n
}

// entryView renders a stored entry with its position in queue.
func (b *Business) entryView(key string, version int64, e waitEntry, queue []store.Record) *WaitlistEntry {
	s, _ := b.catalog.get(e.ServiceID)
	v := &WaitlistEntry{ID: entryID(key), ServiceID: e.ServiceID, Buyer: e.Buyer, PreferredSlots: e.Preferred, Status: e.Status,
		Position: b.position(s, queue, key, e), CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339), Revision: "v" + strconv.FormatInt(version, 10)}
	if e.Status == WaitOffered {
		if w, ok := b.resolveSlot(s, e.offered()); ok {
			v.OfferedSlot = &OfferedSlot{SlotID: w.id, Start: w.start.In(s.zone).Format(time.RFC3339), End: w.end.In(s.zone).Format(time.RFC3339)}
		}
		v.OfferExpiresAt = e.OfferExpires.UTC().Format(time.RFC3339)
	}
	return v
}

// waitlistEventBody is a WaitlistEvent (webhook_event.json).
type waitlistEventBody struct {
	Event     string         `json:"event"`
	EventID   string         `json:"event_id"`
	EntryID   string         `json:"entry_id"`
	ServiceID string         `json:"service_id"`
	Timestamp string         `json:"timestamp"`
	Data      *WaitlistEntry `json:"data,omitempty"`
}

// entryEvent is the outbox write of typ for the entry v, written by the
// same Apply as the change it announces; its id names the entry and the
// version the change writes, so a retried write repeats it exactly.
func entryEvent(platform, typ string, v *WaitlistEntry, version int64, now time.Time) (store.Write, error) {
	id := fmt.Sprintf("evt_%s_%010d_%s", digestOf(v.ID), version, strings.TrimPrefix(typ, "waitlist."))
	return queueEntryEvent(id, platform, typ, v, now)
}

// queueEntryEvent is the outbox write of event id, of type typ, about the
// entry v for platform.
func queueEntryEvent(id, platform, typ string, v *WaitlistEntry, now time.Time) (store.Write, error) {
	body, err := json.Marshal(waitlistEventBody{Event: typ, EventID: id, EntryID: v.ID, ServiceID: v.ServiceID, Timestamp: now.UTC().Format(time.RFC3339), Data: v})
	if err != nil {
		return store.Write{}, err
	}
	return webhook.Queue(id, platform, v.ID, "", body, now)
}

// swapEntry is the conditional write of e over rec.
func swapEntry(rec store.Record, e waitEntry, now time.Time) (store.Write, error) {
	v, err := json.Marshal(e)
	if err != nil {
		return store.Write{}, err
	}
	return store.Write{Op: store.OpSwap, Record: store.Record{Kind: kindWaitlist, Key: rec.Key, Value: v, Version: rec.Version, UpdatedAt: now}}, nil
}

// entryChange are the writes of entry rec becoming e: its swap and its
// event typ (when not ""), with the view of e they announce. Its place in
// queue is counted by the entries ahead of it, which it does not change.
func (b *Business) entryChange(rec store.Record, e waitEntry, typ string, queue []store.Record, now time.Time) ([]store.Write, *WaitlistEntry, error) {
	w, err := swapEntry(rec, e, now)
	if err != nil {
		return nil, nil, err
	}
	view := b.entryView(rec.Key, rec.Version+1, e, queue)
	if typ == "" {
		return []store.Write{w}, view, nil
	}
	ev, err := entryEvent(e.Platform, typ, view, rec.Version+1, now)
	if err != nil {
		return nil, nil, err
	}
	return []store.Write{w, ev}, view, nil
}

// leaving are the writes of entry rec leaving the queue as e: its swap,
// its own event (typ, when not ""), and position_changed for every queued
// entry behind it that it competed with, whose place moves up.
func (b *Business) leaving(rec store.Record, e waitEntry, typ string, queue []store.Record, now time.Time) ([]store.Write, *WaitlistEntry, error) {
	writes, view, err := b.entryChange(rec, e, typ, queue, now)
	if err != nil {
		return nil, nil, err
	}
	s, _ := b.catalog.get(e.ServiceID)
	after := make([]store.Record, 0, len(queue))
	behind := false
	for _, q := range queue {
		if q.Key == rec.Key {
			q.Value = writes[0].Record.Value
		}
		after = append(after, q)
	}
	for _, q := range after {
		if q.Key == rec.Key {
			behind = true
			continue
		}
		other, err := decodeEntry(q)
		if !behind || err != nil || !other.queued() || !b.compete(s, e, other) {
			continue
		}
		// The entry itself is unchanged; its event is numbered by its
		// version and the leaver's, so each move is announced once.
		v := b.entryView(q.Key, q.Version, other, after)
		id := fmt.Sprintf("evt_%s_%010d_position_%s", digestOf(v.ID), q.Version, digestOf(rec.Key, strconv.FormatInt(rec.Version+1, 10)))
		ev, err := queueEntryEvent(id, other.Platform, "waitlist.position_changed", v, now)
		if err != nil {
			return nil, nil, err
		}
		writes = append(writes, ev)
	}
	return writes, view, nil
}

// JoinWaitlist queues the caller's buyer for a full slot (slot_id), or,
// without one, for any slot of the service that its preferred_slots take
// (any slot at all without them) (§11.1.3). A place free that the entry
// would take and nobody in line is ahead for is not joined: the outcome
// slot_available says to book it instead.
func (b *Business) JoinWaitlist(ctx context.Context, call Call, in JoinRequest) (res *WaitlistResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_waitlist_join", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	if in.ServiceID == "" {
		return nil, fail(CodeInvalidRequest, "service_id and buyer are required.")
	}
	if err := checkBuyer("buyer", in.Buyer); err != nil {
		return nil, err
	}
	if err := checkPreferred(in.PreferredSlots); err != nil {
		return nil, err
	}
	res = &WaitlistResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	s, ok := b.catalog.get(in.ServiceID)
	if !ok {
		return nil, fail(CodeValidation, "service_id %q names no service of this business.", in.ServiceID)
	}
	var named wantSlot
	if in.SlotID != "" {
		if named, ok = b.resolveSlot(s, in.SlotID); !ok {
			return nil, fail(CodeValidation, "slot_id %q is not a slot of %s.", in.SlotID, s.ID)
		}
	}
	return once(ctx, b, call, p, "usp_waitlist_join", in, func(keep keeper[WaitlistResult]) (*WaitlistResult, error) {
		now := b.clock.Now()
		e := waitEntry{Platform: p.Platform, ServiceID: s.ID, SlotID: in.SlotID, Buyer: *in.Buyer, Preferred: in.PreferredSlots, Status: WaitWaiting, CreatedAt: now}
		free, m, err := b.joinable(ctx, s, named, e, now)
		if err != nil {
			return nil, err
		}
		if m != nil {
			res.Messages = append(res.Messages, *m)
			return res, nil
		}
		queue, err := b.queue(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		queued, ahead := 0, 0
		for _, rec := range queue {
			other, err := decodeEntry(rec)
			if err != nil {
				return nil, err
			}
			if !other.queued() {
				continue
			}
			if free.id != "" && eligible(s, other, free) {
				ahead++
			}
			if other.SlotID != in.SlotID {
				continue
			}
			queued++
			if other.Platform == p.Platform && strings.EqualFold(other.Buyer.Email, in.Buyer.Email) {
				return b.rejoin(ctx, res, rec, other, in, queue, keep)
			}
		}
		if free.id != "" && ahead == 0 {
			msg := "The slot has a place free: book it instead of waiting."
			if in.SlotID == "" {
				msg = fmt.Sprintf("Slot %s, which this entry would take, has a place free: book it instead of waiting.", free.id)
			}
			res.Messages = append(res.Messages, *outcomeMsg("slot_available", msg, "recoverable"))
			return res, nil
		}
		if queued >= MaxWaitlist {
			msg := fmt.Sprintf("The waitlist of this slot is full (%d buyers).", MaxWaitlist)
			if in.SlotID == "" {
				msg = fmt.Sprintf("The waitlist of this service for any slot is full (%d buyers).", MaxWaitlist)
			}
			res.Messages = append(res.Messages, *outcomeMsg("waitlist_full", msg, "recoverable"))
			return res, nil
		}
		// The key orders the queue: the slot, then the count of entries
		// the service ever had (two joining at once tie on it, and the
		// digest orders them).
		key := slotQueue(s.ID, in.SlotID) + fmt.Sprintf("%06d", len(queue)+1) + "|" + digestOf(p.Platform, in.Buyer.Email)
		v, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		rec := store.Record{Kind: kindWaitlist, Key: key, Value: v, Version: 1, UpdatedAt: now}
		out := &WaitlistResult{USP: res.USP, Entry: b.entryView(key, 1, e, append(queue, rec)), Messages: []Message{}}
		writes := append([]store.Write{{Op: store.OpCreate, Record: rec}}, keep(out)...)
		if _, err := b.st.Apply(ctx, writes); err != nil {
			return nil, fmt.Errorf("join waitlist: %w", err)
		}
		b.log.InfoContext(ctx, "usp waitlist joined", "platform", p.Platform, "service", s.ID)
		// A place may have freed meanwhile, or the free place is for an
		// entry ahead, or the slot is full of holds about to lapse: offer
		// at once if so.
		if named.id != "" {
			b.offerSlot(ctx, s.ID, named.id)
		} else if free.id != "" {
			b.offerSlot(ctx, s.ID, free.id)
		}
		return out, nil
	})
}

// rejoin answers a buyer already in line for the slot: the entry keeps
// its place, and preferred windows or buyer details given anew replace
// the old ones in place (a conditional write: a change meanwhile makes
// the call retry). messages[] says which.
func (b *Business) rejoin(ctx context.Context, res *WaitlistResult, rec store.Record, e waitEntry, in JoinRequest, queue []store.Record, keep keeper[WaitlistResult]) (*WaitlistResult, error) {
	same := slices.EqualFunc(e.Preferred, in.PreferredSlots, func(a, b PreferredSlot) bool { return a == b }) && e.Buyer == *in.Buyer
	if same {
		res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
		res.Messages = append(res.Messages, Message{Type: "info", Code: "already_waitlisted",
			Content: "This buyer is already on this waitlist; the entry and its place in line are unchanged."})
		return res, nil
	}
	e.Preferred, e.Buyer = in.PreferredSlots, *in.Buyer
	v, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	now := b.clock.Now()
	next := store.Record{Kind: kindWaitlist, Key: rec.Key, Value: v, Version: rec.Version, UpdatedAt: now}
	for i := range queue {
		if queue[i].Key == rec.Key {
			queue[i] = store.Record{Kind: kindWaitlist, Key: rec.Key, Value: v, Version: rec.Version + 1, UpdatedAt: now}
		}
	}
	out := &WaitlistResult{USP: res.USP, Entry: b.entryView(rec.Key, rec.Version+1, e, queue), Messages: []Message{{Type: "info", Code: "waitlist_updated",
		Content: "This buyer was already on this waitlist: the entry was updated in place with the preferred slots and buyer details of this request, and keeps its place in line."}}}
	if _, err := b.st.Apply(ctx, append([]store.Write{{Op: store.OpSwap, Record: next}}, keep(out)...)); err != nil {
		return nil, fmt.Errorf("update waitlist entry: %w", err)
	}
	b.log.InfoContext(ctx, "usp waitlist entry updated", "service", e.ServiceID)
	return out, nil
}

// joinable finds the place free now that entry e would take: for a named
// slot, that slot when it has one (an outcome when the slot cannot be
// booked now), for an open entry the earliest slot its windows take.
// free.id is "" when there is none.
func (b *Business) joinable(ctx context.Context, s Service, named wantSlot, e waitEntry, now time.Time) (free wantSlot, outcome *Message, err error) {
	if named.id == "" {
		free, _, err = b.freeSlot(ctx, s, e.Preferred, now)
		return free, nil, err
	}
	if m := b.window(s, named, now); m != nil {
		return wantSlot{}, m, nil
	}
	n, err := b.remaining(ctx, s, named)
	if err != nil || n < 1 {
		return wantSlot{}, nil, err
	}
	return named, nil, nil
}

// ownEntry reads an entry of the caller's platform, settling an offer
// whose time has passed.
func (b *Business) ownEntry(ctx context.Context, p Principal, id string) (store.Record, waitEntry, error) {
	notFound := fail(CodeEntryNotFound, "%q names no waitlist entry of this platform.", id)
	key, ok := entryKey(id)
	if !ok || b.st == nil {
		return store.Record{}, waitEntry{}, notFound
	}
	rec, err := b.st.Get(ctx, kindWaitlist, key)
	if errors.Is(err, store.ErrNotFound) {
		return rec, waitEntry{}, notFound
	}
	if err != nil {
		return rec, waitEntry{}, fmt.Errorf("read waitlist entry: %w", err)
	}
	e, err := decodeEntry(rec)
	if err != nil {
		return rec, e, err
	}
	if e.Platform != p.Platform {
		return rec, e, notFound
	}
	return b.settleEntry(ctx, rec, e, b.clock.Now())
}

// settleEntry expires an offer past its time: the entry leaves the queue
// (waitlist.expired), its hold lapses by itself, and the place is offered
// to the next in line.
func (b *Business) settleEntry(ctx context.Context, rec store.Record, e waitEntry, now time.Time) (store.Record, waitEntry, error) {
	if e.Status != WaitOffered || now.Before(e.OfferExpires) {
		return rec, e, nil
	}
	queue, err := b.queue(ctx, e.ServiceID)
	if err != nil {
		return rec, e, err
	}
	e.Status = WaitExpired
	writes, _, err := b.leaving(rec, e, "waitlist.expired", queue, now)
	if err != nil {
		return rec, e, err
	}
	if _, err := b.st.Apply(ctx, writes); err != nil {
		if _, refused := errors.AsType[*store.WriteError](err); refused {
			return b.reread(ctx, rec.Key)
		}
		return rec, e, fmt.Errorf("expire offer: %w", err)
	}
	rec.Version, rec.Value = rec.Version+1, writes[0].Record.Value
	if hold, d, err := b.ownHold(ctx, Principal{Platform: e.Platform}, holdPrefix+e.HoldRef); err == nil {
		// The offer's hold ends with it; one left behind lapses at its
		// own expiry, so a failure here is logged, not answered.
		if _, _, err := b.settle(ctx, hold, d, now); err != nil {
			b.log.WarnContext(ctx, "usp waitlist offer hold", "err", err)
		}
	}
	b.offerSlot(ctx, e.ServiceID, e.offered())
	return rec, e, nil
}

// entryInQueue reads one of the caller's entries, as ownEntry does, and
// the queue of its service.
func (b *Business) entryInQueue(ctx context.Context, p Principal, id string) (store.Record, waitEntry, []store.Record, error) {
	rec, e, err := b.ownEntry(ctx, p, id)
	if err != nil {
		return rec, e, nil, err
	}
	queue, err := b.queue(ctx, e.ServiceID)
	return rec, e, queue, err
}

// reread reads an entry that changed under a write.
func (b *Business) reread(ctx context.Context, key string) (store.Record, waitEntry, error) {
	rec, err := b.st.Get(ctx, kindWaitlist, key)
	if err != nil {
		return rec, waitEntry{}, fmt.Errorf("read waitlist entry: %w", err)
	}
	e, err := decodeEntry(rec)
	return rec, e, err
}

// GetWaitlistEntry returns one of the caller's entries.
func (b *Business) GetWaitlistEntry(ctx context.Context, call Call, id string) (res *WaitlistResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_waitlist_get", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	res = &WaitlistResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	rec, e, queue, err := b.entryInQueue(ctx, p, id)
	if err != nil {
		return nil, err
	}
	res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
	return res, nil
}

// ListWaitlist lists the caller's entries, by service and status.
func (b *Business) ListWaitlist(ctx context.Context, call Call, in WaitlistListRequest) (res *WaitlistListResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_waitlist_list", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	switch in.Status {
	case "", WaitWaiting, WaitOffered, WaitAccepted, WaitExpired, WaitDeclined, WaitRemoved:
	default:
		return nil, fail(CodeValidation, "status must be one of waiting, offered, accepted, expired, declined or removed.")
	}
	limit := 50
	if in.Pagination.Limit != nil {
		if limit = *in.Pagination.Limit; limit < 1 {
			return nil, fail(CodeValidation, "pagination.limit must be 1 or more.")
		}
		limit = min(limit, 100)
	}
	res = &WaitlistListResult{USP: meta, Entries: []WaitlistEntry{}, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	digest := digestOf("waitlist", p.Platform, in.ServiceID, in.Status)
	after := ""
	if in.Pagination.Cursor != nil && *in.Pagination.Cursor != "" {
		c, err := decodeCursor(*in.Pagination.Cursor, digest)
		if err != nil {
			return nil, err
		}
		after = c.After
	}
	prefix := ""
	if in.ServiceID != "" {
		prefix = in.ServiceID + "|"
	}
	now := b.clock.Now()
	queues := map[string][]store.Record{}
	lastKey := ""
	for {
		page, err := b.st.List(ctx, kindWaitlist, prefix, after, 100)
		if err != nil {
			return nil, fmt.Errorf("list waitlist: %w", err)
		}
		for _, rec := range page {
			after = rec.Key
			e, err := decodeEntry(rec)
			if err != nil {
				return nil, err
			}
			if e.Platform != p.Platform {
				continue
			}
			if rec, e, err = b.settleEntry(ctx, rec, e, now); err != nil {
				return nil, err
			}
			if in.Status != "" && e.Status != in.Status {
				continue
			}
			if len(res.Entries) == limit {
				res.Pagination.NextCursor = encodeCursor(cursor{Query: digest, After: lastKey})
				return res, nil
			}
			if _, ok := queues[e.ServiceID]; !ok {
				if queues[e.ServiceID], err = b.queue(ctx, e.ServiceID); err != nil {
					return nil, err
				}
			}
			res.Entries = append(res.Entries, *b.entryView(rec.Key, rec.Version, e, queues[e.ServiceID]))
			lastKey = rec.Key
		}
		if len(page) < 100 {
			if in.Pagination.Cursor == nil || *in.Pagination.Cursor == "" {
				n := len(res.Entries)
				res.Pagination.Total = &n
			}
			return res, nil
		}
	}
}

// LeaveWaitlist takes the caller's entry out of the queue (removed). An
// entry offered a place gives it up, and the place goes to the next in line. Leaving an entry already out of the queue
// changes nothing.
func (b *Business) LeaveWaitlist(ctx context.Context, call Call, id string) (*WaitlistResult, error) {
	return b.endEntry(ctx, call, "usp_waitlist_leave", id, WaitRemoved, "", []string{WaitWaiting, WaitOffered})
}

// DeclineOffer declines the place offered to the caller's entry: the
// entry leaves the queue (declined), and the place is offered to the
// next eligible entry in line.
func (b *Business) DeclineOffer(ctx context.Context, call Call, id string) (*WaitlistResult, error) {
	return b.endEntry(ctx, call, "usp_waitlist_decline", id, WaitDeclined, "", []string{WaitOffered})
}

// endEntry moves an entry out of the queue to status to, from one of
// from; another status is invalid_transition, and the same one again
// answers the entry unchanged.
func (b *Business) endEntry(ctx context.Context, call Call, method, id, to, event string, from []string) (res *WaitlistResult, err error) {
	meta, p, outcome, err := b.begin(ctx, method, call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	res = &WaitlistResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	moved := false      // this call moved the entry
	var left *waitEntry // the entry as it left an offer, when it did
	err = store.Retrier{Attempts: maxAttempts}.Run(ctx, func() error {
		rec, e, queue, err := b.entryInQueue(ctx, p, id)
		if err != nil {
			return err
		}
		if e.Status == to {
			res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
			return nil
		}
		if !slices.Contains(from, e.Status) {
			res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
			res.Messages = append(res.Messages, Message{Type: "error", Code: "invalid_transition", Content: fmt.Sprintf("A %s entry cannot become %s.", e.Status, to)})
			return nil
		}
		offered := e.Status == WaitOffered
		e.Status = to
		writes, view, err := b.leaving(rec, e, event, queue, b.clock.Now())
		if err != nil {
			return err
		}
		if _, err := b.st.Apply(ctx, writes); err != nil {
			if store.LostRace(err) {
				return err
			}
			return fmt.Errorf("%s: %w", method, err)
		}
		moved, res.Entry = true, view
		if offered {
			left = &e
		}
		return nil
	})
	if _, lost := errors.AsType[*store.LostRaces](err); lost {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if err != nil {
		return nil, err
	}
	if left != nil {
		b.releaseOffer(ctx, *left)
		b.offerSlot(ctx, left.ServiceID, left.offered())
	}
	if moved && method == "usp_waitlist_leave" {
		// §11.1.3: leave answers the envelope only.
		res.Entry = nil
	}
	return res, nil
}

// releaseOffer ends the hold of an offer given up; one that already
// lapsed or converted is left as it is.
func (b *Business) releaseOffer(ctx context.Context, e waitEntry) {
	r, d, err := b.ownHold(ctx, Principal{Platform: e.Platform}, holdPrefix+e.HoldRef)
	if err != nil || d.Kind != "hold" || r.State != reservation.OnHold {
		return
	}
	d.HoldEnd = HoldReleased
	if _, err := b.end(ctx, b.desk().Release, r, d, "usp:"+e.Platform, "waitlist offer given up", b.clock.Now()); err != nil {
		b.log.WarnContext(ctx, "usp waitlist offer hold not released", "err", err)
	}
}

// AcceptOffer takes the place offered to the caller's entry: the offer's
// hold becomes the booking and the entry accepted in one write (§11.1.3).
// An offer past its time is offer_expired; an entry offered nothing is
// invalid_transition; accepting again answers the entry and its booking.
func (b *Business) AcceptOffer(ctx context.Context, call Call, id string, in AcceptRequest) (res *WaitlistAcceptResult, err error) {
	meta, p, outcome, err := b.begin(ctx, "usp_waitlist_accept", call)
	defer func() { err = b.admit(ctx, p, call, res, err) }()
	if err != nil {
		return nil, err
	}
	res = &WaitlistAcceptResult{USP: meta, Messages: []Message{}}
	if outcome != nil {
		res.Messages = append(res.Messages, *outcome)
		return res, nil
	}
	rec, e, queue, err := b.entryInQueue(ctx, p, id)
	if err != nil {
		return nil, err
	}
	switch e.Status {
	case WaitAccepted:
		res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
		if r, d, err := b.own(ctx, p, e.BookingID); err == nil {
			res.Booking = b.view(r, d)
		}
		return res, nil
	case WaitExpired:
		res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
		res.Messages = append(res.Messages, *outcomeMsg("offer_expired", "The offer's acceptance window has passed.", "recoverable"))
		return res, nil
	case WaitOffered:
	default:
		res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
		res.Messages = append(res.Messages, Message{Type: "error", Code: "invalid_transition", Content: "The entry has not been offered a place."})
		return res, nil
	}
	if in.HoldID != "" && in.HoldID != holdPrefix+e.HoldRef {
		return nil, fail(CodeValidation, "hold_id %q is not the hold of this offer.", in.HoldID)
	}
	s, _ := b.catalog.get(e.ServiceID)
	w, ok := b.resolveSlot(s, e.offered())
	if !ok {
		return nil, fmt.Errorf("accept offer: slot %s of %s no longer resolves", e.offered(), e.ServiceID)
	}
	now := b.clock.Now()
	accepted := e
	accepted.Status = WaitAccepted
	var view *WaitlistEntry
	// The entry's change and events commit in the conversion's write.
	withEntry := func(out *BookingResult) []store.Write {
		accepted.BookingID = out.Booking.ID
		writes, v, err := b.leaving(rec, accepted, "waitlist.converted", queue, now)
		if err != nil {
			panic(err) // plain structs always encode
		}
		view = v
		return writes
	}
	buyer := e.Buyer
	conv, err := b.convert(ctx, p, s, w, 1, CreateRequest{ServiceID: s.ID, SlotID: w.id, HoldID: holdPrefix + e.HoldRef, Buyer: &buyer}, &BookingResult{USP: meta, Messages: []Message{}}, withEntry)
	if err != nil {
		return nil, err
	}
	if conv.Booking == nil || view == nil {
		// The hold ended under the offer: it expired with it.
		if _, e, err = b.settleEntry(ctx, rec, e, now.Add(OfferTTL)); err != nil {
			return nil, err
		}
		res.Entry = b.entryView(rec.Key, rec.Version, e, queue)
		res.Messages = append(res.Messages, *outcomeMsg("offer_expired", "The offered place is no longer held.", "recoverable"))
		return res, nil
	}
	res.Entry, res.Booking = view, conv.Booking
	res.Messages = append(res.Messages, conv.Messages...)
	b.log.InfoContext(ctx, "usp waitlist offer accepted", "platform", p.Platform, "service", s.ID)
	return res, nil
}

// offerSlot offers a free place of one slot to the first waiting entry in
// the service's line that would take it (eligible), when no offer of the
// slot is out: the place is held for the entry's platform for
// OfferTTL and the entry offered, with waitlist.spot_offered, in one
// write. Failures are logged; the sweep tries again.
func (b *Business) offerSlot(ctx context.Context, serviceID, slotID string) {
	if _, err := b.offer(ctx, serviceID, slotID); err != nil {
		b.log.WarnContext(ctx, "usp waitlist offer not made", "service", serviceID, "err", err)
	}
}

func (b *Business) offer(ctx context.Context, serviceID, slotID string) (bool, error) {
	s, ok := b.catalog.get(serviceID)
	if !ok || b.st == nil || b.bookings == nil {
		return false, nil
	}
	w, ok := b.resolveSlot(s, slotID)
	now := b.clock.Now()
	if !ok || !w.start.After(now) {
		return false, nil
	}
	queue, err := b.queue(ctx, serviceID)
	if err != nil {
		return false, err
	}
	var first *store.Record
	var entry waitEntry
	for i := range queue {
		e, err := decodeEntry(queue[i])
		if err != nil {
			return false, err
		}
		if e.Status == WaitOffered && e.offered() == w.id {
			if now.Before(e.OfferExpires) {
				return false, nil // one offer at a time
			}
			_, _, err := b.settleEntry(ctx, queue[i], e, now)
			return false, err // settling offers the place anew
		}
		if e.Status == WaitWaiting && first == nil && eligible(s, e, w) {
			first, entry = &queue[i], e
		}
	}
	if first == nil {
		return false, nil
	}
	if free, err := b.remaining(ctx, s, w); err != nil || free < 1 {
		return false, err
	}
	offered := entry
	offered.Status, offered.OfferExpires, offered.OfferedSlot = WaitOffered, now.Add(OfferTTL), w.id
	d := detail{Kind: "hold", ServiceID: s.ID, SlotID: w.id, Spots: 1, HoldExpires: offered.OfferExpires}
	note := fmt.Sprintf("USP waitlist offer to %s until %s: not a booking yet.", entry.Platform, d.HoldExpires.In(s.zone).Format("15:04 MST"))
	also := func(r reservation.Reservation) []store.Write {
		offered.HoldRef = r.Reference
		writes, _, err := b.entryChange(*first, offered, "waitlist.spot_offered", queue, now)
		if err != nil {
			panic(err) // plain structs always encode
		}
		return writes
	}
	_, err = b.book(ctx, Principal{Platform: entry.Platform}, s, w, 1, reservation.KindHold, d, reservation.Contact{}, note, now, also, referral.Mark{})
	if errors.Is(err, reservation.ErrUnitTaken) {
		return false, nil
	}
	if _, refused := errors.AsType[*store.WriteError](err); refused {
		return false, nil // the entry changed meanwhile: the next pass sees it
	}
	if err != nil {
		return false, err
	}
	b.log.InfoContext(ctx, "usp waitlist place offered", "platform", entry.Platform, "service", s.ID)
	return true, nil
}

// OfferWaitlist runs the waitlist's pass, as serve does every minute with
// Expire: offers past their time expire, and each slot with a free place
// and someone waiting offers it to the first eligible entry in line: the
// slots entries name, and for each waiting open entry the earliest free
// slot it would take. It returns how many offers it made.
func (b *Business) OfferWaitlist(ctx context.Context) (int, error) {
	if b.st == nil {
		return 0, nil
	}
	now := b.clock.Now()
	slots := map[[2]string]bool{}
	open := map[string][]waitEntry{} // waiting open entries, by service
	after := ""
	for {
		page, err := b.st.List(ctx, kindWaitlist, "", after, 100)
		if err != nil {
			return 0, fmt.Errorf("list waitlist: %w", err)
		}
		for _, rec := range page {
			after = rec.Key
			e, err := decodeEntry(rec)
			if err != nil {
				return 0, err
			}
			if e.Status == WaitOffered && !now.Before(e.OfferExpires) {
				if _, _, err := b.settleEntry(ctx, rec, e, now); err != nil {
					return 0, err
				}
			}
			if !e.queued() {
				continue
			}
			if e.SlotID != "" {
				slots[[2]string{e.ServiceID, e.SlotID}] = true
			} else if e.Status == WaitWaiting {
				open[e.ServiceID] = append(open[e.ServiceID], e)
			}
		}
		if len(page) < 100 {
			break
		}
	}
	for id, entries := range open {
		s, ok := b.catalog.get(id)
		if !ok {
			continue
		}
		free, err := b.openSlots(ctx, s, entries, now)
		if err != nil {
			return 0, err
		}
		for _, w := range free {
			slots[[2]string{id, w.id}] = true
		}
	}
	// Slots are offered in order, so that which open entry takes which
	// place does not depend on a map's order.
	keys := slices.SortedFunc(maps.Keys(slots), func(a, c [2]string) int { return cmp.Or(cmp.Compare(a[0], c[0]), cmp.Compare(a[1], c[1])) })
	n := 0
	for _, k := range keys {
		ok, err := b.offer(ctx, k[0], k[1])
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}
