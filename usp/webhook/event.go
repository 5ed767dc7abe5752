package webhook

import (
	"encoding/json"
	"fmt"
	"time"

	"frontdesk/reservation"
	"frontdesk/store"
)

// Kind is the record kind of events waiting to be delivered to the
// platform a reservation came from. The USP door subscribes to the
// reservation desk's transitions and writes them in the same
// transaction, so an event exists exactly when its transition committed.
const Kind = "usp-event"

// Event is one lifecycle event of a USP platform's reservation, as the
// outbox keeps it: what happened, to which reservation, when, and the
// reservation as it was right after.
type Event struct {
	ID          string          `json:"event_id"` // the same on every delivery
	Type        string          `json:"event"`    // booking.confirmed, booking.canceled, …
	Platform    string          `json:"platform"`
	Reference   string          `json:"reference"`
	Version     int64           `json:"version"` // the reservation's version after the transition
	At          time.Time       `json:"at"`
	Reservation json.RawMessage `json:"reservation"` // the stored form, after the transition
}

// EventID is the id of the event that the write of a reservation at
// version announces: a transition commits once per version, so a
// redelivery, a restart or a second worker always carries the same id.
func EventID(ref string, version int64) string {
	return fmt.Sprintf("evt_%s_%010d", ref, version)
}

// QueueEvent returns the outbox write of event typ for r stored at version.
// ok is false when r did not come from a USP platform.
func QueueEvent(r reservation.Reservation, typ string, version int64, now time.Time) (w store.Write, ok bool) {
	platform, isUSP := r.Source.Platform()
	if !isUSP {
		return store.Write{}, false
	}
	snapshot, err := json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("webhook: encode reservation: %v", err)) // the core's own type always encodes
	}
	e := Event{ID: EventID(r.Reference, version), Type: typ, Platform: platform, Reference: r.Reference, Version: version, At: now.UTC(), Reservation: snapshot}
	v, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("webhook: encode event: %v", err))
	}
	// The id sorts by reference, then version, so listing the outbox in
	// key order yields each reservation's events in causal order.
	return store.Write{Op: store.OpCreate, Record: store.Record{Kind: Kind, Key: e.ID, Value: v, UpdatedAt: now}}, true
}
