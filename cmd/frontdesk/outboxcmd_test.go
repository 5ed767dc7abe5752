package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/golden"
	"frontdesk/reservation"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// TestOutboxCommands: events the referral consumer failed on at every
// offer are listed by `frontdesk outbox list` and offered again by
// `frontdesk outbox retry` to the real referral ledger of the command: a
// creation, which the ledger takes, is delivered and leaves the list; a
// decline whose refund the ORP host refuses (its sale is not on the
// host) stays, with the attempt counted; an event not set aside, or a
// bad position, is refused and changes nothing.
func TestOutboxCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := t.TempDir()
	c := config.Demo()
	c.Store.DataDir = data
	st, err := sqlite.Open(ctx, sqlitePath(c.Store))
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFixed(testNow)
	desk := reservation.NewDesk(st)
	desk.Outbox(reservation.OutboxOptions{Clock: clk})
	desk.Consume("referral", func(context.Context, reservation.StoredEvent) ([]store.Write, error) {
		return nil, errors.New("orp host unreachable by configuration")
	})
	double := reservation.Unit{Location: "riverside", Type: "double", Capacity: 2}
	for _, ref := range []string{"RIV-1", "RIV-2"} {
		if _, err := desk.Create(ctx, reservation.New{Kind: reservation.KindBooking, Reference: ref, Unit: double,
			Slots: []string{"2027-01-10", "2027-01-11"}, Source: reservation.SourceForm, By: "guest", At: testNow, Guests: 1, Total: 20000}); err != nil {
			t.Fatal(err)
		}
	}
	// RIV-2 was attributed to a partner; its decline is a refund.
	counted, _ := json.Marshal(map[string]any{"deal": "d1", "obligation": "commission", "door": "form", "total": 20000, "currency": "USD", "state": "counted", "at": testNow})
	if _, err := st.Create(ctx, store.Record{Kind: "referral.booking", Key: "RIV-2", Value: counted, UpdatedAt: testNow}); err != nil {
		t.Fatal(err)
	}
	r, err := reservation.Get(ctx, st, "RIV-2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := desk.Decide(ctx, reservation.Change{Read: r, By: "staff", At: testNow}, reservation.Declined); err != nil {
		t.Fatal(err)
	}
	// Five counted failures a minute apart set each event aside in turn.
	for range 3 * 5 {
		clk.Advance(time.Minute)
		desk.Relay(ctx)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	out, _, err := runCmdOn(t, clk, "outbox", "list", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "outbox-list.txt", []byte(out))

	out, _, err = runCmdOn(t, clk, "outbox", "retry", "referral", "1", "--data", data)
	if err != nil || out != "Event 1 was delivered to referral; it is no longer set aside.\n" {
		t.Fatalf("retry of a creation = %q, %v", out, err)
	}
	clk.Advance(time.Minute)
	_, _, err = runCmdOn(t, clk, "outbox", "retry", "referral", "3", "--data", data)
	if want := "outbox retry referral 3: the consumer failed again; the event stays set aside (6 attempts): refund booking: not_found: No sale with this id was reported."; err == nil || err.Error() != want {
		t.Fatalf("retry of a refused refund = %v, want %s", err, want)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"retry", "referral", "1"}, "outbox retry referral 1: No event is set aside for this consumer at this position."},
		{[]string{"retry", "referral", "0"}, `outbox retry: the position "0" is not a whole number from 1`},
		{[]string{"retry", "referral"}, "outbox retry: give a consumer and a position, as outbox list shows them (see frontdesk outbox retry --help)"},
		{[]string{"retry", "nobody", "2"}, "outbox retry nobody 2: No event is set aside for this consumer at this position."},
		{[]string{"purge"}, `outbox: give "list" or "retry CONSUMER POSITION"`},
	} {
		if _, _, err := runCmdOn(t, clk, append(append([]string{"outbox"}, bad.args...), "--data", data)...); err == nil || err.Error() != bad.want {
			t.Errorf("outbox %s = %v, want %s", strings.Join(bad.args, " "), err, bad.want)
		}
	}
	out, _, err = runCmdOn(t, clk, "outbox", "list", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "outbox-list-after-retry.txt", []byte(out))
}
