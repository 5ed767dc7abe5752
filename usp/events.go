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
// in the transaction of the transition, beside the event the desk
// stores in its own outbox.

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
// reservation, when its new state (or a reschedule) has an event. The
// webhook's kind comes from the transition as the desk's outbox stores
// it; its data is the booking right after the transition, which only the
// transaction of the transition still has, so the webhook is queued in
// it rather than by a consumer of the desk's outbox.
func announce(e reservation.Event) []store.Write {
	typ := eventType(e.Stored())
	if typ == "" {
		return nil
	}
	w, ok := webhook.QueueEvent(e.Reservation, typ, e.Version, e.At)
	if !ok {
		return nil
	}
	return []store.Write{w}
}

// eventType is the USP booking event a transition announces, or "".
func eventType(e reservation.StoredEvent) string {
	switch e.Change {
	case reservation.ChangeRescheduled:
		return "booking.rescheduled"
	case reservation.ChangeState:
		return eventTypes[e.To]
	}
	return ""
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
