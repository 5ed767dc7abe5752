package direct

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/store"
)

// workedLimits sets the chat ceilings of direct-booking.md's worked
// deployment (8 codes an hour and 20 a day across the group, 3 an hour per
// location), so the tests below keep counting against them whatever the
// demo business raises them to.
func workedLimits(c *config.Config) {
	c.Limits.PortfolioEmailHourly, c.Limits.PortfolioEmailDaily, c.Limits.LocationEmailHourly = 8, 20, 3
}

// admitted counts the sends a budget admitted in the last 24 hours.
func admitted(t testing.TB, w *world, key string) int {
	n, err := w.svc.admitted(context.Background(), w.clock.Now(), budget{key: key, daily: 1})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMailboxLimits: three codes an hour and six a day per mailbox,
// resends included, with the windows rolling.
func TestMailboxLimits(t *testing.T) {
	w := newWorld(t, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
	ctx := context.Background()
	start := func(day int) error {
		_, err := w.start(ctx, web, stayArgs("checkin", fmt.Sprintf("2027-01-%02d", day), "checkout", fmt.Sprintf("2027-01-%02d", day+1)))
		return err
	}
	res, err := w.start(ctx, web, stayArgs()) // 1
	if err != nil {
		t.Fatal(refusalText(err))
	}
	w.clock.Advance(61 * time.Second)
	if _, err := w.start(ctx, web, args("booking_id", res.BookingID)); err != nil { // 2: a resend counts
		t.Fatal(refusalText(err))
	}
	if err := start(3); err != nil { // 3
		t.Fatal(refusalText(err))
	}
	err = start(5) // 4: over the hour
	if !strings.HasPrefix(refusalText(err), "This stay cannot be booked in chat.") {
		t.Fatalf("fourth code in an hour = %q", refusalText(err))
	}
	w.clock.Advance(time.Hour)
	for day := 7; day <= 11; day += 2 { // 4, 5, 6 in the day
		if err := start(day); err != nil {
			t.Fatalf("day %d: %s", day, refusalText(err))
		}
	}
	w.clock.Advance(time.Hour)
	if err := start(13); !strings.HasPrefix(refusalText(err), "This stay cannot be booked in chat.") {
		t.Fatalf("seventh code in a day = %q", refusalText(err))
	}
	w.clock.Advance(23 * time.Hour) // the first codes leave the 24-hour window
	if err := start(15); err != nil {
		t.Fatalf("after the window = %s", refusalText(err))
	}
	if got, want := admitted(t, w, "book-group"), len(w.messages())-0; got > want {
		t.Fatalf("admissions %d exceed mails %d", got, want)
	}
}

// TestGroupLimits: the group's hourly and daily ceilings, checked before
// any mailbox, with admissions equal to the mails sent.
func TestGroupLimits(t *testing.T) {
	w := newWorld(t, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
	ctx := context.Background()
	sent := 0
	try := func(i int) string {
		email := fmt.Sprintf("g%d@example.com", i)
		_, err := w.start(ctx, web, stayArgs("email", email))
		if err == nil {
			sent++
		}
		return refusalText(err)
	}
	for i := range 8 {
		if got := try(i); got != "" {
			t.Fatalf("start %d below the ceiling: %q", i, got)
		}
	}
	if got := try(8); !strings.HasPrefix(got, "Chat booking is briefly paused. The booking form is available") {
		t.Fatalf("ninth in an hour = %q", got)
	}
	for hour := 1; sent < 20; hour++ {
		w.clock.Advance(time.Hour)
		for i := 0; i < 8 && sent < 20; i++ {
			if got := try(100*hour + i); got != "" {
				t.Fatalf("hour %d: %q", hour, got)
			}
		}
	}
	w.clock.Advance(time.Hour)
	if got := try(9999); !strings.HasPrefix(got, "Chat booking is briefly paused.") {
		t.Fatalf("21st in a day = %q", got)
	}
	if got := admitted(t, w, "book-group"); got != sent || got != len(w.messages()) {
		t.Fatalf("admissions %d, sent %d, mails %d", got, sent, len(w.messages()))
	}
}

// TestLocationHourlyAtTheSendBoundary: the location's third code in an
// hour is the last; the refused one is refunded from the group budget.
func TestLocationHourlyAtTheSendBoundary(t *testing.T) {
	w := newWorld(t, workedLimits)
	ctx := context.Background()
	for i := range 3 {
		if _, err := w.start(ctx, web, stayArgs("email", fmt.Sprintf("l%d@example.com", i))); err != nil {
			t.Fatal(refusalText(err))
		}
	}
	_, err := w.start(ctx, web, stayArgs("email", "l9@example.com"))
	if !strings.HasPrefix(refusalText(err), "Chat booking is briefly paused.") {
		t.Fatalf("fourth at the location = %q", refusalText(err))
	}
	if got := admitted(t, w, "book-group"); got != 3 {
		t.Fatalf("group admissions = %d, want 3 (the refused one refunded)", got)
	}
	if _, err := w.start(ctx, web, stayArgs("property", "oldtown", "roomtype", "single", "email", "l9@example.com")); err != nil {
		t.Fatalf("another location = %s", refusalText(err))
	}
}

// TestEditingALimitKeepsHistory: a service with a new ceiling counts the
// sends admitted before the edit.
func TestEditingALimitKeepsHistory(t *testing.T) {
	w := newWorld(t, workedLimits, func(c *config.Config) { c.Limits.LocationEmailHourly = 100 })
	ctx := context.Background()
	for i := range 5 {
		if _, err := w.start(ctx, web, stayArgs("email", fmt.Sprintf("e%d@example.com", i))); err != nil {
			t.Fatal(refusalText(err))
		}
	}
	cfg := w.cfg
	cfg.Limits.PortfolioEmailHourly = 6
	edited := newWorldOn(t, cfg, w.st)
	edited.clock = w.clock
	edited.svc.clock = w.clock
	if _, err := edited.start(ctx, web, stayArgs("email", "e5@example.com")); err != nil {
		t.Fatal(refusalText(err))
	}
	_, err := edited.start(ctx, web, stayArgs("email", "e6@example.com"))
	if !strings.HasPrefix(refusalText(err), "Chat booking is briefly paused.") {
		t.Fatalf("seventh after lowering the ceiling to 6 = %q", refusalText(err))
	}
}

// TestFullBudgetFoundByItsCounter: the budget a refused send names is the
// one whose counter was full, wherever its charge stood in the batch, so
// putting the batch together in another order cannot change the refusal.
func TestFullBudgetFoundByItsCounter(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	now := w.clock.Now()
	group := budget{key: "test-group", hourly: 5, refusal: "paused"}
	mailbox := budget{key: "test-mailbox", hourly: 1, daily: 3, refusal: "contact"}
	if _, err := w.svc.admit(ctx, now, mailbox); err != nil {
		t.Fatalf("first admission: %v", err)
	}
	charges, adm := w.svc.chargeWrites(now, group, mailbox)
	other := store.Write{Op: store.OpCreate, Record: record(kindNotice, "test-order", "x", 0, now)}
	reversed := slices.Clone(charges)
	slices.Reverse(reversed)
	tests := []struct {
		name   string
		writes []store.Write
	}{
		{"charges after a record", append([]store.Write{other}, charges...)},
		{"charges before a record", append(slices.Clone(charges), other)},
		{"charges in reverse", append(reversed, other)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.st.Apply(ctx, tt.writes)
			var full *errBudget
			if !errors.As(adm.full(err), &full) {
				t.Fatalf("full(%v) names no budget", err)
			}
			if got, want := full.b.key, mailbox.key; got != want {
				t.Fatalf("full budget = %q, want %q", got, want)
			}
		})
	}
}
