package office

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/direct"
	"frontdesk/reservation"
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
	for name, w := range map[string]*world{"running": w, "restarted": newWorldOn(t, w.cfg, w.st)} {
		_, err := w.start(ctx, web, stayArgs())
		if r, ok := errors.AsType[*direct.Error](err); !ok || r.Code != "switched_off" {
			t.Errorf("%s: start at a switched-off location = %v", name, err)
		}
		if _, err := w.start(ctx, web, stayArgs("property", "oldtown", "roomtype", "double")); err != nil {
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
	err := w.svc.SaveGroupSettings(ctx, "olga", reservation.GroupSettings{EmailHourly: 0, EmailDaily: 1001, CancelDaily: 5, Pending: 8,
		Closures: ParseClosures("2026-12-25 Christmas\nnot-a-date")})
	var p reservation.FormProblems
	if !errors.As(err, &p) || len(p) != 3 || p["email_hourly"] == "" || p["email_daily"] == "" || !strings.Contains(p["closures"], "closures[1].from") {
		t.Fatalf("problems = %v", err)
	}
	if err := w.svc.SaveLocationSettings(ctx, "olga", "nowhere", reservation.LocationSettings{EmailHourly: 1, Pending: 1}); err == nil {
		t.Fatal("an unknown location was saved")
	}
	if set, err := w.svc.Settings(ctx); err != nil || len(set.Edited) != 0 {
		t.Fatalf("refused settings were stored: %+v, %v", set.Edited, err)
	}
}

// TestClosureLines: closures are worded one a line for the settings
// page and read back the same.
func TestClosureLines(t *testing.T) {
	list := []business.Closure{{From: "2026-11-30", Reason: "staff day"}, {From: "2026-12-24", To: "2026-12-26", Reason: "Christmas"}}
	text := ClosureLines(list)
	if want := "2026-11-30 staff day\n2026-12-24..2026-12-26 Christmas"; text != want {
		t.Fatalf("ClosureLines = %q, want %q", text, want)
	}
	if got := ParseClosures(text); !slices.Equal(got, list) {
		t.Fatalf("ParseClosures = %+v, want %+v", got, list)
	}
}

// TestOfficeHoursOnTheSettings: the group's office hours saved on the
// screen take several ranges a day and win over the file, with an audit
// line; a bad range is named by its day and nothing is stored; a save
// that gives no hours keeps those in force.
func TestOfficeHoursOnTheSettings(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	set, err := w.svc.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := set.Group
	if g.OfficeHours != w.cfg.Business.OfficeHours {
		t.Fatalf("hours in force = %+v, want the file's", g.OfficeHours)
	}
	bad := g
	bad.OfficeHours.Tue = "08:00-12:00, 11:00-17:00"
	if err := w.svc.SaveGroupSettings(ctx, "olga", bad); !strings.Contains(fmt.Sprint(err), "hours_tue") {
		t.Fatalf("overlapping ranges = %v", err)
	}
	lunch := g
	lunch.OfficeHours.Fri = "08:00-12:00, 13:00-17:00"
	if err := w.svc.SaveGroupSettings(ctx, "olga", lunch); err != nil {
		t.Fatal(err)
	}
	keep := g
	keep.OfficeHours = business.OfficeHours{}
	keep.Pending++
	if err := w.svc.SaveGroupSettings(ctx, "olga", keep); err != nil {
		t.Fatal(err)
	}
	set, err = w.svc.Settings(ctx)
	if err != nil || set.Group.OfficeHours.Fri != "08:00-12:00, 13:00-17:00" || set.Group.OfficeHours.Mon != w.cfg.Business.OfficeHours.Mon {
		t.Fatalf("hours after the saves = %+v, %v", set.Group.OfficeHours, err)
	}
	audit, _, err := w.svc.SettingsAudit(ctx, "", 10)
	var lines []string
	for _, a := range audit {
		lines = append(lines, a.Changes...)
	}
	all := strings.Join(lines, "\n")
	if err != nil || len(audit) != 2 || !strings.Contains(all, "fri 08:00-18:00") || !strings.Contains(all, "fri 08:00-12:00, 13:00-17:00") ||
		!strings.Contains(all, "chatPortfolioPendingLimit: 30 → 31") {
		t.Fatalf("audit = %+v, %v", audit, err)
	}
}
