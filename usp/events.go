package usp

import (
	"context"

	"frontdesk/reservation"
	"frontdesk/store"
	"frontdesk/usp/credential"
	"frontdesk/usp/webhook"
)

// The USP door on the reservation desk: it subscribes to every
// transition to queue its platforms' webhooks, and hooks every terminal
// one to delete the booking-scoped credentials of the reservation, both
// in the transaction of the transition.

// eventTypes are the USP booking events (§5.4.1) each state announces
// when a reservation enters it; states without one announce nothing.
var eventTypes = map[reservation.State]string{
	reservation.Confirmed: "booking.confirmed",
	reservation.Declined:  "booking.canceled",
	reservation.Cancelled: "booking.canceled",
	reservation.Completed: "booking.completed",
	reservation.NoShow:    "booking.no_show",
	reservation.Moved:     "booking.rescheduled",
}

// attach registers the door on desk; registering again replaces it.
func (b *Business) attach(desk *reservation.Desk) {
	desk.Subscribe("usp", announce)
	desk.OnEnd("usp", b.endCredentials)
}

// announce is the outbox write for a transition of a USP platform's
// reservation, when its new state (or a reschedule) has an event.
func announce(e reservation.Event) []store.Write {
	var typ string
	switch e.Change {
	case reservation.ChangeRescheduled:
		typ = "booking.rescheduled"
	case reservation.ChangeState:
		typ = eventTypes[e.Reservation.State]
	}
	if typ == "" {
		return nil
	}
	w, ok := webhook.QueueEvent(e.Reservation, typ, e.Version, e.At)
	if !ok {
		return nil
	}
	return []store.Write{w}
}

// endCredentials are the deletes of the credentials issued for a USP
// platform's reservation that ends, so none outlives a committed end and
// none is lost to an end that failed.
func (b *Business) endCredentials(ctx context.Context, r reservation.Reservation) ([]store.Write, error) {
	if _, isUSP := r.Source.Platform(); !isUSP || b.st == nil {
		return nil, nil
	}
	return credential.Issuer{Records: b.st}.InvalidationWrites(ctx, r.Reference)
}
