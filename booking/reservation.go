package booking

import (
	"context"
	"errors"
	"slices"
	"time"

	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/store"
)

// Reservation states. A chat reservation starts pending, becomes reserved
// once the index holds its room, and staff move it on from there.
const (
	resPending   = "pending"
	resReserved  = "reserved"
	resConfirmed = "confirmed"
	resCompleted = "completed"
	resCancelled = "cancelled"
	resMoved     = "moved"
)

// reservation is the full record a location keeps.
type reservation struct {
	Ref                 string    `json:"ref"`
	Token               string    `json:"token"` // staff action token
	Source              string    `json:"source"`
	AgreementAtCheckin  bool      `json:"agreementAtCheckin"`
	Location            string    `json:"location"`
	Name                string    `json:"name"`
	Email               string    `json:"email"`
	Mailbox             string    `json:"mailbox"` // keyed normalized email
	Phone               string    `json:"phone"`
	PhoneDigits         string    `json:"phone_digits"`
	RoomType            string    `json:"roomtype"`
	Checkin             string    `json:"checkin"`
	Checkout            string    `json:"checkout"`
	Nights              int       `json:"nights"`
	Guests              int       `json:"guests"`
	QuotedTotal         int64     `json:"quotedTotal"`
	ChatPrice           int64     `json:"chatPrice"`
	RateBasis           string    `json:"rateBasis"`
	Notes               string    `json:"notes"`
	DeskNotes           string    `json:"deskNotes"`
	UncheckedProperties []string  `json:"uncheckedProperties"`
	RoomTaken           bool      `json:"roomTaken"`
	State               string    `json:"state"`
	CreatedAt           time.Time `json:"createdAt"`
	IntentID            string    `json:"intent_id"`
	Notices             []string  `json:"notices,omitempty"`
	CancelledAt         time.Time `json:"cancelled_at,omitzero"`
	Released            bool      `json:"released,omitempty"` // the held units went back to the index
}

// holdsRoom reports whether the row counts for contact rules: it holds a
// room now or held one for a stay that happened.
func (r reservation) holdsRoom() bool {
	return r.RoomTaken && (r.State == resReserved || r.State == resConfirmed || r.State == resCompleted)
}

// refs is a list of references kept under one key.
type refs struct {
	Refs []string `json:"refs"`
}

// pendingFull reports whether the group or the location already has as
// many reservations awaiting staff as it may.
func (s *Service) pendingFull(ctx context.Context, slug string) (bool, error) {
	group, _, err := getJSON[refs](ctx, s.st, kindPending, "group")
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	local, _, err := getJSON[refs](ctx, s.st, kindPending, slug)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	return len(group.Refs) >= s.cfg.Limits.PortfolioPending || len(local.Refs) >= s.cfg.Limits.LocationPending, nil
}

// releasePending gives back ref's pending slots.
func (s *Service) releasePending(ctx context.Context, now time.Time, slug, ref string) {
	for _, key := range []string{"group", slug} {
		_, err := update(ctx, s.st, kindPending, key, now, func(v *refs) error {
			i := slices.Index(v.Refs, ref)
			if i < 0 {
				return errStop
			}
			v.Refs = slices.Delete(v.Refs, i, i+1)
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			s.log.WarnContext(ctx, "release pending slot", "err", err)
		}
	}
}

// stay is a reservation's interval of nights.
type stay struct{ in, out civil.Date }

// contactVerdict applies the proved mailbox's rules (§8 steps 6 and 7) to
// its reservations. It returns the reservation to reuse, or refused true.
func (s *Service) contactVerdict(rows []reservation, l config.Location, d *intentData) (reuse *reservation, refused bool) {
	in, out := d.dates()
	var held []stay
	pending := 0
	for i, r := range rows {
		if !r.holdsRoom() {
			continue // cancelled rows and requests that hold no room do not count
		}
		if r.State == resReserved && r.Location == l.Slug && r.RoomType == d.RoomType && r.Checkin == d.Checkin && r.Checkout == d.Checkout {
			return &rows[i], false
		}
		if r.State == resReserved {
			pending++
		}
		rin, _ := civil.Parse(r.Checkin)
		rout, _ := civil.Parse(r.Checkout)
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

// rowsOf reads the reservations of a mailbox's index.
func (s *Service) rowsOf(ctx context.Context, index []string) ([]reservation, error) {
	var rows []reservation
	for _, ref := range index {
		r, _, err := getJSON[reservation](ctx, s.st, kindReservation, ref)
		if errors.Is(err, store.ErrNotFound) {
			continue // registered but gone: abandoned work
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}
