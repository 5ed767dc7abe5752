// Package privacy forgets one guest on request and clears what
// privacy.retention_days no longer keeps, over the record kinds their
// owners register with package forget.
package privacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"frontdesk/forget"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Forgotten is what a forgotten guest's reservations keep as a name, so
// staff screens and totals still add up; the desk redacts them
// (reservation.Desk.Redact).
const Forgotten = "(forgotten)"

// Guests forgets guests from an opened store.
type Guests struct {
	Store store.Store
	Desk  *reservation.Desk
	Kinds []forget.Kind // every stored kind's registration
	// Normalize reports whether s is an email address, and its
	// normalized form.
	Normalize func(s string) (normalized string, ok bool)
	// Mailboxes are the keyed mailboxes the store may group an address
	// under, one for each live version of the secret; none for none.
	Mailboxes func(ctx context.Context, address string, now time.Time) ([]string, error)
	// Purge deletes the blocks imported from channels that ended before
	// the date; nil for none.
	Purge  func(ctx context.Context, before string) (int, error)
	Clock  clock.Clock
	Logger *slog.Logger
}

// plan is what forgetting one address changes.
type plan struct {
	redact  []reservation.Reservation // their contact cleared
	delete  []store.Record            // removed whole
	active  []string                  // references still to happen: forgetting waits for them
	waiting []string                  // waitlist entries still in line: forgetting waits for them too
}

// Forget removes one guest's records: their reservations keep their
// dates and totals but lose name, address, phone and notes; the records
// of the kinds registered to go with the guest are deleted. Nothing of
// another guest changes, and with dryRun nothing changes at all. It
// writes what it does to out.
func (g *Guests) Forget(ctx context.Context, email string, dryRun bool, out io.Writer) error {
	p, err := g.plan(ctx, email)
	if err != nil {
		return err
	}
	if len(p.active) > 0 {
		return fmt.Errorf("forget: the guest has reservations still to happen (%s): cancel or complete them first, so no stay loses its contact; nothing was changed", strings.Join(p.active, ", "))
	}
	if len(p.waiting) > 0 {
		return fmt.Errorf("forget: the guest is still on a USP waitlist (%s): the platform takes them off it (usp_waitlist_leave), or the offer ends, first; nothing was changed", strings.Join(p.waiting, ", "))
	}
	for _, r := range p.redact {
		fmt.Fprintf(out, "reservation %s: contact removed\n", r.Reference)
	}
	kinds := map[string]int{}
	for _, r := range p.delete {
		kinds[r.Kind]++
	}
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		fmt.Fprintf(out, "%s: %d removed\n", k, kinds[k])
	}
	if dryRun {
		fmt.Fprintf(out, "dry run: %d reservations and %d records would change; nothing was changed\n", len(p.redact), len(p.delete))
		return nil
	}
	now := g.Clock.Now()
	// Each reservation is redacted by the desk in a write of its own, then
	// the records go in batches: a write that meets a change made
	// meanwhile fails, and the command can be run again.
	for _, r := range p.redact {
		if _, err := g.Desk.Redact(ctx, reservation.Change{Read: r, By: "forget", At: now}, Forgotten); err != nil {
			return fmt.Errorf("forget: reservation %s: %w (what was removed before stays removed; run it again)", r.Reference, err)
		}
	}
	var deletes []store.Write
	for _, r := range p.delete {
		deletes = append(deletes, store.Write{Op: store.OpDelete, Record: store.Record{Kind: r.Kind, Key: r.Key, Version: r.Version}})
	}
	for chunk := range slices.Chunk(deletes, 500) {
		if _, err := g.Store.Apply(ctx, chunk); err != nil {
			return fmt.Errorf("forget: %w (what was removed before stays removed; run it again)", err)
		}
	}
	fmt.Fprintf(out, "forgot %d reservations and %d records\n", len(p.redact), len(p.delete))
	return nil
}

// plan finds every record of the address.
func (g *Guests) plan(ctx context.Context, address string) (plan, error) {
	var p plan
	normalized, ok := g.Normalize(address)
	if !ok {
		return p, fmt.Errorf("forget: %q is not an email address", address)
	}
	now := g.Clock.Now()
	mailboxes, err := g.Mailboxes(ctx, address, now)
	if err != nil {
		return p, err
	}
	// A string names the guest when it is their address, however typed,
	// or holds it as a word of a text, such as a mail to staff.
	inText := regexp.MustCompile(`(?i)(^|[^a-z0-9._%+-])` + regexp.QuoteMeta(strings.TrimSpace(address)) + `($|[^a-z0-9.-]|\.($|[^a-z0-9-]))`)
	matches := func(s string) bool {
		if n, ok := g.Normalize(s); ok && n == normalized {
			return true
		}
		return inText.MatchString(s)
	}
	today := civil.Of(now, time.UTC)
	var refs []string
	for after := (store.ReservationCursor{}); ; {
		rows, err := g.Store.ListReservations(ctx, store.ReservationFilter{After: after, Limit: 1000})
		if err != nil {
			return p, err
		}
		for _, row := range rows {
			r, err := reservation.FromRow(row)
			if err != nil {
				return p, err
			}
			if !matches(r.Contact.Email) && (r.ContactKey == "" || !slices.Contains(mailboxes, r.ContactKey)) {
				continue
			}
			if !r.State.Terminal() && r.LastSlot() >= today.String() {
				p.active = append(p.active, r.Reference)
			}
			p.redact = append(p.redact, r)
			refs = append(refs, r.Reference)
		}
		if len(rows) < 1000 {
			break
		}
		after = rows[len(rows)-1].Cursor()
	}
	var dueKeys []string
	// Kinds that hold no more than dates, UIDs and channel names are
	// searched all the same when registered so, so a record that ever
	// named a guest goes.
	for _, kind := range forget.Names(g.Kinds, forget.Search) {
		err := eachRecord(ctx, g.Store, kind, "", func(r store.Record) {
			if !namesAddress(r.Value, matches) {
				return
			}
			p.delete = append(p.delete, r)
			var n struct{ Due string }
			if json.Unmarshal(r.Value, &n) == nil && n.Due != "" {
				dueKeys = append(dueKeys, n.Due)
			}
		})
		if err != nil {
			return p, err
		}
	}
	// A waitlist entry names its buyer. One that ended goes with the
	// rest; one still in line would lose the contact its offer is sent
	// for, so forgetting waits for it as for a stay to come.
	for _, k := range g.Kinds {
		if k.Forget != forget.SearchWaiting {
			continue
		}
		err = eachRecord(ctx, g.Store, k.Name, "", func(r store.Record) {
			if !namesAddress(r.Value, matches) {
				return
			}
			if id, queued := k.Waiting(r.Key, r.Value); queued {
				p.waiting = append(p.waiting, id)
				return
			}
			p.delete = append(p.delete, r)
		})
		if err != nil {
			return p, err
		}
	}
	for _, kind := range forget.Names(g.Kinds, forget.ByDue) {
		for _, key := range dueKeys {
			if r, err := g.Store.Get(ctx, kind, key); err == nil {
				p.delete = append(p.delete, r)
			} else if !errors.Is(err, store.ErrNotFound) {
				return p, err
			}
		}
	}
	for _, kind := range forget.Names(g.Kinds, forget.ByReference) {
		for _, ref := range refs {
			if r, err := g.Store.Get(ctx, kind, ref); err == nil {
				p.delete = append(p.delete, r)
			} else if !errors.Is(err, store.ErrNotFound) {
				return p, err
			}
		}
	}
	for _, mailbox := range mailboxes {
		for _, kind := range forget.Names(g.Kinds, forget.ByMailbox) {
			if err := eachRecord(ctx, g.Store, kind, mailbox, func(r store.Record) { p.delete = append(p.delete, r) }); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

// eachRecord calls fn with every record of kind whose key starts with
// prefix.
func eachRecord(ctx context.Context, st store.Records, kind, prefix string, fn func(store.Record)) error {
	for after := ""; ; {
		page, err := st.List(ctx, kind, prefix, after, 1000)
		if err != nil {
			return err
		}
		for _, r := range page {
			fn(r)
		}
		if len(page) < 1000 {
			return nil
		}
		after = page[len(page)-1].Key
	}
}

// namesAddress reports whether any string in the JSON value, or any
// address in it such as a mail's To list, is the address match accepts.
func namesAddress(value []byte, match func(string) bool) bool {
	var v any
	if json.Unmarshal(value, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return match(x)
		case []any:
			return slices.ContainsFunc(x, walk)
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
