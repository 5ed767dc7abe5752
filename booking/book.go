package booking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"frontdesk/inventory"
	"frontdesk/reservation"
	"frontdesk/store"
)

// BookRequest is a reservation asked for through a door other than chat
// (a USP platform, the booking form, staff), whose own rules have already
// accepted it: the core only checks what it refers to and takes the units.
type BookRequest struct {
	Location   string
	Unit       string
	Slots      []string // nights, or one timed start, as inventory lists them
	Guests     int
	Contact    reservation.Contact
	ContactKey string // the door's keyed hash of the contact, if any
	Source     reservation.Source
	Total      int64 // minor units
	Notes      string
	// Hold takes the units now (state reserved); without it the
	// reservation is a request that holds nothing until staff accept it.
	Hold bool
	// Confirm, with Hold, stores the reservation confirmed: the door's
	// rules decided it needs no staff decision (a USP service in
	// confirmation_mode auto).
	Confirm bool
	By      string // who asked, for the audit
	// Units is how many units each slot takes (places of a group
	// service, rooms of a type); 0 means one.
	Units int
	// Detail is what the door keeps of its own on the reservation.
	Detail json.RawMessage
	// Also, when set, gives writes to commit in the same transaction as
	// the reservation, such as the door's record of the answer it will
	// send; it gets the reservation as stored.
	Also func(r reservation.Reservation) []store.Write
}

// ErrUnitTaken means no unit was free for every slot: nothing was stored.
var ErrUnitTaken = errors.New("booking: no unit is free for every slot")

// Book stores a new reservation for another door, with its units held in
// the same transaction when the request holds. It returns
// ErrUnitTaken when the units are gone, and an *Error with code
// "bad_request" when the location, unit or slots are not ones the
// business sells.
func (s *Service) Book(ctx context.Context, req BookRequest) (reservation.Reservation, error) {
	now := s.clock.Now()
	l, ok := s.location(req.Location)
	unit, sold := l.Unit(req.Unit)
	if !ok || !sold || len(req.Slots) == 0 || !slices.IsSorted(req.Slots) || req.Source == "" {
		return reservation.Reservation{}, &Error{Code: "bad_request", Message: "The reservation asks for a location, unit or slots this business does not sell."}
	}
	ref, err := s.newReference(l)
	if err != nil {
		return reservation.Reservation{}, err
	}
	state := reservation.Requested
	if req.Hold {
		state = reservation.Reserved
		if req.Confirm {
			state = reservation.Confirmed
		}
	}
	r := reservation.Reservation{
		Reference: ref, Location: l.Slug, Unit: unit.Type, Slots: req.Slots, Guests: req.Guests,
		Contact: req.Contact, ContactKey: req.ContactKey, Source: req.Source, State: state, Held: req.Hold,
		Total: req.Total, Notes: req.Notes, CreatedAt: now, Detail: req.Detail,
		Audit: []reservation.Entry{{At: now, By: req.By, What: "→" + string(state)}},
	}
	writes := []store.Write{reservation.Create(r, now)}
	if req.Hold {
		hold := inventory.NewHold(ref, l, unit, req.Slots, now)
		hold.Units = max(req.Units, 1)
		writes = append(writes, store.Write{Op: store.OpHold, Hold: &hold})
	}
	if req.Also != nil {
		stored := r
		stored.Version, stored.UpdatedAt = 1, now
		writes = append(writes, req.Also(stored)...)
	}
	_, err = s.st.Apply(ctx, writes)
	if errors.Is(err, store.ErrFull) {
		return reservation.Reservation{}, ErrUnitTaken
	}
	if err != nil {
		return reservation.Reservation{}, fmt.Errorf("store reservation: %w", err)
	}
	r.Version = 1
	return r, nil
}
