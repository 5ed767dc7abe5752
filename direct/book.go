package direct

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"frontdesk/business"
	"frontdesk/referral"
	"frontdesk/reservation"
)

// BookRequest is a reservation asked for through a door other than chat
// (a USP platform, the booking form, staff), whose own rules have already
// accepted it: the core only checks what it refers to and asks the desk.
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
	// Kind is a request that holds nothing until staff accept it (the
	// zero value), a booking that holds and awaits staff, a confirmed
	// booking, or a tentative hold that lapses at Expires.
	Kind    reservation.Kind
	Expires time.Time
	By      string // who asked, for the audit
	// Units is how many units each slot takes (places of a group
	// service, rooms of a type); 0 means one.
	Units int
	// Detail is what the door keeps of its own on the reservation.
	Detail json.RawMessage
	// Also are the door's own records, committed in the same transaction
	// as the reservation, such as its record of the answer it will send.
	Also []reservation.Addition
	// Referral is a partner's click id or code the door was given; a
	// live one records the attribution with the reservation.
	Referral referral.Mark
}

// ErrUnitTaken means no unit was free for every slot: nothing was stored.
var ErrUnitTaken = reservation.ErrUnitTaken

// Book stores a new reservation for another door through the desk, with
// its units held in the same transaction unless it is a request. It
// returns a *reservation.Error (ErrUnitTaken when the units are gone),
// and an *Error with code "bad_request" when the location, unit or
// slots are not ones the business sells.
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
	kind := req.Kind
	if kind == 0 {
		kind = reservation.KindRequest
	}
	n := reservation.New{
		Kind: kind, Reference: ref, Unit: deskUnit(l, unit), Slots: req.Slots, Units: req.Units,
		Guests: req.Guests, Contact: req.Contact, ContactKey: req.ContactKey, Source: req.Source,
		Total: req.Total, Notes: req.Notes, Expires: req.Expires, Detail: req.Detail, By: req.By, At: now, Also: req.Also,
	}
	if kind == reservation.KindHold {
		// A hold is not a booking: its conversion waits for the booking.
		return s.desk.Create(ctx, n)
	}
	also := n.Also
	for range maxCASAttempts {
		attributed, err := s.Attribution(ctx, req.Referral, n)
		if err != nil {
			return reservation.Reservation{}, err
		}
		n.Also = append(slices.Clone(also), attributed...)
		r, err := s.desk.Create(ctx, n)
		if !errors.Is(err, referral.ErrRaced) {
			return r, err
		}
	}
	return reservation.Reservation{}, &reservation.Error{Code: reservation.CodeConflict, Message: reservation.ErrConflict.Message, Err: referral.ErrRaced}
}

// deskUnit is what the desk holds of unit u at location l.
func deskUnit(l business.Location, u business.Unit) reservation.Unit {
	return reservation.Unit{Location: l.Slug, Type: u.Type, Capacity: u.Count}
}
