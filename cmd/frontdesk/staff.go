package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"frontdesk/booking"
	"frontdesk/internal/civil"
	"frontdesk/reservation"
	"frontdesk/store"
)

const staffUsage = `Usage:
  frontdesk staff confirm|decline|cancel|complete|move REFERENCE [--by NAME] [--note TEXT] [--config F] [--data DIR | --database URL]
  frontdesk staff list [--location SLUG] [--from DATE --to DATE] [--state S[,S…]] [--config F] [--data DIR | --database URL]
`

// staffActions maps each staff command to the state it moves a
// reservation to.
var staffActions = map[string]reservation.State{
	"confirm":  reservation.Confirmed,
	"decline":  reservation.Declined,
	"cancel":   reservation.Cancelled,
	"complete": reservation.Completed,
	"move":     reservation.Moved,
}

// runStaff is `frontdesk staff`: staff decisions and the reservation list
// from the command line, on the same store as serve.
func runStaff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, staffUsage)
		return errors.New("staff: no action given")
	}
	action, args := args[0], args[1:]
	own, rest, err := staffFlags(args)
	if err != nil {
		return err
	}
	switch to, ok := staffActions[action]; {
	case ok:
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			return fmt.Errorf("staff %s: give the reservation number", action)
		}
		ref := strings.ToUpper(strings.TrimSpace(rest[0]))
		m, err := newMain("staff "+action, rest[1:], stdout, stderr)
		if err != nil {
			return err
		}
		if err := m.open(ctx, "http://"+m.Addr); err != nil {
			return err
		}
		defer m.Close()
		r, mailed, err := m.bookings.Decide(ctx, booking.Decision{Reference: ref, To: to, By: own["by"], Note: own["note"]})
		if err != nil {
			return fmt.Errorf("staff %s %s: %w", action, ref, err)
		}
		fmt.Fprintf(stdout, "%s is %s", r.Reference, r.State)
		if mailed {
			fmt.Fprint(stdout, "; the guest was mailed")
		}
		fmt.Fprintln(stdout)
		return nil
	case action == "list":
		f := store.ReservationFilter{Location: own["location"], Limit: 200}
		for _, d := range []struct{ flag, value string }{{"from", own["from"]}, {"to", own["to"]}} {
			if d.value == "" {
				continue
			}
			if _, err := civil.Parse(d.value); err != nil {
				return fmt.Errorf("staff list: --%s must be a date YYYY-MM-DD", d.flag)
			}
		}
		f.From, f.To = own["from"], own["to"]
		for _, s := range strings.Split(own["state"], ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			if !reservation.State(s).Valid() {
				return fmt.Errorf("staff list: unknown state %q", s)
			}
			f.States = append(f.States, s)
		}
		m, err := newMain("staff list", rest, stdout, stderr)
		if err != nil {
			return err
		}
		if err := m.open(ctx, "http://"+m.Addr); err != nil {
			return err
		}
		defer m.Close()
		return listReservations(ctx, m.bookings, f, stdout)
	}
	fmt.Fprint(stderr, staffUsage)
	return fmt.Errorf("staff: unknown action %q", action)
}

// listReservations prints every reservation matching f, page by page.
func listReservations(ctx context.Context, b *booking.Service, f store.ReservationFilter, out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REFERENCE\tLOCATION\tUNIT\tFROM\tTO\tSTATE\tSOURCE\tATTENTION")
	for {
		page, err := b.Reservations(ctx, f)
		if err != nil {
			return err
		}
		for _, r := range page {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Reference, r.Location, r.Unit, r.FirstSlot(), r.LastSlot(), r.State, r.Source, r.Attention)
		}
		if len(page) < f.Limit {
			break
		}
		f.After = store.ReservationCursor{FirstSlot: page[len(page)-1].FirstSlot(), Reference: page[len(page)-1].Reference}
	}
	return tw.Flush()
}

// staffFlags takes the staff command's own flags out of args and leaves
// the rest (the reservation number and the store flags) in order.
func staffFlags(args []string) (own map[string]string, rest []string, err error) {
	names := map[string]bool{"by": true, "note": true, "location": true, "from": true, "to": true, "state": true}
	own = map[string]string{}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || !names[name] {
			rest = append(rest, args[i])
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("staff: --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		own[name] = value
	}
	return own, rest, nil
}
