package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"frontdesk/internal/clock"
	"frontdesk/internal/deadline"
	"frontdesk/reservation"
)

// runOutbox is `frontdesk outbox`: the reservation outbox's events set
// aside after their consumer failed on them at every offer, listed and
// offered again, on the same store as serve.
func runOutbox(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "list" && args[0] != "retry" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(stdout, "Usage: frontdesk outbox %s\n\n%s\n", commands["outbox"].args, commands["outbox"].about)
			return nil
		}
		fmt.Fprintf(stderr, "Usage: frontdesk outbox %s\n", commands["outbox"].args)
		return errors.New("outbox: give \"list\" or \"retry CONSUMER POSITION\"")
	}
	// As a staff command, it waits for the store at most 25 s.
	return deadline.Run(ctx, "outbox "+args[0], staffCommandDeadline, func(ctx context.Context) error {
		if args[0] == "list" {
			return runOutboxList(ctx, clk, args[1:], stdout, stderr)
		}
		return runOutboxRetry(ctx, clk, args[1:], stdout, stderr)
	})
}

func runOutboxList(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	m, err := newMain(clk, "outbox list", args, stdout, stderr)
	if err != nil {
		return ignoreHelp(err)
	}
	if err := m.open(ctx, ""); err != nil {
		return err
	}
	defer closing(&err, m)
	aside, err := m.bookings.Desk().SetAsideEvents(ctx)
	if err != nil {
		return fmt.Errorf("outbox list: %w", err)
	}
	return reservation.PrintSetAside(stdout, aside)
}

func runOutboxRetry(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	m, fs, err := newMainWith(clk, "outbox retry", args, stdout, stderr, nil)
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() != 2 {
		return errors.New("outbox retry: give a consumer and a position, as outbox list shows them (see frontdesk outbox retry --help)")
	}
	consumer := fs.Arg(0)
	pos, perr := strconv.ParseInt(fs.Arg(1), 10, 64)
	if perr != nil || pos < 1 {
		return fmt.Errorf("outbox retry: the position %q is not a whole number from 1", fs.Arg(1))
	}
	defer closing(&err, m)
	// The referral ledger is the outbox's consumer: it is wired as in
	// serve, on the ORP host's recorded origin.
	if err := m.openWithReferrals(ctx, ""); err != nil {
		return err
	}
	cmd := fmt.Sprintf("outbox retry %s %d", consumer, pos)
	err = m.bookings.Desk().RetrySetAside(ctx, consumer, pos)
	if ee, ok := errors.AsType[*reservation.EventError](err); ok {
		return fmt.Errorf("%s: the consumer failed again; the event stays set aside (%d attempts): %w", cmd, ee.Attempts, ee.Err)
	}
	if e, ok := reservation.AsError(err); ok && e.Code != reservation.CodeUnavailable && e.Code != reservation.CodeInternal {
		return fmt.Errorf("%s: %s", cmd, e.Message)
	}
	if err != nil {
		m.Logger.Error("outbox retry failed", "consumer", consumer, "position", pos, "err", err)
		return fmt.Errorf("%s: %w", cmd, err)
	}
	fmt.Fprintf(stdout, "Event %d was delivered to %s; it is no longer set aside.\n", pos, consumer)
	return nil
}
