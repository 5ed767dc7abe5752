package privacy

import (
	"context"
	"fmt"
	"io"
	"time"

	"frontdesk/forget"
	"frontdesk/internal/civil"
	"frontdesk/reservation"
	"frontdesk/store"
)

// RetentionResult counts what one retention pass cleared.
type RetentionResult struct{ Reservations, Records int }

// Retain clears what a retention of days no longer keeps: the contact
// of reservations that ended (or were decided) that long ago, and the
// records of the kinds registered forget.RetentionDays last written
// before then. A reservation still to happen, or undecided, is never
// touched; every write is conditional, so a change made meanwhile is
// left for the next pass. With days 0 it does nothing.
func (g *Guests) Retain(ctx context.Context, days int) (RetentionResult, error) {
	var res RetentionResult
	if days == 0 {
		return res, nil
	}
	now := g.Clock.Now()
	cutoff := now.AddDate(0, 0, -days)
	before := civil.Of(cutoff, time.UTC).String()
	var ended []reservation.Reservation
	for after := (store.ReservationCursor{}); ; {
		rows, err := g.Store.ListReservations(ctx, store.ReservationFilter{To: before, After: after, Limit: 1000})
		if err != nil {
			return res, err
		}
		for _, row := range rows {
			r, err := reservation.FromRow(row)
			if err != nil {
				return res, err
			}
			if r.LastSlot() >= before || !r.State.Terminal() || r.Contact.Name == Forgotten {
				continue
			}
			ended = append(ended, r)
		}
		if len(rows) < 1000 {
			break
		}
		after = rows[len(rows)-1].Cursor()
	}
	for _, r := range ended {
		// Each alone: one that changed since it was read waits for the
		// next pass.
		if _, err := g.Desk.Redact(ctx, reservation.Change{Read: r, By: "retention", At: now}, Forgotten); err != nil {
			g.Logger.WarnContext(ctx, "retention redaction skipped", "err", err)
			continue
		}
		res.Reservations++
	}
	// Blocks imported from channels keep no guest data; those ended
	// before the cutoff go with their holds.
	if g.Purge != nil {
		purged, err := g.Purge(ctx, before)
		res.Records += purged
		if err != nil {
			g.Logger.WarnContext(ctx, "retention of channel blocks skipped", "err", err)
		}
	}
	var writes []store.Write
	for _, k := range g.Kinds {
		if k.Lasts != forget.RetentionDays {
			continue
		}
		err := eachRecord(ctx, g.Store, k.Name, "", func(r store.Record) {
			if r.UpdatedAt.Before(cutoff) {
				writes = append(writes, store.Write{Op: store.OpDelete, Record: store.Record{Kind: r.Kind, Key: r.Key, Version: r.Version}})
				res.Records++
			}
		})
		if err != nil {
			return res, err
		}
	}
	for _, w := range writes {
		// One write at a time: a record that changed since it was read
		// fails alone and waits for the next pass.
		if _, err := g.Store.Apply(ctx, []store.Write{w}); err != nil {
			g.Logger.WarnContext(ctx, "retention write skipped", "kind", w.Record.Kind, "err", err)
		}
	}
	return res, nil
}

// PrintRetention runs one retention pass of days and prints its counts.
func (g *Guests) PrintRetention(ctx context.Context, days int, out io.Writer) error {
	res, err := g.Retain(ctx, days)
	if days > 0 {
		fmt.Fprintf(out, "sweep: retention %d days: reservations cleared=%d records deleted=%d\n", days, res.Reservations, res.Records)
	}
	return err
}
