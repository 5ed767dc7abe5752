package usp

import (
	"time"

	"frontdesk/business"
	"frontdesk/reservation"
)

// view renders a reservation as a booking.
func (b *Business) view(r reservation.Reservation, d detail) *Booking {
	s, _ := b.catalog.get(d.ServiceID)
	zone := s.zone
	if zone == nil {
		zone = time.UTC
	}
	out := &Booking{
		ID: r.Reference, ServiceID: d.ServiceID, ServiceName: s.Name, PartySize: r.Guests,
		Status: b.status(r, d), ConfirmationMode: d.mode(), Notes: r.Notes, Recipient: d.Recipient, DeliveryAddress: d.DeliveryAddress,
		CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339),
		Revision: revision(r), Cancellation: d.Cancellation,
	}
	if d.Buyer != nil {
		out.Buyer = *d.Buyer
	}
	if w, ok := b.resolveSlot(s, d.SlotID); ok {
		out.Slot = SlotRef{ID: w.id, Start: w.start.In(zone).Format(time.RFC3339), End: w.end.In(zone).Format(time.RFC3339), Duration: isoDuration(w.end.Sub(w.start))}
	}
	if out.Status == "canceled" && out.Cancellation == nil {
		by := "business"
		reason := "Cancelled by the business."
		at := r.UpdatedAt.UTC().Format(time.RFC3339)
		out.Cancellation = &Cancellation{Reason: reason, CanceledBy: by, CanceledAt: at}
		if r.State == reservation.Declined {
			out.Cancellation.Reason = "The business could not accept the booking."
			if d.Pay != nil {
				// A declined booking is returned all it paid (§8.5.7).
				out.Cancellation.RefundAmount = d.Pay.Paid
			}
		}
		d.Cancellation = out.Cancellation
	}
	if d.Pay != nil {
		out.Payment, out.Actions = b.payView(s, r, d)
	} else {
		out.Payment = b.payment(s, r)
	}
	if s.ID != "" {
		out.Location = &Place{ID: s.loc.Slug, Name: s.loc.Name}
		if len(s.Resources) > 0 {
			out.Resources = []SlotResource{{ID: "res_" + s.loc.Slug + "_" + s.unit.Type, Type: "equipment", Name: s.unit.DisplayName()}}
		}
	}
	if r.State.Pending() && !d.Expires.IsZero() {
		out.ExpiresAt = d.Expires.In(zone).Format(time.RFC3339)
	}
	return out
}

// payment is a booking's payment as it shows it, from the one function
// that splits a price into lines; nil for a booking whose total today's
// rates and fees no longer split.
func (b *Business) payment(s Service, r reservation.Reservation) *Payment {
	if s.ID == "" || len(r.Slots) == 0 || b.pricer == nil {
		return nil
	}
	pr := b.pricer.Price(*s.unit, len(r.Slots), r.Guests, r.Total)
	if len(pr.Lines) == 0 {
		return nil
	}
	out := &Payment{Status: "not_required", Timing: pr.Timing, Amount: pr.Subtotal + pr.FeeTotal, Currency: s.Pricing.Currency, AmountDue: pr.DueNow, TaxAmount: pr.Tax.Amount}
	if pr.TakesMoney() {
		out.Status = "pending"
	}
	if pr.Timing == business.PayDeposit {
		out.DepositAmount = pr.DueNow
	}
	return out
}
