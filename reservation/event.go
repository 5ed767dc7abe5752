package reservation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"frontdesk/store"
)

// OutboxKind is the record kind of events waiting to be delivered to the
// platform a reservation came from. They are written in the same Apply as
// the transition they announce, so an event exists exactly when its
// transition committed; usp/webhook delivers and removes them.
const OutboxKind = "usp-event"

// CredentialKind is the record kind of the booking-scoped credentials a
// USP platform holds for its reservations (usp/credential issues them),
// keyed "<reference>/<hash of the value>". A credential dies with its
// reservation: ClaimVersions reads them and Move deletes them in the
// write that takes the reservation to a terminal state, so no credential
// outlives a committed end and none is lost to an end that failed.
const CredentialKind = "usp-credential"

// credentialEntry is how a credential's key is listed among the versions
// ClaimVersions returns, apart from claim keys.
func credentialEntry(key string) string { return CredentialKind + ":" + key }

// readCredentials adds to versions the credentials issued for r, when r
// came from a USP platform; other doors issue none.
func readCredentials(ctx context.Context, st store.Records, r Reservation, versions map[string]int64) error {
	if _, isUSP := r.Source.Platform(); !isUSP || r.Reference == "" {
		return nil
	}
	const page = 100
	after := ""
	for {
		recs, err := st.List(ctx, CredentialKind, r.Reference+"/", after, page)
		if err != nil {
			return fmt.Errorf("read credentials: %w", err)
		}
		for _, rec := range recs {
			versions[credentialEntry(rec.Key)] = rec.Version
			after = rec.Key
		}
		if len(recs) < page {
			return nil
		}
	}
}

// endCredentials are the deletes of the credentials listed in versions,
// in key order so the writes of a move repeat exactly.
func endCredentials(versions map[string]int64) []store.Write {
	var ws []store.Write
	for entry, v := range versions {
		if key, ok := strings.CutPrefix(entry, CredentialKind+":"); ok {
			ws = append(ws, store.Write{Op: store.OpDelete, Record: store.Record{Kind: CredentialKind, Key: key, Version: v}})
		}
	}
	slices.SortFunc(ws, func(a, b store.Write) int { return strings.Compare(a.Record.Key, b.Record.Key) })
	return ws
}

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

// eventTypes are the USP booking events (§5.4.1) each state announces
// when a reservation enters it; states without one announce nothing.
var eventTypes = map[State]string{
	Confirmed: "booking.confirmed",
	Declined:  "booking.canceled",
	Cancelled: "booking.canceled",
	Completed: "booking.completed",
	NoShow:    "booking.no_show",
	Moved:     "booking.rescheduled",
}

// Platform returns the USP platform of a "usp:<platform>" source.
func (s Source) Platform() (string, bool) {
	p, ok := strings.CutPrefix(string(s), "usp:")
	return p, ok && p != ""
}

// EventID is the id of the event that the write of r at version announces:
// a transition commits once per version, so a redelivery, a restart or a
// second worker always carries the same id.
func EventID(ref string, version int64) string {
	return fmt.Sprintf("evt_%s_%010d", ref, version)
}

// Announce returns the outbox write for r having just entered its state,
// where version is the version r is stored at by the same Apply. ok is
// false when there is nothing to announce: the reservation did not come
// from a USP platform, or its state has no event.
func Announce(r Reservation, version int64, now time.Time) (w store.Write, ok bool) {
	typ, has := eventTypes[r.State]
	if !has {
		return store.Write{}, false
	}
	return AnnounceAs(r, typ, version, now)
}

// AnnounceAs is Announce for a change the state does not name, such as a
// reschedule that keeps the state: typ is the USP event type.
func AnnounceAs(r Reservation, typ string, version int64, now time.Time) (w store.Write, ok bool) {
	platform, isUSP := r.Source.Platform()
	if !isUSP {
		return store.Write{}, false
	}
	snapshot, err := json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("reservation: encode: %v", err)) // our own type always encodes
	}
	e := Event{ID: EventID(r.Reference, version), Type: typ, Platform: platform, Reference: r.Reference, Version: version, At: now.UTC(), Reservation: snapshot}
	v, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("reservation: encode event: %v", err))
	}
	// The id sorts by reference, then version, so listing the outbox in
	// key order yields each reservation's events in causal order.
	return store.Write{Op: store.OpCreate, Record: store.Record{Kind: OutboxKind, Key: e.ID, Value: v, UpdatedAt: now}}, true
}

// Resave is for a caller that changes the reservation Move returned
// before committing: it replaces the swap at writes[0] with moved as it is
// now, and the snapshot in the outbox event Move added, so the platform
// hears of the reservation as it was saved.
func Resave(writes []store.Write, moved Reservation, now time.Time) {
	writes[0] = Save(moved, now)
	id := EventID(moved.Reference, moved.Version+1)
	for i, w := range writes {
		if w.Op != store.OpCreate || w.Record.Kind != OutboxKind || w.Record.Key != id {
			continue
		}
		var e Event
		if err := json.Unmarshal(w.Record.Value, &e); err != nil {
			panic(fmt.Sprintf("reservation: decode own event: %v", err))
		}
		snapshot, err := json.Marshal(moved)
		if err != nil {
			panic(fmt.Sprintf("reservation: encode: %v", err))
		}
		e.Reservation = snapshot
		v, err := json.Marshal(e)
		if err != nil {
			panic(fmt.Sprintf("reservation: encode event: %v", err))
		}
		writes[i].Record.Value = v
	}
}
