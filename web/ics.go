package web

import (
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"frontdesk/reservation"
)

// stayICS is a guest's stay as an iCalendar file (RFC 5545) for their own
// calendar: one all-day event from the arrival date to the departure
// date, tentative while staff have not answered and cancelled once it
// is. page is the absolute address of the guest's own page. The file's
// stamp is the reservation's creation, so the same stay always gives
// the same bytes.
func stayICS(g reservation.GuestStay, page, businessName string) []byte {
	r := g.Reservation
	cal := ics.NewCalendar()
	cal.SetProductId("-//" + businessName + "//frontdesk//EN")
	cal.SetMethod(ics.MethodPublish)
	e := cal.AddEvent(strings.ToLower(r.Reference) + "@" + strings.ToLower(g.Location.Slug))
	e.SetDtStampTime(r.CreatedAt.UTC())
	e.SetAllDayStartAt(g.Checkin.At(0, 0, time.UTC))
	e.SetAllDayEndAt(g.Checkout.At(0, 0, time.UTC))
	e.SetSummary("Stay at " + g.Location.Name)
	e.SetLocation(g.Location.Name)
	e.SetDescription("Reference " + groupReference(r.Reference) + ". Check-in from " + g.CheckinAt + ". Questions: call " + g.Location.Phone + ". Your page: " + page)
	e.SetURL(page)
	e.SetTimeTransparency(ics.TransparencyTransparent)
	switch r.State {
	case reservation.Requested:
		e.SetStatus(ics.ObjectStatusTentative)
	case reservation.Cancelled, reservation.Declined, reservation.Moved:
		e.SetStatus(ics.ObjectStatusCancelled)
	default:
		e.SetStatus(ics.ObjectStatusConfirmed)
	}
	return []byte(cal.Serialize(ics.WithNewLine("\r\n")))
}
