package channel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"frontdesk/internal/civil"
	"frontdesk/message"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Conflict is a channel's block that found no unit left on some of its
// nights: the block's side and the reservations already holding those
// nights.
type Conflict struct {
	Feed     string
	Location string
	Unit     string
	UID      string   // the block's key in the channel's feed
	Nights   []string // every night of the block
	Held     []string // those it holds
	Missing  []string // those no unit was left for
	Hold     string   // the block's hold, "" when it holds nothing
	Since    string   // YYYY-MM-DD HH:MM UTC
	Mailed   bool
	Holders  []Holder // the reservations on the missing nights
	blockKey string
	version  int64
}

// Holder is a reservation holding a unit on a conflict's nights.
type Holder struct {
	Reference string
	Source    string
	Guest     string // the guest's name, for staff eyes only
	First     string // first night
	Checkout  string
}

// Conflicts lists every block in conflict now, with the reservations on
// its missing nights.
func (s *Service) Conflicts(ctx context.Context) ([]Conflict, error) {
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	var out []Conflict
	for _, f := range feeds {
		blocks, err := s.blocks(ctx, f.Name)
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			if len(b.Conflict) == 0 {
				continue
			}
			c := Conflict{Feed: f.Name, Location: f.Location, Unit: f.Unit, UID: b.UID, Nights: b.Nights, Held: b.Held,
				Missing: b.Conflict, Hold: b.Hold, Since: b.ConflictSince.UTC().Format("2006-01-02 15:04 UTC"), Mailed: b.Mailed,
				blockKey: b.key, version: b.version}
			if c.Holders, err = s.holders(ctx, f, b); err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// holders are the reservations of the feed's unit type, other than the
// block's own hold, that hold units on the block's missing nights.
func (s *Service) holders(ctx context.Context, f Feed, b storedBlock) ([]Holder, error) {
	last, err := civil.Parse(b.Conflict[len(b.Conflict)-1])
	if err != nil {
		return nil, err
	}
	var out []Holder
	rows, err := reservation.List(ctx, s.st, store.ReservationFilter{
		Location: f.Location, From: b.Conflict[0], To: last.AddDays(1).String(),
		States: []string{string(reservation.OnHold), string(reservation.Reserved), string(reservation.Confirmed)}, Limit: 1000,
	})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.Unit != f.Unit || r.Reference == b.Hold || !r.Held || !slices.ContainsFunc(r.Slots, func(n string) bool { return slices.Contains(b.Conflict, n) }) {
			continue
		}
		h := Holder{Reference: r.Reference, Source: string(r.Source), Guest: r.Contact.Name, First: r.FirstSlot()}
		if _, out, err := r.Stay(); err == nil {
			h.Checkout = out.String()
		}
		out = append(out, h)
	}
	return out, nil
}

// mailConflicts tells staff of each conflict not told yet, naming both
// sides, and marks it told once the mail left. A mail that fails is sent
// again at the next pass.
func (s *Service) mailConflicts(ctx context.Context) error {
	if s.o.Mail == nil || s.o.Staff == "" {
		return nil
	}
	cs, err := s.Conflicts(ctx)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	var errs []error
	for _, c := range cs {
		if c.Mailed {
			continue
		}
		e := message.Email{
			ID:      fmt.Sprintf("channel-conflict-%s-%s", strings.ReplaceAll(c.blockKey, "/", "-"), strings.NewReplacer(" ", "", ":", "", "-", "").Replace(c.Since)),
			From:    s.o.From,
			To:      []string{s.o.Staff},
			Subject: fmt.Sprintf("Double booking: %s blocked %s, already held here", c.Feed, c.Missing[0]),
			Text:    conflictText(c),
			Date:    now,
		}
		if err := s.o.Mail.Send(ctx, e); err != nil {
			errs = append(errs, fmt.Errorf("mail conflict of %s: %w", c.Feed, err))
			continue
		}
		if err := s.markMailed(ctx, c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *Service) markMailed(ctx context.Context, c Conflict) error {
	b, rec, err := store.GetJSON[blockRecord](ctx, s.st, KindBlock, c.blockKey)
	if err != nil {
		return err
	}
	if !slices.Equal(b.Conflict, c.Missing) {
		return nil // the conflict changed meanwhile: it is told anew
	}
	b.Mailed = true
	rec.Value = encode(b)
	rec.UpdatedAt = s.clock.Now()
	_, err = s.st.Swap(ctx, rec)
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	return err
}

// conflictText is the staff mail of one conflict.
func conflictText(c Conflict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The channel feed %q (%s, %s) lists a block that frontdesk could not hold on every night: no %s was left.\n\n", c.Feed, c.Location, c.Unit, c.Unit)
	fmt.Fprintf(&b, "The channel's side: block %s, nights %s to %s.\n", c.UID, c.Nights[0], c.Nights[len(c.Nights)-1])
	fmt.Fprintf(&b, "Nights with no unit left: %s.\n", strings.Join(c.Missing, ", "))
	if c.Hold != "" {
		fmt.Fprintf(&b, "The other nights of the block are held under %s.\n", c.Hold)
	}
	b.WriteString("\nfrontdesk's side, holding those nights:\n")
	if len(c.Holders) == 0 {
		b.WriteString("- (none found any more: the next fetch holds the block if a unit is free)\n")
	}
	for _, h := range c.Holders {
		who := h.Guest
		if who == "" {
			who = "no name"
		}
		fmt.Fprintf(&b, "- %s (%s, %s), from %s to %s\n", h.Reference, h.Source, who, h.First, h.Checkout)
	}
	b.WriteString("\nOne of the two must move: cancel or move the booking here, or close the dates on the channel and refund its guest. Nothing was dropped or overwritten. The staff screen lists the conflict under Channels until it is resolved.\n")
	return b.String()
}
