package main

import (
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// TestRetentionSweep: once privacy.retention_days have passed since a
// cancelled stay ended, the sweep clears its guest's contact and deletes
// older mail, while a stay still to happen keeps its guest.
func TestRetentionSweep(t *testing.T) {
	m := startMain(t, "", func(c *config.Config) { c.Privacy.RetentionDays = 30 })
	cs := connect(t, m.URL+"/mcp", "2025-11-25")
	ada := guestStay(t, m, cs, "Ada Lovelace", "ada@example.com", "+1 303 555 0199", "2026-12-30", "2027-01-02", true)
	grace := guestStay(t, m, cs, "Grace Hopper", "grace@example.com", "+1 303 555 0142", "2027-03-10", "2027-03-12", false)
	dir := m.Config.Store.DataDir
	flushMail(t, m) // the mail the sweep should find is stored before it runs

	res, err := m.guests().Retain(t.Context(), m.Config.Privacy.RetentionDays)
	if err != nil || res.Reservations != 0 || res.Records != 0 {
		t.Fatalf("retention before anything is due = %+v, %v; want nothing cleared", res, err)
	}
	m.Clock.(*clock.Fixed).Set(time.Date(2027, 2, 15, 12, 0, 0, 0, time.UTC)) // 30 days after Ada's stay ended, and more
	res, err = m.guests().Retain(t.Context(), m.Config.Privacy.RetentionDays)
	if err != nil || res.Reservations != 1 || res.Records == 0 {
		t.Fatalf("retention = %+v, %v; want Ada's reservation and the old mail cleared", res, err)
	}
	rows := storeRows(t, dir)
	if v := rows["reservation "+ada]; strings.Contains(v, "ada@example.com") || !strings.Contains(v, "(forgotten)") {
		t.Errorf("Ada's reservation after retention = %.300s", v)
	}
	if v := rows["reservation "+grace]; !strings.Contains(v, "grace@example.com") {
		t.Errorf("a stay still to happen lost its guest: %.300s", v)
	}
	for k := range rows {
		if strings.HasPrefix(k, "record devmail ") {
			t.Errorf("mail older than the retention is still kept: %s", k)
		}
	}
	var out strings.Builder
	if err := m.guests().PrintRetention(t.Context(), m.Config.Privacy.RetentionDays, &out); err != nil || !strings.Contains(out.String(), "reservations cleared=0") {
		t.Fatalf("a second pass = %q, %v; want nothing more cleared", out.String(), err)
	}
}
