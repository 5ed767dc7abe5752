package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"frontdesk/booking"
	"frontdesk/internal/civil"
	"frontdesk/mail"
	"frontdesk/reservation"
	"frontdesk/store"
)

// retentionEvery is how often serve applies privacy.retention_days.
const retentionEvery = 6 * time.Hour

// retentionResult counts what one retention pass cleared.
type retentionResult struct{ Reservations, Records int }

// retentionJob is the retention pass as serve runs it.
func (m *Main) retentionJob() job {
	return job{name: "retention sweep", every: retentionEvery, run: func(ctx context.Context) error {
		_, err := m.applyRetention(ctx)
		return err
	}}
}

// applyRetention clears what privacy.retention_days no longer keeps:
// the contact of reservations that ended (or were decided) that long
// ago, and mail, intents and receipts last written before then. A
// reservation still to happen, or undecided, is never touched; every
// write is conditional, so a change made meanwhile is left for the next
// pass. With retention_days 0 it does nothing.
func (m *Main) applyRetention(ctx context.Context) (retentionResult, error) {
	var res retentionResult
	days := m.Config.Privacy.RetentionDays
	if days == 0 {
		return res, nil
	}
	now := m.Clock.Now()
	cutoff := now.AddDate(0, 0, -days)
	before := civil.Of(cutoff, time.UTC).String()
	var ended []reservation.Reservation
	for after := (store.ReservationCursor{}); ; {
		rows, err := m.store.ListReservations(ctx, store.ReservationFilter{To: before, After: after, Limit: 1000})
		if err != nil {
			return res, err
		}
		for _, row := range rows {
			r, err := reservation.FromRow(row)
			if err != nil {
				return res, err
			}
			if r.LastSlot() >= before || !r.State.Terminal() || r.Contact.Name == forgotten {
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
		if _, err := m.bookings.Desk().Redact(ctx, reservation.Change{Read: r, By: "retention", At: now}, forgotten); err != nil {
			m.Logger.WarnContext(ctx, "retention redaction skipped", "err", err)
			continue
		}
		res.Reservations++
	}
	// Blocks imported from channels keep no guest data; those ended
	// before the cutoff go with their holds.
	purged, err := m.channels.Purge(ctx, before)
	res.Records += purged
	if err != nil {
		m.Logger.WarnContext(ctx, "retention of channel blocks skipped", "err", err)
	}
	var writes []store.Write
	for _, kind := range append(booking.GuestKinds(), mail.DevKind) {
		err := eachRecord(ctx, m.store, kind, "", func(r store.Record) {
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
		if _, err := m.store.Apply(ctx, []store.Write{w}); err != nil {
			m.Logger.WarnContext(ctx, "retention write skipped", "kind", w.Record.Kind, "err", err)
		}
	}
	return res, nil
}

// printRetention runs one retention pass and prints its counts.
func (m *Main) printRetention(ctx context.Context, out io.Writer) error {
	res, err := m.applyRetention(ctx)
	if m.Config.Privacy.RetentionDays > 0 {
		fmt.Fprintf(out, "sweep: retention %d days: reservations cleared=%d records deleted=%d\n", m.Config.Privacy.RetentionDays, res.Reservations, res.Records)
	}
	return err
}
