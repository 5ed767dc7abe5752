package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"frontdesk/booking"
	"frontdesk/channel"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/mail"
	"frontdesk/reservation"
	"frontdesk/store"
	"frontdesk/usp"
	"frontdesk/usp/webhook"
)

// forgotten is what a forgotten guest's reservations keep as a name, so
// staff screens and totals still add up; the desk redacts them
// (reservation.Desk.Redact).
const forgotten = "(forgotten)"

// forgetPlan is what forgetting one address changes.
type forgetPlan struct {
	redact  []reservation.Reservation // their contact cleared
	delete  []store.Record            // removed whole
	active  []string                  // references still to happen: forgetting waits for them
	waiting []string                  // USP waitlist entries still in line: forgetting waits for them too
}

// runForget removes one guest's records: their reservations keep their
// dates and totals but lose name, address, phone and notes; intents,
// receipts, mail, cancellations, lookups, kept USP answers and the keyed
// markers of the address are deleted. Nothing of another guest changes,
// and with --dry-run nothing changes at all.
func runForget(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	var email *string
	var dryRun *bool
	m, fs, err := newMainWith(clk, "forget", args, stdout, stderr, func(fs *flag.FlagSet) {
		email = fs.String("email", "", "the guest's email address")
		dryRun = fs.Bool("dry-run", false, "list what would be removed and change nothing")
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("forget: unexpected argument %q (see frontdesk forget --help)", fs.Arg(0))
	}
	if *email == "" {
		return errors.New("forget: --email is required (see frontdesk forget --help)")
	}
	if err := m.open(ctx, m.Addr); err != nil {
		return err
	}
	defer closing(&err, m)
	p, err := m.planForget(ctx, *email)
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
		fmt.Fprintf(stdout, "reservation %s: contact removed\n", r.Reference)
	}
	kinds := map[string]int{}
	for _, r := range p.delete {
		kinds[r.Kind]++
	}
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		fmt.Fprintf(stdout, "%s: %d removed\n", k, kinds[k])
	}
	if *dryRun {
		fmt.Fprintf(stdout, "dry run: %d reservations and %d records would change; nothing was changed\n", len(p.redact), len(p.delete))
		return nil
	}
	now := m.Clock.Now()
	// Each reservation is redacted by the desk in a write of its own, then
	// the records go in batches: a write that meets a change made
	// meanwhile fails, and the command can be run again.
	for _, r := range p.redact {
		if _, err := m.bookings.Desk().Redact(ctx, reservation.Change{Read: r, By: "forget", At: now}, forgotten); err != nil {
			return fmt.Errorf("forget: reservation %s: %w (what was removed before stays removed; run it again)", r.Reference, err)
		}
	}
	var deletes []store.Write
	for _, r := range p.delete {
		deletes = append(deletes, store.Write{Op: store.OpDelete, Record: store.Record{Kind: r.Kind, Key: r.Key, Version: r.Version}})
	}
	for chunk := range slices.Chunk(deletes, 500) {
		if _, err := m.store.Apply(ctx, chunk); err != nil {
			return fmt.Errorf("forget: %w (what was removed before stays removed; run it again)", err)
		}
	}
	fmt.Fprintf(stdout, "forgot %d reservations and %d records\n", len(p.redact), len(p.delete))
	return nil
}

// planForget finds every record of the address.
func (m *Main) planForget(ctx context.Context, address string) (forgetPlan, error) {
	var p forgetPlan
	e, ok := booking.ParseEmail(address)
	if !ok {
		return p, fmt.Errorf("forget: %q is not an email address", address)
	}
	now := m.Clock.Now()
	mailbox, _, err := m.bookings.MailboxKey(ctx, address, now)
	if err != nil {
		return p, err
	}
	// A string names the guest when it is their address, however typed,
	// or holds it as a word of a text, such as a mail to staff.
	inText := regexp.MustCompile(`(?i)(^|[^a-z0-9._%+-])` + regexp.QuoteMeta(strings.TrimSpace(address)) + `($|[^a-z0-9.-]|\.($|[^a-z0-9-]))`)
	matches := func(s string) bool {
		if f, ok := booking.ParseEmail(s); ok && f.Normalized == e.Normalized {
			return true
		}
		return inText.MatchString(s)
	}
	today := civil.Of(now, time.UTC)
	var refs []string
	for after := (store.ReservationCursor{}); ; {
		rows, err := m.store.ListReservations(ctx, store.ReservationFilter{After: after, Limit: 1000})
		if err != nil {
			return p, err
		}
		for _, row := range rows {
			r, err := reservation.FromRow(row)
			if err != nil {
				return p, err
			}
			if !matches(r.Contact.Email) && (mailbox == "" || r.ContactKey != mailbox) {
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
	// The channel kinds hold dates, UIDs and channel names only; they
	// are searched all the same, so a record that ever named a guest goes.
	kinds := append(booking.GuestKinds(), usp.IdempotencyKind, mail.DevKind, webhook.Kind, webhook.DeadKind)
	for _, kind := range append(kinds, channel.Kinds()...) {
		err := eachRecord(ctx, m.store, kind, "", func(r store.Record) {
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
	// A USP waitlist entry names its buyer. One that ended goes with the
	// rest; one still in line would lose the contact its offer is sent
	// for, so forgetting waits for it as for a stay to come.
	err = eachRecord(ctx, m.store, usp.WaitlistKind, "", func(r store.Record) {
		if !namesAddress(r.Value, matches) {
			return
		}
		if id, queued := usp.WaitlistQueued(r.Key, r.Value); queued {
			p.waiting = append(p.waiting, id)
			return
		}
		p.delete = append(p.delete, r)
	})
	if err != nil {
		return p, err
	}
	for _, key := range dueKeys {
		if r, err := m.store.Get(ctx, booking.NoticeDueKind, key); err == nil {
			p.delete = append(p.delete, r)
		} else if !errors.Is(err, store.ErrNotFound) {
			return p, err
		}
	}
	for _, kind := range booking.ReferenceKinds() {
		for _, ref := range refs {
			if r, err := m.store.Get(ctx, kind, ref); err == nil {
				p.delete = append(p.delete, r)
			} else if !errors.Is(err, store.ErrNotFound) {
				return p, err
			}
		}
	}
	if mailbox != "" {
		for _, kind := range booking.MailboxKinds() {
			if err := eachRecord(ctx, m.store, kind, mailbox, func(r store.Record) { p.delete = append(p.delete, r) }); err != nil {
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
