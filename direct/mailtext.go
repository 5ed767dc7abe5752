package direct

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/message"
	"frontdesk/reservation"
)

// The emails of direct booking. Every byte is pinned by golden files.
// Guest text (names, notes) is data: it is placed on its own lines and
// never shapes the rest of a message.

func (s *Service) from() string { return s.cfg.Mail.From }

// codeEmail carries a booking code to the address the guest gave.
func (s *Service) codeEmail(in intent, l business.Location, code string, now time.Time) message.Email {
	d := in.Data
	var b strings.Builder
	fmt.Fprintf(&b, "Your verification code is %s.\n\n", code)
	fmt.Fprintf(&b, "It confirms a reservation request at %s (%s):\n", l.Name, s.cfg.Business.Name)
	fmt.Fprintf(&b, "%s, %s to %s (%s), %s, total %s including %s.\n\n",
		d.RoomType, d.Checkin, d.Checkout, NightsWord(in.Price.Nights), guestsWord(d.Guests), s.pricer.Display(in.Price.Total), s.cfg.Business.TaxLabel)
	fmt.Fprintf(&b, "The code expires at %s. No room is held until the code is confirmed.\n\n", localTime(in.Expires, l))
	fmt.Fprintf(&b, "If you did not ask for this, ignore this email: nothing will be booked.\n")
	fmt.Fprintf(&b, "Questions: call %s.\n", l.Phone)
	return message.Email{
		ID:      fmt.Sprintf("code-%s-%d", in.ID, len(in.SentAt)),
		From:    s.from(),
		To:      []string{d.Email},
		Subject: fmt.Sprintf("Your verification code for %s", l.Name),
		Text:    b.String(),
		Date:    now,
	}
}

// NightsWord counts nights: "1 night", "3 nights". A USP or staff
// booking may last one night.
func NightsWord(n int) string {
	if n == 1 {
		return "1 night"
	}
	return strconv.Itoa(n) + " nights"
}

func guestsWord(n int) string {
	if n == 1 {
		return "1 guest"
	}
	return fmt.Sprintf("%d guests", n)
}

// confirmationMessage is the contractual message of §12 for a reservation
// in the given state.
func (s *Service) confirmationMessage(state reservation.State) string {
	b := s.cfg.Business
	msg := fmt.Sprintf("Bring photo ID. The guest agreement is signed at check-in before you receive a key. Guests under %d years of age must be accompanied by a parent or legal guardian. A parent or guardian must agree in writing to accept liability for all costs and damages and provide acceptable payment.", b.MinAge)
	if state == reservation.Confirmed {
		return msg + " Staff has confirmed this reservation."
	}
	return msg + fmt.Sprintf(" Staff will confirm in writing within %d hours.", b.ConfirmHours)
}

// stayLines describe a reservation for mail: reference, place, dates with
// local check-in time, room and total.
func (s *Service) stayLines(r booked, l business.Location) string {
	var b strings.Builder
	in, _ := civil.Parse(r.Checkin())
	fmt.Fprintf(&b, "Reservation number: %s\n", r.Reference)
	fmt.Fprintf(&b, "Property: %s, %s\n", l.Name, l.Phone)
	fmt.Fprintf(&b, "Room: %s, %s\n", r.Unit, guestsWord(r.Guests))
	fmt.Fprintf(&b, "Check-in: %s, from %s\n", r.Checkin(), localTime(checkinInstant(l, in), l))
	fmt.Fprintf(&b, "Check-out: %s (%s)\n", r.Checkout(), NightsWord(r.Nights()))
	fmt.Fprintf(&b, "Total: %s including %s, paid at the property\n", s.pricer.Display(r.Total), s.cfg.Business.TaxLabel)
	return b.String()
}

// priceText is a booking's price for a guest's mail in the lines the
// guest site shows (pricing's Price), one to a line after "Price:": the
// rates (nights, weeks, or a timed slot's places), the fees, the tax,
// the total and, for a unit that takes money when booking, what is due
// now and at the property. It is "" for a booking whose total today's
// rates do not give. The form's and the staff decisions' mails carry it;
// chat's mails keep their fixed text.
func (s *Service) priceText(r booked, l business.Location) string {
	u, ok := l.Unit(r.Unit)
	if !ok || len(r.Slots) < 1 {
		return ""
	}
	pr := s.pricer.Price(u, len(r.Slots), r.Guests, r.Total)
	if len(pr.Lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Price:\n")
	for _, line := range append(pr.Lines, pr.Fees...) {
		fmt.Fprintf(&b, "- %s: %s\n", line.Label, s.pricer.Display(line.Amount))
	}
	if pr.Tax.Label != "" {
		fmt.Fprintf(&b, "- %s: %s\n", pr.Tax.Label, s.pricer.Display(pr.Tax.Amount))
	}
	fmt.Fprintf(&b, "- Total: %s\n", s.pricer.Display(pr.Total))
	if pr.TakesMoney() {
		fmt.Fprintf(&b, "- Due now: %s\n", s.pricer.Display(pr.DueNow))
		if pr.DueLater > 0 { // a price paid in full when booking leaves nothing for later
			fmt.Fprintf(&b, "- Due at the property: %s\n", s.pricer.Display(pr.DueLater))
		}
	}
	return b.String()
}

// reservationEmail tells the guest the room is held.
func (s *Service) reservationEmail(r booked, l business.Location, now time.Time) message.Email {
	var b strings.Builder
	fmt.Fprintf(&b, "Your room at %s is reserved.\n\n", l.Name)
	b.WriteString(s.stayLines(r, l))
	fmt.Fprintf(&b, "\n%s\n\n", s.confirmationMessage(r.State))
	fmt.Fprintf(&b, "To look this reservation up or cancel it, give an assistant the reservation number and the last four digits of your phone number, or call %s.\n", l.Phone)
	fmt.Fprintf(&b, "Cancellation policy: %s\n", s.pricer.URL(s.cfg.Business.PolicyURL))
	return message.Email{
		ID: noticeID(r.Reference, "reserved", "guest"), From: s.from(), To: []string{r.Contact.Email},
		Subject: fmt.Sprintf("Reservation %s at %s", r.Reference, l.Name), Text: b.String(), Date: now,
	}
}

// ownerNotice tells staff about a new chat reservation. It carries only
// this reservation: no other guest's reference or match hint, because a
// Reply-To answer quotes it back to the guest.
func (s *Service) ownerNotice(r booked, l business.Location, now time.Time) message.Email {
	var b strings.Builder
	fmt.Fprintf(&b, "A guest booked through an assistant (source: chat). Confirm it in writing within %d hours.\n\n", s.cfg.Business.ConfirmHours)
	b.WriteString(s.stayLines(r, l))
	fmt.Fprintf(&b, "Guest name: %s\n", MailName(r.Contact.Name))
	fmt.Fprintf(&b, "Guest email: %s\n", r.Contact.Email)
	fmt.Fprintf(&b, "Guest phone: %s\n", r.Contact.Phone)
	if r.Notes != "" {
		fmt.Fprintf(&b, "Guest notes:\n%s\n", r.Notes)
	}
	fmt.Fprintf(&b, "\nThe guest agreement and photo ID are taken at check-in. No payment was taken.\n")
	fmt.Fprintf(&b, "Confirm, decline or cancel it on the staff screen (sign-in required):\n%s\n", s.staffLink(r.Reference))
	return message.Email{
		ID: noticeID(r.Reference, "reserved", "staff"), From: s.from(), To: []string{s.cfg.Mail.Staff}, ReplyTo: r.Contact.Email,
		Subject: fmt.Sprintf("New chat reservation %s at %s", r.Reference, l.Name), Text: b.String(), Date: now,
	}
}

// cancelCodeEmail goes to the stored reservation address only.
func (s *Service) cancelCodeEmail(c cancellation, r booked, l business.Location, code string, now time.Time) message.Email {
	var b strings.Builder
	fmt.Fprintf(&b, "Your cancellation code is %s.\n\n", code)
	fmt.Fprintf(&b, "It cancels reservation %s at %s, %s to %s.\n", r.Reference, l.Name, r.Checkin(), r.Checkout())
	fmt.Fprintf(&b, "The code expires at %s. The reservation stays in place until the code is confirmed.\n\n", localTime(c.Expires, l))
	fmt.Fprintf(&b, "If you did not ask for this, ignore this email: your reservation stays as it is.\n")
	fmt.Fprintf(&b, "Questions: call %s.\n", l.Phone)
	return message.Email{
		ID: fmt.Sprintf("cancel-code-%s", c.ID), From: s.from(), To: []string{r.Contact.Email},
		Subject: fmt.Sprintf("Your cancellation code for %s", r.Reference), Text: b.String(), Date: now,
	}
}

// cancellationEmails tell the guest and staff that a reservation was
// cancelled and its room released.
func (s *Service) cancellationEmails(r booked, l business.Location, now time.Time) []message.Email {
	var g strings.Builder
	fmt.Fprintf(&g, "Reservation %s at %s is cancelled.\n\n", r.Reference, l.Name)
	g.WriteString(s.stayLines(r, l))
	fmt.Fprintf(&g, "\n%s\n", s.cancelledClosing(r, l))
	var st strings.Builder
	fmt.Fprintf(&st, "A guest cancelled a chat reservation through an assistant. The room is released.\n\n")
	st.WriteString(s.stayLines(r, l))
	fmt.Fprintf(&st, "Guest name: %s\n", MailName(r.Contact.Name))
	return []message.Email{
		{ID: noticeID(r.Reference, "cancelled", "guest"), From: s.from(), To: []string{r.Contact.Email},
			Subject: fmt.Sprintf("Reservation %s is cancelled", r.Reference), Text: g.String(), Date: now},
		{ID: noticeID(r.Reference, "cancelled", "staff"), From: s.from(), To: []string{s.cfg.Mail.Staff}, ReplyTo: r.Contact.Email,
			Subject: fmt.Sprintf("Chat reservation %s cancelled", r.Reference), Text: st.String(), Date: now},
	}
}

// noticeID is the stable identifier of a notice: the same notice retried
// keeps it, so a provider can drop duplicates.
func noticeID(ref, event, to string) string { return ref + "-" + event + "-" + to }

// paidUnit reports whether r's unit takes money when booking.
func (s *Service) paidUnit(r booked, l business.Location) bool {
	u, ok := l.Unit(r.Unit)
	return ok && takesMoney(u, s.cfg.Business.Currency)
}

// cancelledClosing is the guest's cancellation mail's last sentence:
// what becomes of the payment, and the phone.
func (s *Service) cancelledClosing(r booked, l business.Location) string {
	if s.paidUnit(r, l) {
		return fmt.Sprintf("What was paid is refunded as the cancellation policy says; your reservation's page shows what is refunded and what is kept. Questions: call %s.", l.Phone)
	}
	return fmt.Sprintf("No payment was taken, so nothing is refunded. Questions: call %s.", l.Phone)
}
