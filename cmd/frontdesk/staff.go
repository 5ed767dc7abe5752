package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/deadline"
	"frontdesk/reservation"
	"frontdesk/staff/office"
	"frontdesk/store"
)

// staffActions maps each staff decision command to the state it moves a
// reservation to.
var staffActions = map[string]reservation.State{
	"confirm":  reservation.Confirmed,
	"decline":  reservation.Declined,
	"cancel":   reservation.Cancelled,
	"complete": reservation.Completed,
	"move":     reservation.Moved,
}

// staffCommandDeadline bounds one staff command, the store's opening
// included.
const staffCommandDeadline = 25 * time.Second

// runStaff is `frontdesk staff`: logins, staff decisions and the
// reservation list from the command line, on the same store as serve.
func runStaff(ctx context.Context, clk clock.Clock, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		w := stdout
		if len(args) == 0 {
			w = stderr
		}
		fmt.Fprintf(w, "Usage: frontdesk staff %s\n\n%s\n\nActions:\n", commands["staff"].args, commands["staff"].about)
		for _, a := range []string{"add-user", "users", "remove-user", "reset-password", "list", "book", "confirm", "decline", "cancel", "complete", "move"} {
			fmt.Fprintf(w, "  frontdesk staff %s %s\n", a, commands["staff "+a].args)
		}
		if len(args) == 0 {
			return errors.New("staff: no action given")
		}
		return nil
	}
	action, args := args[0], args[1:]
	// A staff command waits for the store at most as long as a location
	// serves one call (25 s), so a hung database ends it with an error.
	return deadline.Run(ctx, "staff "+action, staffCommandDeadline, func(ctx context.Context) error {
		return runStaffAction(ctx, clk, action, args, stdin, stdout, stderr)
	})
}

// runStaffAction is one action of `frontdesk staff`.
func runStaffAction(ctx context.Context, clk clock.Clock, action string, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	cmd := "staff " + action
	switch to, isDecision := staffActions[action]; {
	case action == "add-user":
		return runStaffAddUser(ctx, clk, args, stdin, stdout, stderr)
	case action == "users":
		return runStaffUsers(ctx, clk, args, stdout, stderr)
	case action == "remove-user":
		return runStaffRemoveUser(ctx, clk, args, stdout, stderr)
	case action == "reset-password":
		return runStaffResetPassword(ctx, clk, args, stdin, stdout, stderr)
	case action == "list":
		return runStaffList(ctx, clk, args, stdout, stderr)
	case action == "book":
		return runStaffBook(ctx, clk, args, stdout, stderr)
	case isDecision:
		var by, note *string
		m, fs, err := newMainWith(clk, cmd, args, stdout, stderr, func(fs *flag.FlagSet) {
			by = fs.String("by", "staff", "who decides, for the audit")
			note = fs.String("note", "", "a note for the audit")
		})
		if err != nil {
			return ignoreHelp(err)
		}
		args = fs.Args()
		if len(args) != 1 {
			return fmt.Errorf("%s: give one reservation number (see frontdesk %s --help)", cmd, cmd)
		}
		ref := strings.ToUpper(strings.TrimSpace(args[0]))
		defer closing(&err, m)
		if err := m.openWithReferrals(ctx, ""); err != nil {
			return err
		}
		r, mailed, err := m.core.Decide(ctx, reservation.Decision{Reference: ref, To: to, By: *by, Note: *note})
		if err != nil {
			return staffRefusal(cmd+" "+ref, m, err)
		}
		m.relayReferrals(ctx)
		fmt.Fprintf(stdout, "%s is %s", r.Reference, r.State)
		if mailed {
			fmt.Fprint(stdout, "; the guest was mailed")
		}
		fmt.Fprintln(stdout)
		return nil
	}
	return fmt.Errorf("staff: unknown action %q (see frontdesk staff --help)", action)
}

// runStaffBook is `frontdesk staff book`: a reservation staff make for a
// guest on the phone or at the desk, through the desk like every door.
func runStaffBook(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	var b office.Booking
	m, fs, err := newMainWith(clk, "staff book", args, stdout, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&b.Location, "location", "", "the location's slug")
		fs.StringVar(&b.RoomType, "unit", "", "the room type")
		fs.StringVar(&b.Checkin, "checkin", "", "arrival, YYYY-MM-DD")
		fs.StringVar(&b.Checkout, "checkout", "", "departure, YYYY-MM-DD")
		fs.StringVar(&b.Start, "start", "", "a timed unit's start, \"YYYY-MM-DD HH:MM\" local time, instead of --checkin and --checkout")
		fs.StringVar(&b.Name, "name", "", "the guest's name")
		fs.StringVar(&b.Email, "email", "", "the guest's email")
		fs.StringVar(&b.Phone, "phone", "", "the guest's phone")
		fs.StringVar(&b.Guests, "guests", "", "how many guests (one when not given)")
		fs.StringVar(&b.Notes, "notes", "", "notes for the stay")
		fs.StringVar(&b.By, "by", "staff", "who books, for the audit")
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("staff book: unexpected argument %q (see frontdesk staff book --help)", fs.Arg(0))
	}
	if b.Start != "" && (b.Checkin != "" || b.Checkout != "") {
		return errors.New("staff book: give --start for a timed unit or --checkin and --checkout for a stay, not both")
	}
	if err := m.open(ctx, ""); err != nil {
		return err
	}
	defer closing(&err, m)
	r, err := m.office.Book(ctx, b)
	if err != nil {
		return staffRefusal("staff book", m, err)
	}
	if _, _, err := r.Stay(); err != nil { // a timed start, not nights
		fmt.Fprintf(stdout, "%s is %s: %s %s at %s\n", r.Reference, r.State, r.Location, r.Unit, strings.Replace(r.FirstSlot(), "T", " ", 1))
		return nil
	}
	fmt.Fprintf(stdout, "%s is %s: %s %s, %s to %s\n", r.Reference, r.State, r.Location, r.Unit, r.FirstSlot(), r.LastSlot())
	return nil
}

// staffRefusal words a refusal of a staff command
// (reservation.CommandRefusal), and logs the cause of a fault once.
func staffRefusal(cmd string, m *Main, err error) error {
	if refusal, ok := reservation.CommandRefusal(cmd, err); ok {
		return refusal
	}
	m.Logger.Error("staff command failed", "command", cmd, "err", err)
	return fmt.Errorf("%s: %w", cmd, err)
}

// runStaffList is `frontdesk staff list`.
func runStaffList(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	var location, from, to, states *string
	m, fs, err := newMainWith(clk, "staff list", args, stdout, stderr, func(fs *flag.FlagSet) {
		location = fs.String("location", "", "only this location's reservations")
		from = fs.String("from", "", "only stays on or after this date, YYYY-MM-DD")
		to = fs.String("to", "", "only stays before this date, YYYY-MM-DD")
		states = fs.String("state", "", "only these states, comma-separated: "+reservation.StateNames())
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("staff list: unexpected argument %q (see frontdesk staff list --help)", fs.Arg(0))
	}
	f := store.ReservationFilter{Location: *location, From: *from, To: *to, Limit: 200}
	if f.Location != "" && !slices.ContainsFunc(m.Config.Locations, func(l business.Location) bool { return l.Slug == f.Location }) {
		return fmt.Errorf("staff list: --location %q is not in the config", f.Location)
	}
	for _, d := range []struct{ flag, value string }{{"from", f.From}, {"to", f.To}} {
		if _, err := civil.Parse(d.value); d.value != "" && err != nil {
			return fmt.Errorf("staff list: --%s must be a date YYYY-MM-DD", d.flag)
		}
	}
	for _, s := range strings.Split(*states, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !reservation.State(s).Valid() {
			return fmt.Errorf("staff list: unknown state %q (one of %s)", s, reservation.StateNames())
		}
		f.States = append(f.States, s)
	}
	if err := m.open(ctx, ""); err != nil {
		return err
	}
	defer closing(&err, m)
	return reservation.PrintList(ctx, m.bookings.Reservations, f, stdout)
}
