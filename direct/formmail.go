package direct

import (
	"fmt"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/message"
	"frontdesk/reservation"
)

// FormEmails are the form's direct-send mails: the guest's
// acknowledgement and the staff notice with a link into the staff screen.
// Guest text is data on its own lines; the web path keeps names as typed
// (direct-booking.md §15 leaves its repair for separate work).
func (s *Service) FormEmails(r reservation.Reservation, l business.Location, token string, now time.Time) (guest, staff message.Email) {
	b := booked{Reservation: r}
	var g strings.Builder
	fmt.Fprintf(&g, "We received your booking request at %s.\n\n", l.Name)
	g.WriteString(s.stayLines(b, l))
	g.WriteString(s.priceText(b, l))
	fmt.Fprintf(&g, "\nNo room is held yet: staff will answer in writing within %d hours. Nothing is charged now.\n", s.cfg.Business.ConfirmHours)
	fmt.Fprintf(&g, "Your request and its answer: %s\n", s.guestPageLink(token))
	fmt.Fprintf(&g, "Questions: call %s.\n", l.Phone)
	var st strings.Builder
	fmt.Fprintf(&st, "A guest sent a booking request through the web form (source: form). It holds no room until you accept it.\n\n")
	st.WriteString(s.stayLines(b, l))
	fmt.Fprintf(&st, "Guest name: %s\n", r.Contact.Name)
	fmt.Fprintf(&st, "Guest email: %s\n", r.Contact.Email)
	fmt.Fprintf(&st, "Guest phone: %s\n", r.Contact.Phone)
	if r.Notes != "" {
		fmt.Fprintf(&st, "Guest notes:\n%s\n", r.Notes)
	}
	fmt.Fprintf(&st, "\nThe guest signed the agreement on the form. Accept or decline it (sign-in required):\n%s\n", s.staffLink(r.Reference))
	return message.Email{
			ID: "form-" + r.Reference + "-guest", From: s.from(), To: []string{r.Contact.Email},
			Subject: fmt.Sprintf("Booking request %s at %s", r.Reference, l.Name), Text: g.String(), Date: now,
		}, message.Email{
			ID: "form-" + r.Reference + "-staff", From: s.from(), To: []string{s.cfg.Mail.Staff}, ReplyTo: r.Contact.Email,
			Subject: fmt.Sprintf("Booking request %s at %s (web form)", r.Reference, l.Name), Text: st.String(), Date: now,
		}
}
