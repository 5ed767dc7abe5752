package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"frontdesk/channel"
	"frontdesk/direct"
	"frontdesk/forget"
	"frontdesk/internal/clock"
	"frontdesk/mail"
	"frontdesk/orp"
	"frontdesk/payment"
	"frontdesk/privacy"
	"frontdesk/referral"
	"frontdesk/reservation"
	"frontdesk/staff"
	"frontdesk/usp"
	"frontdesk/usp/credential"
	"frontdesk/usp/keyset"
	"frontdesk/usp/pop"
	"frontdesk/usp/webhook"
)

// recordKinds are the registrations of every kind the packages serve
// wires store.
func recordKinds() []forget.Kind {
	return slices.Concat(direct.RecordKinds(), reservation.RecordKinds(), usp.RecordKinds(), webhook.RecordKinds(),
		pop.RecordKinds(), credential.RecordKinds(), keyset.RecordKinds(), mail.RecordKinds(), channel.RecordKinds(),
		staff.RecordKinds(), orp.RecordKinds(), referral.RecordKinds(), payment.RecordKinds())
}

// guests forgets guests from the opened store.
func (m *Main) guests() *privacy.Guests {
	g := &privacy.Guests{
		Store: m.store, Desk: m.bookings.Desk(), Kinds: recordKinds(), Clock: m.Clock, Logger: m.Logger,
		Normalize: direct.NormalizedEmail, Mailboxes: m.bookings.MailboxKeys,
	}
	if m.channels != nil {
		g.Purge = m.channels.Purge
	}
	return g
}

// runForget removes one guest's records (privacy.Guests.Forget); with
// --dry-run nothing changes at all.
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
	return m.guests().Forget(ctx, *email, *dryRun, stdout)
}

// retentionEvery is how often serve applies privacy.retention_days.
const retentionEvery = 6 * time.Hour

// retentionJob is the retention pass as serve runs it.
func (m *Main) retentionJob() job {
	return job{name: "retention sweep", every: retentionEvery, run: func(ctx context.Context) error {
		_, err := m.guests().Retain(ctx, m.Config.Privacy.RetentionDays)
		return err
	}}
}
