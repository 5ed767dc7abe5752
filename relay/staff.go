package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"frontdesk/business"
	"frontdesk/reservation"
	"frontdesk/staff"
	"frontdesk/staff/office"
	"frontdesk/store"
)

// The staff operations: a split hub's staff screen reading and deciding
// at a location for a login of the hub. Each call carries the login's
// name and scope, and the location answers only within that scope and
// for itself: a login that may not see the location is refused there,
// whatever the hub asked.
const (
	OpStaffList      = "staff_reservations"
	OpStaffSearch    = "staff_search"
	OpStaffView      = "staff_view"
	OpStaffDecide    = "staff_decide"
	OpStaffBook      = "staff_book"
	OpStaffDashboard = "staff_dashboard"
)

// maxStaffRows bounds the reservations one staff operation answers
// with.
const maxStaffRows = 500

// staffArgs are the staff operations' arguments; a call with any other
// field is refused.
type staffArgs struct {
	By        string   `json:"by"`
	Role      string   `json:"role"`
	Locations []string `json:"locations,omitempty"`
	// The list's filter.
	States    []string `json:"states,omitempty"`
	Source    string   `json:"source,omitempty"`
	From      string   `json:"from,omitempty"`
	To        string   `json:"to,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	AfterSlot string   `json:"after_slot,omitempty"`
	AfterRef  string   `json:"after_ref,omitempty"`
	// The search's words, and the reference viewed or decided on.
	Q   string `json:"q,omitempty"`
	Ref string `json:"ref,omitempty"`
	// The decision.
	State string `json:"state,omitempty"`
	Note  string `json:"note,omitempty"`
	// The booking staff make for a guest.
	Booking *office.Booking `json:"booking,omitempty"`
}

func scopeArgs(u staff.User) staffArgs {
	return staffArgs{By: u.Username, Role: string(u.Role), Locations: u.Locations}
}

func (a staffArgs) user() staff.User {
	return staff.User{Username: a.By, Role: staff.Role(a.Role), Locations: a.Locations}
}

// listed is what a list row shows of a reservation: no keyed hash,
// action token, audit or door's detail leaves the location.
func listed(r reservation.Reservation) reservation.Reservation {
	return reservation.Reservation{Reference: r.Reference, Location: r.Location, Unit: r.Unit, Slots: r.Slots, Guests: r.Guests,
		Contact: r.Contact, Source: r.Source, State: r.State, Held: r.Held, Total: r.Total, CreatedAt: r.CreatedAt,
		HoldExpires: r.HoldExpires, Attention: r.Attention}
}

// StaffRemote is office.Remote over the relay: the hub's staff reads,
// each an inventory read (3 s), and its decisions, each a mutation.
type StaffRemote struct{ c *Client }

var _ office.Remote = (*StaffRemote)(nil)

// Reservations relays a page of the list at slug.
func (s *StaffRemote) Reservations(ctx context.Context, slug string, by staff.User, f store.ReservationFilter) ([]reservation.Reservation, error) {
	a := scopeArgs(by)
	a.States, a.Source, a.From, a.To, a.Limit, a.AfterSlot, a.AfterRef = f.States, f.Source, f.From, f.To, f.Limit, f.After.FirstSlot, f.After.Reference
	var out []reservation.Reservation
	err := s.c.Call(ctx, slug, OpStaffList, Inventory, a, &out)
	return out, err
}

// Search relays a search at slug.
func (s *StaffRemote) Search(ctx context.Context, slug string, by staff.User, q string, limit int) ([]reservation.Reservation, error) {
	a := scopeArgs(by)
	a.Q, a.Limit = q, limit
	var out []reservation.Reservation
	err := s.c.Call(ctx, slug, OpStaffSearch, Inventory, a, &out)
	return out, err
}

// StaffView relays the reading of one reservation at slug, a lookup.
func (s *StaffRemote) StaffView(ctx context.Context, slug string, by staff.User, ref string) (office.StaffView, error) {
	a := scopeArgs(by)
	a.Ref = ref
	var out office.StaffView
	err := s.c.Call(ctx, slug, OpStaffView, Lookup, a, &out)
	return out, absent(err)
}

// decided is a decision's answer.
type decided struct {
	Reservation reservation.Reservation `json:"reservation"`
	Mailed      bool                    `json:"mailed"`
}

// Decide relays a staff decision at slug, a mutation: the location
// records the hub's login as the one who decided.
func (s *StaffRemote) Decide(ctx context.Context, slug string, by staff.User, d reservation.Decision) (reservation.Reservation, bool, error) {
	a := scopeArgs(by)
	a.Ref, a.State, a.Note = d.Reference, string(d.To), d.Note
	var out decided
	err := s.c.Call(ctx, slug, OpStaffDecide, Mutation, a, &out)
	return out.Reservation, out.Mailed, absent(err)
}

// booked is a staff booking's answer: the reservation, or the fields
// to fix, which the hub's form shows as the location's would.
type booked struct {
	Reservation reservation.Reservation  `json:"reservation"`
	Problems    reservation.FormProblems `json:"problems,omitempty"`
}

// Book relays a booking staff make for a guest at slug, a mutation.
func (s *StaffRemote) Book(ctx context.Context, slug string, by staff.User, b office.Booking) (reservation.Reservation, error) {
	a := scopeArgs(by)
	a.Booking = &b
	var out booked
	if err := s.c.Call(ctx, slug, OpStaffBook, Mutation, a, &out); err != nil {
		return reservation.Reservation{}, err
	}
	if len(out.Problems) > 0 {
		return reservation.Reservation{}, out.Problems
	}
	return out.Reservation, nil
}

// dashboardWire is a location's dashboard without its dates, which the
// hub sets.
type dashboardWire struct {
	Occupancy                                         map[string][]float64
	BySource                                          map[string][]int
	Pending, Requests, Arrivals, Flagged, Undelivered int
}

// Dashboard relays the reading of slug's dashboard, an inventory read.
func (s *StaffRemote) Dashboard(ctx context.Context, slug string, by staff.User) (office.Dashboard, error) {
	var w dashboardWire
	err := s.c.Call(ctx, slug, OpStaffDashboard, Inventory, scopeArgs(by), &w)
	return office.Dashboard{Occupancy: w.Occupancy, BySource: w.BySource, Pending: w.Pending, Requests: w.Requests,
		Arrivals: w.Arrivals, Flagged: w.Flagged, Undelivered: w.Undelivered}, err
}

// ServeStaff adds the staff operations of o, the office of location l,
// to s.
func ServeStaff(s *Server, o *office.Office, l business.Location) {
	run := func(op string, f func(ctx context.Context, a staffArgs, u staff.User) (any, error)) {
		s.Add(op, Operation{Run: func(ctx context.Context, call Call) (any, error) {
			var a staffArgs
			dec := json.NewDecoder(bytes.NewReader(call.Args))
			dec.DisallowUnknownFields()
			if dec.Decode(&a) != nil || call.Slug != l.Slug {
				return nil, s.worded(CodeUnknownOperation, s.phone(call.Slug))
			}
			if a.Limit < 1 || a.Limit > maxStaffRows {
				a.Limit = maxStaffRows // a page of the staff screen reads at most this many
			}
			u := a.user()
			if !u.CanSee(l.Slug) {
				return nil, s.worded(CodeOutOfScope, "")
			}
			return f(ctx, a, u)
		}})
	}
	run(OpStaffList, func(ctx context.Context, a staffArgs, _ staff.User) (any, error) {
		rows, err := o.Reservations(ctx, store.ReservationFilter{Location: l.Slug, States: a.States, Source: a.Source, From: a.From, To: a.To,
			Limit: a.Limit, After: store.ReservationCursor{FirstSlot: a.AfterSlot, Reference: a.AfterRef}})
		return listedAll(rows), err
	})
	run(OpStaffSearch, func(ctx context.Context, a staffArgs, _ staff.User) (any, error) {
		rows, err := o.Search(ctx, a.Q, l.Slug, a.Limit)
		if errors.Is(err, reservation.ErrEmptySearch) {
			return []reservation.Reservation{}, nil
		}
		return listedAll(rows), err
	})
	mine := func(u staff.User) func(string) bool {
		return func(slug string) bool { return slug == l.Slug && u.CanSee(slug) }
	}
	run(OpStaffView, func(ctx context.Context, a staffArgs, u staff.User) (any, error) {
		v, err := o.StaffView(ctx, a.Ref, mine(u))
		// The page shows the rest; the keyed hash, the action token and
		// the door's own detail stay at the location.
		v.ContactKey, v.Token, v.Claims, v.Detail = "", "", nil, nil
		return v, deskRefusal(err)
	})
	run(OpStaffDecide, func(ctx context.Context, a staffArgs, u staff.User) (any, error) {
		r, mailed, err := o.Decide(ctx, reservation.Decision{Reference: a.Ref, To: reservation.State(a.State), By: u.Username, Note: a.Note, Visible: mine(u)})
		return decided{Reservation: listed(r), Mailed: mailed}, deskRefusal(err)
	})
	run(OpStaffDashboard, func(ctx context.Context, _ staffArgs, _ staff.User) (any, error) {
		d, err := o.Dashboard(ctx, []string{l.Slug})
		return dashboardWire{Occupancy: d.Occupancy, BySource: d.BySource, Pending: d.Pending, Requests: d.Requests,
			Arrivals: d.Arrivals, Flagged: d.Flagged, Undelivered: d.Undelivered}, err
	})
	run(OpStaffBook, func(ctx context.Context, a staffArgs, u staff.User) (any, error) {
		if a.Booking == nil {
			return nil, s.worded(CodeUnknownOperation, s.phone(l.Slug))
		}
		b := *a.Booking
		b.Location, b.By = l.Slug, u.Username // here, and under the hub login's name
		r, err := o.Book(ctx, b)
		if problems, ok := errors.AsType[reservation.FormProblems](err); ok {
			return booked{Problems: problems}, nil
		}
		return booked{Reservation: listed(r)}, err
	})
}

func listedAll(rows []reservation.Reservation) []reservation.Reservation {
	out := make([]reservation.Reservation, len(rows))
	for i, r := range rows {
		out[i] = listed(r)
	}
	return out
}

// deskRefusal is err as it travels: the desk's refusals go with their
// code and words already, and a reservation absent or out of sight as
// the desk's not-found, which absent turns back into what the staff
// screen tells apart.
func deskRefusal(err error) error {
	if errors.Is(err, reservation.ErrNoReservation) {
		return reservation.ErrNotFound
	}
	return err
}

// absent is err with the location's not-found as
// reservation.ErrNoReservation, as the office gives it in one process.
func absent(err error) error {
	if reservation.ErrorCode(err) == reservation.CodeNotFound {
		return reservation.ErrNoReservation
	}
	return err
}
