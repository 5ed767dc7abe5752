package booking

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"frontdesk/config"
	"frontdesk/store"
)

// TestSettingsOverrideTheFile switches Riverside's chat booking off on
// the staff screen's call: the core refuses at once, a new Service on the
// same store (a restart) still refuses, the audit says who changed what,
// and locations never edited follow the file.
func TestSettingsOverrideTheFile(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	set, err := w.svc.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Edited) != 0 || !set.Locations["riverside"].BookingEnabled || set.Group.Pending != w.cfg.Limits.PortfolioPending {
		t.Fatalf("file settings = %+v", set)
	}
	off := set.Locations["riverside"]
	off.BookingEnabled = false
	off.Pending = 2
	if err := w.svc.SaveLocationSettings(ctx, "olga", "riverside", off); err != nil {
		t.Fatal(err)
	}
	for name, svc := range map[string]*Service{"running": w.svc, "restarted": newWorldOn(t, w.cfg, w.st).svc} {
		_, err := svc.Start(ctx, web, stayArgs())
		if got := refusalText(err); !strings.HasPrefix(got, sentSwitchedOff) {
			t.Errorf("%s: start at a switched-off location = %q", name, got)
		}
		if _, err := svc.Start(ctx, web, stayArgs("property", "oldtown", "roomtype", "double")); err != nil {
			t.Errorf("%s: start at an unedited location refused: %v", name, refusalText(err))
		}
	}
	audit, _, err := w.svc.SettingsAudit(ctx, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bookingEnabled: true → false", fmt.Sprintf("chatPendingLimit: %d → 2", w.cfg.Limits.LocationPending)}
	if len(audit) != 1 || audit[0].By != "olga" || audit[0].Scope != "riverside" || !slices.Equal(audit[0].Changes, want) || !audit[0].At.Equal(testNow) {
		t.Fatalf("audit = %+v", audit)
	}
}

// TestSettingsRefuseBadValues: every value outside its range or an
// invalid closure is named, and nothing is stored.
func TestSettingsRefuseBadValues(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	err := w.svc.SaveGroupSettings(ctx, "olga", GroupSettings{EmailHourly: 0, EmailDaily: 1001, CancelDaily: 5, Pending: 8,
		Closures: ParseClosures("2026-12-25 Christmas\nnot-a-date")})
	var p FormProblems
	if !errors.As(err, &p) || len(p) != 3 || p["email_hourly"] == "" || p["email_daily"] == "" || !strings.Contains(p["closures"], "closures[1].from") {
		t.Fatalf("problems = %v", err)
	}
	if err := w.svc.SaveLocationSettings(ctx, "olga", "nowhere", LocationSettings{EmailHourly: 1, Pending: 1}); err == nil {
		t.Fatal("an unknown location was saved")
	}
	if _, err := w.st.Get(ctx, kindSettings, "current"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("refused settings were stored: %v", err)
	}
}

// TestClosuresFromSettingsCloseTheOffice: a closure saved for today
// makes chat cancellation refuse as on a day off in the file.
func TestClosuresFromSettingsCloseTheOffice(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ref := w.book(stayArgs())
	set, _ := w.svc.Settings(ctx)
	g := set.Group
	g.Closures = []config.Closure{{From: "2026-11-30", Reason: "staff day"}}
	if err := w.svc.SaveGroupSettings(ctx, "olga", g); err != nil {
		t.Fatal(err)
	}
	_, err := w.svc.Cancel(ctx, web, args("reservation_number", ref, "phone_last4", "0199"))
	if got := refusalText(err); !strings.HasPrefix(got, sentCancelNotInChat[:20]) {
		t.Fatalf("cancellation on a closed day = %q", got)
	}
	if got, want := ClosureLines(g.Closures), "2026-11-30 staff day"; got != want {
		t.Fatalf("ClosureLines = %q, want %q", got, want)
	}
}

// TestPendingCeilingFromSettings: with the group's pending ceiling saved
// as 1, the second chat booking awaiting staff is refused; the file
// allows 8.
func TestPendingCeilingFromSettings(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	set, _ := w.svc.Settings(ctx)
	g := set.Group
	g.Pending = 1
	if err := w.svc.SaveGroupSettings(ctx, "olga", g); err != nil {
		t.Fatal(err)
	}
	w.book(stayArgs())
	_, err := w.svc.Start(ctx, web, stayArgs("property", "oldtown", "email", "bob@example.com"))
	if got := refusalText(err); !strings.HasPrefix(got, sentPausedForStaff[:30]) {
		t.Fatalf("second pending booking = %q", got)
	}
}
