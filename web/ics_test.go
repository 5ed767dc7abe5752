package web

import (
	"bytes"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/internal/golden"
	"frontdesk/reservation"
)

// TestStayICS: a stay's calendar file is byte-exact, with CRLF line
// ends, an all-day event over its nights and its state as the event's
// status; the same stay gives the same bytes.
func TestStayICS(t *testing.T) {
	c := config.Demo()
	l := c.Locations[0]
	in, _ := civil.Parse("2026-12-30")
	out, _ := civil.Parse("2027-01-02")
	g := reservation.GuestStay{
		Reservation: reservation.Reservation{Reference: "RIV-0CD87274D67084CA", State: reservation.Requested, CreatedAt: time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)},
		Location:    l, Checkin: in, Checkout: out, Nights: 3, CheckinAt: "3:00 PM MST on Wednesday, December 30, 2026",
	}
	got := stayICS(g, "https://book.example.com/stay/TOKEN", c.Business.Name)
	if !bytes.Equal(got, stayICS(g, "https://book.example.com/stay/TOKEN", c.Business.Name)) {
		t.Fatal("the same stay gave two files")
	}
	golden.Check(t, "stay.ics", got)
	g.Reservation.State = reservation.Cancelled
	if cancelled := stayICS(g, "https://book.example.com/stay/TOKEN", c.Business.Name); !bytes.Contains(cancelled, []byte("STATUS:CANCELLED\r\n")) {
		t.Fatalf("a cancelled stay's file:\n%s", cancelled)
	}
}
