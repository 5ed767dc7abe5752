package direct

import (
	"context"
	"strings"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/reservation"
)

// TestClosuresFromSettingsCloseTheOffice: a closure saved for today
// makes chat cancellation refuse as on a day off in the file.
func TestClosuresFromSettingsCloseTheOffice(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	ref := w.book(stayArgs())
	set, _ := w.svc.Settings(ctx)
	g := set.Group
	g.Closures = []business.Closure{{From: "2026-11-30", Reason: "staff day"}}
	if err := saveGroup(ctx, w.svc, g); err != nil {
		t.Fatal(err)
	}
	_, err := w.cancel(ctx, web, args("reservation_number", ref, "phone_last4", "0199"))
	if got := refusalText(err); !strings.HasPrefix(got, sentCancelNotInChat[:20]) {
		t.Fatalf("cancellation on a closed day = %q", got)
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
	if err := saveGroup(ctx, w.svc, g); err != nil {
		t.Fatal(err)
	}
	w.book(stayArgs())
	_, err := w.start(ctx, web, stayArgs("property", "oldtown", "email", "bob@example.com"))
	if got := refusalText(err); !strings.HasPrefix(got, sentPausedForStaff[:30]) {
		t.Fatalf("second pending booking = %q", got)
	}
}

// saveGroup stores the group's settings as the staff screen saves them.
func saveGroup(ctx context.Context, svc *Service, g reservation.GroupSettings) error {
	return svc.SaveSettings(ctx, "olga", reservation.ScopeGroup, func(e *reservation.EditedSettings, _ reservation.Settings) []string {
		e.Group = &g
		return []string{"edited"}
	})
}

// TestOfficeHoursInForce: the office is open by the hours in force, not
// the file's, so a lunch break saved on the settings page closes it.
func TestOfficeHoursInForce(t *testing.T) {
	cfg := bookingConfig(config.Demo())
	set := fileSettings(cfg)
	set.Group.OfficeHours.Fri = "08:00-12:00, 13:00-17:00"
	l := cfg.Locations[0]
	at := func(hhmm string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", "2026-12-04 "+hhmm, l.Zone()) // a Friday
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for hhmm, want := range map[string]bool{"11:30": true, "12:30": false, "13:30": true, "17:30": false} {
		if got := officeOpen(set, cfg, at(hhmm), l); got != want {
			t.Errorf("open at %s on a Friday with a lunch break = %v, want %v", hhmm, got, want)
		}
	}
}
