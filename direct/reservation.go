package direct

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/reservation"
	"frontdesk/store"
)

// chatDetail is what a chat reservation keeps beyond the channel-neutral
// reservation, in its Detail.
type chatDetail struct {
	AgreementAtCheckin  bool     `json:"agreementAtCheckin"`
	PhoneDigits         string   `json:"phone_digits"`
	ChatPrice           int64    `json:"chatPrice"`
	RateBasis           string   `json:"rateBasis"`
	DeskNotes           string   `json:"deskNotes"`
	UncheckedProperties []string `json:"uncheckedProperties"`
	// GroupPendingUnread says the hub's count of the group's pending
	// reservations could not be read, so only the location's own
	// ceiling bounded this one.
	GroupPendingUnread bool      `json:"groupPendingUnread,omitempty"`
	IntentID           string    `json:"intent_id"`
	CancelledAt        time.Time `json:"cancelled_at,omitzero"`
}

// booked is a reservation as direct booking reads it: the
// channel-neutral reservation, and the chat details of one that came
// through chat.
type booked struct {
	reservation.Reservation
	chat chatDetail
}

// Ref and the stay accessors read the reservation in the words of
// direct-booking.md.
func (r booked) Ref() string      { return r.Reference }
func (r booked) RoomType() string { return r.Unit }
func (r booked) Nights() int      { return len(r.Slots) }
func (r booked) Checkin() string  { return r.FirstSlot() }

// Checkout is the departure date: the day after the last night.
func (r booked) Checkout() string {
	_, out, err := r.Stay()
	if err != nil {
		return ""
	}
	return out.String()
}

// withDetail returns the reservation with its chat details encoded.
func (r booked) withDetail() reservation.Reservation {
	res := r.Reservation
	b, err := json.Marshal(r.chat)
	if err != nil {
		panic(fmt.Sprintf("booking: encode chat detail: %v", err)) // our own type always encodes
	}
	res.Detail = b
	return res
}

func fromCore(res reservation.Reservation) (booked, error) {
	r := booked{Reservation: res}
	if len(res.Detail) > 0 {
		if err := json.Unmarshal(res.Detail, &r.chat); err != nil {
			return booked{}, fmt.Errorf("decode chat detail: %w", err)
		}
	}
	return r, nil
}

// getBooked reads a reservation by reference.
func (s *Service) getBooked(ctx context.Context, ref string) (booked, error) {
	res, err := reservation.Get(ctx, s.st, ref)
	if err != nil {
		return booked{}, err
	}
	return fromCore(res)
}

// Pending-ceiling scopes: the group's and each location's places for chat
// reservations awaiting staff.
const scopeGroup = "chat/group"

func scopeLocation(slug string) string { return "chat/" + slug }

// pendingUntil is when a reservation stops counting as pending without a
// staff decision: the end of its departure day at the location.
func pendingUntil(l business.Location, checkout civil.Date) time.Time {
	return checkout.AddDays(1).At(0, 0, l.Zone())
}

// pendingCount is how many pending places the group and one location
// hold now.
type pendingCount struct{ group, local int }

// pendingCounts reads the live pending places of the group and of the
// location slug, both at once.
func (s *Service) pendingCounts(ctx context.Context, now time.Time, slug string) (pendingCount, error) {
	var c pendingCount
	var groupErr, localErr error
	var reads sync.WaitGroup
	reads.Go(func() { c.group, groupErr = reservation.Live(ctx, s.st, scopeGroup, now) })
	reads.Go(func() { c.local, localErr = reservation.Live(ctx, s.st, scopeLocation(slug), now) })
	reads.Wait()
	if err := cmp.Or(groupErr, localErr); err != nil {
		return pendingCount{}, err
	}
	return c, nil
}

// full reports whether the group or the location slug already has as
// many pending reservations as set allows.
func (c pendingCount) full(set reservation.Settings, slug string) bool {
	return c.group >= set.Group.Pending || c.local >= set.Locations[slug].Pending
}

// kindContact is the marker that serializes the contact rules of one
// proved mailbox: every reservation it makes swaps it, so two
// confirmations of one person decide one after the other.
const kindContact = "booking-contact" // key: keyed mailbox → a counter

// contactRows reads the reservations of a proved mailbox that the contact
// rules look at: those holding a room now or for a stay that happened,
// from the earliest night the continuous span can reach, and every later
// one, since a pending stay far ahead still counts. keys are the
// mailbox's keys under every live version of the secret.
func (s *Service) contactRows(ctx context.Context, keys []string, d *intentData, today civil.Date) ([]booked, error) {
	in, _ := d.dates()
	from := in.AddDays(-s.cfg.Limits.MaxStayNights - s.cfg.Limits.AdjacencyGapNights - 1)
	if today.Before(from) {
		from = today
	}
	list, err := s.heldBy(ctx, keys, from)
	if err != nil {
		return nil, err
	}
	rows := make([]booked, 0, len(list))
	for _, res := range list {
		r, err := fromCore(res)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// heldBy lists the reservations stored under any of keys that hold or
// held a room from the night from on, each once.
func (s *Service) heldBy(ctx context.Context, keys []string, from civil.Date) ([]reservation.Reservation, error) {
	var all []reservation.Reservation
	seen := map[string]bool{}
	for _, key := range keys {
		list, err := reservation.List(ctx, s.st, store.ReservationFilter{
			ContactKey: key, From: from.String(), Limit: 1000,
			States: []string{string(reservation.Reserved), string(reservation.Confirmed), string(reservation.Completed)},
		})
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			if !seen[r.Reference] {
				seen[r.Reference] = true
				all = append(all, r)
			}
		}
	}
	return all, nil
}

// mailboxKeys are the keys a proved intent's mailbox may be stored
// under, the newest version's first: the address's key under every live
// version, and the one the intent was started with.
func (s *Service) mailboxKeys(ctx context.Context, now time.Time, in intent) ([]string, error) {
	if in.Contact == nil || in.Contact.Email == "" {
		return []string{in.Mailbox}, nil
	}
	keys, err := s.keyedAll(ctx, now, "mailbox", in.Contact.Email)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(keys, in.Mailbox) {
		keys = append(keys, in.Mailbox)
	}
	return keys, nil
}

// stay is a reservation's interval of nights.
type stay struct{ in, out civil.Date }

// contactVerdict applies the proved mailbox's rules (§8 steps 6 and 7) to
// its reservations. It returns the reservation to reuse, or refused true.
func (s *Service) contactVerdict(rows []booked, l business.Location, d *intentData, today civil.Date) (reuse *booked, refused bool) {
	in, out := d.dates()
	var held []stay
	pending := 0
	for i, r := range rows {
		switch r.State {
		case reservation.Reserved, reservation.Confirmed, reservation.Completed:
		default:
			continue // cancelled rows and requests that hold no room do not count
		}
		if r.State == reservation.Reserved && r.Location == l.Slug && r.Unit == d.RoomType && r.Checkin() == d.Checkin && r.Checkout() == d.Checkout {
			return &rows[i], false
		}
		rin, rout, err := r.Stay()
		if err != nil {
			continue
		}
		if r.State.Pending() && !rout.Before(today) {
			pending++ // awaiting staff, and its departure has not passed
		}
		held = append(held, stay{rin, rout})
	}
	if pending >= contactPending {
		return nil, true
	}
	for _, h := range held {
		if in.Before(h.out) && h.in.Before(out) {
			return nil, true // overlap
		}
	}
	return nil, s.connectedSpan(held, stay{in, out}) > s.cfg.Limits.MaxStayNights
}

// connectedSpan is the length in nights of the outer span that the
// requested stay joins: stays whose gap is at most the adjacency gap are
// connected, repeatedly, and gaps count toward the span.
func (s *Service) connectedSpan(held []stay, req stay) int {
	gap := s.cfg.Limits.AdjacencyGapNights
	start, end := req.in, req.out
	joined := make([]bool, len(held))
	for changed := true; changed; {
		changed = false
		for i, h := range held {
			if joined[i] {
				continue
			}
			// h joins when it starts no more than gap nights after the span
			// ends and ends no more than gap nights before it starts.
			if end.DaysUntil(h.in) <= gap && h.out.DaysUntil(start) <= gap {
				joined[i], changed = true, true
				if h.in.Before(start) {
					start = h.in
				}
				if end.Before(h.out) {
					end = h.out
				}
			}
		}
	}
	return start.DaysUntil(end)
}
