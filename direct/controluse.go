package direct

import (
	"context"
	"errors"
	"slices"
	"time"

	"frontdesk/internal/civil"
	"frontdesk/inventory"
	"frontdesk/reservation"
	"frontdesk/store"
)

// How a location of a split deployment uses the hub's control data, and
// what it does when the hub cannot answer (§4, §10, §13): a failing mail
// counter stops code sending; a failing pending count or contact marker
// leaves the location's own limits in force (three pending per location,
// so three times the location count at most), and a reservation made
// without the other locations' stays names them for staff.

// UseControl makes the service, one location of a split deployment,
// consult the hub's control data through c; others are the group's other
// locations, which a reservation names for staff when their stays could
// not be read. At wiring, before serving.
func (s *Service) UseControl(c Control, others []string) {
	s.control, s.others = c, slices.Clone(others)
	// A reservation that stops awaiting staff gives its group place back,
	// and the hub's list of its mailbox's stays learns the decision.
	s.desk.Consume("control-pending", func(ctx context.Context, e reservation.StoredEvent) ([]store.Write, error) {
		if e.Source != reservation.SourceChat {
			return nil, nil
		}
		if e.Change == reservation.ChangeRescheduled {
			// The stay moved: the hub holds it on its new nights, so the
			// contact rules see it where it is now.
			return nil, s.restate(ctx, c, e, e.Was, false)
		}
		if e.From == "" || e.From == e.To {
			return nil, nil
		}
		if e.From.Pending() && !e.To.Pending() {
			if err := c.Release(ctx, e.Reference); err != nil {
				return nil, err
			}
		}
		switch e.To {
		case reservation.Confirmed:
			if e.From.Pending() {
				return nil, s.restate(ctx, c, e, e.Slots, false)
			}
		case reservation.Reserved, reservation.Completed:
		default: // no longer a stay the contact rules count
			return nil, s.restate(ctx, c, e, e.Slots, true)
		}
		return nil, nil
	})
}

// controlStay is the stay at location on slots as the hub keeps it; ok
// is false when slots are not nights.
func controlStay(location string, slots []string, pending bool) (st ControlStay, ok bool) {
	in, out, err := reservation.Reservation{Slots: slots}.Stay()
	if err != nil {
		return ControlStay{}, false
	}
	return ControlStay{Location: location, Checkin: in.String(), Checkout: out.String(), Pending: pending}, true
}

// restate tells the hub what became of the chat stay of event e that
// held the nights was: gone, it no longer counts for the contact rules;
// else it holds e's nights, awaiting staff as e.To does. Nothing is told
// of a stay that is not of nights or of a forgotten guest.
func (s *Service) restate(ctx context.Context, c Control, e reservation.StoredEvent, was []string, gone bool) error {
	stay, ok := controlStay(e.Location, was, true)
	now, nowOK := controlStay(e.Location, e.Slots, e.To.Pending())
	if !ok || !nowOK {
		return nil
	}
	r, err := s.getBooked(ctx, e.Reference)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	email, ok := NormalizedEmail(r.Contact.Email)
	if !ok {
		return nil // forgotten
	}
	if gone {
		return c.Restate(ctx, email, stay, nil)
	}
	return c.Restate(ctx, email, stay, &now)
}

// groupFull asks the hub whether the group's pending ceiling is reached.
// A hub that cannot answer leaves the location's own ceiling in force.
func (s *Service) groupFull(ctx context.Context, set reservation.Settings) bool {
	if s.control == nil {
		return false
	}
	ctx, cancel := within(ctx, s.deadlines.Contact)
	defer cancel()
	n, err := s.control.Pending(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "group pending count unread; the location's own ceiling applies", "err", err)
		return false
	}
	return n >= set.Group.Pending
}

// admitAtHub charges a code to the group's and the mailbox's budgets at
// the hub; nil without a hub. A full budget is the same *errBudget the
// location's own would be, so it is answered the same way.
func (s *Service) admitAtHub(ctx context.Context, email string) (*Admitted, error) {
	if s.control == nil {
		return nil, nil
	}
	ctx, cancel := within(ctx, s.deadlines.Admission)
	defer cancel()
	a, err := s.control.Admit(ctx, email)
	if full, ok := errors.AsType[*ControlFull](err); ok {
		refusal := "paused"
		if full.Budget == "mailbox" {
			refusal = "contact"
		}
		return nil, &errBudget{budget{key: "hub/" + full.Budget, refusal: refusal}}
	}
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// admitCancelAtHub charges a cancellation code to the group's budget at
// the hub; nil without a hub. Full or failing, no code is sent.
func (s *Service) admitCancelAtHub(ctx context.Context) (*Admitted, error) {
	if s.control == nil {
		return nil, nil
	}
	ctx, cancel := within(ctx, s.deadlines.Admission)
	defer cancel()
	a, err := s.control.AdmitCancel(ctx)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// refundAtHub gives back an admission known unused; a failed refund
// keeps the charge, the safe side.
func (s *Service) refundAtHub(ctx context.Context, a *Admitted) {
	if a == nil || s.control == nil {
		return
	}
	if err := s.control.Refund(ctx, *a); err != nil {
		s.log.WarnContext(ctx, "refund hub admission", "err", err)
	}
}

// marked is a confirmation's hold on its mailbox at the hub: the marker,
// or the fact that the other locations went unread.
type marked struct {
	marker *Marker
	unread []string
	// until is when the marker lapses on this clock: the lease counted
	// from before it was asked for, so no skew between the clocks and no
	// delay of the answer lengthens it.
	until time.Time
}

// markAtHub takes the mailbox's contact marker at the hub and reads its
// stays at the other locations. A marker another call holds is
// contention (ErrControlBusy); a hub that cannot answer leaves the other
// locations unread, for staff. ctx's deadline is then cut to end before
// the marker lapses.
func (s *Service) markAtHub(ctx context.Context, email string) (marked, error) {
	if s.control == nil {
		return marked{}, nil
	}
	readCtx, cancel := within(ctx, s.deadlines.Contact)
	defer cancel()
	asked := s.clock.Now()
	m, err := s.control.Mark(readCtx, email)
	if errors.Is(err, ErrControlBusy) {
		return marked{}, err
	}
	if err != nil {
		s.log.WarnContext(ctx, "contact marker unread; the other locations go unchecked", "err", err)
		return marked{unread: s.others}, nil
	}
	return marked{marker: &m, until: asked.Add(markerLease)}, nil
}

// markerDeadline is when work under marker m must end: 500 ms before the
// marker lapses, or ctx's own deadline when sooner.
func markerDeadline(ctx context.Context, m marked, now time.Time) (context.Context, context.CancelFunc) {
	if m.marker == nil {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, m.until.Sub(now)-markerMargin)
}

// elsewhere are the marker's stays at other locations as rows the
// contact rules read.
func (m marked) elsewhere(here string) []booked {
	if m.marker == nil {
		return nil
	}
	var rows []booked
	for _, st := range m.marker.Stays {
		in, err1 := civil.Parse(st.Checkin)
		out, err2 := civil.Parse(st.Checkout)
		if st.Location == here || err1 != nil || err2 != nil {
			continue
		}
		state := reservation.Confirmed
		if st.Pending {
			state = reservation.Reserved
		}
		rows = append(rows, booked{Reservation: reservation.Reservation{Location: st.Location, State: state,
			Slots: inventory.Nights(in, in.DaysUntil(out))}})
	}
	return rows
}

// settle records the stay made under m at the hub, or none, and ends
// the marker, within the marker's lease and the hub's mutation limit,
// once the call's own work ended. A failure is logged: the marker lapses
// on its own.
func (s *Service) settle(ctx context.Context, m marked, made *booked) {
	if m.marker == nil {
		return
	}
	left := min(hubMutation, m.until.Sub(s.clock.Now()))
	if left <= 0 {
		s.log.WarnContext(ctx, "contact marker lapsed before it was settled")
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), left)
	defer cancel()
	var stay *ControlStay
	if made != nil {
		stay = &ControlStay{Location: made.Location, Checkin: made.Checkin(), Checkout: made.Checkout(), Pending: made.State.Pending()}
	}
	if err := s.control.Settle(ctx, *m.marker, stay); err != nil {
		s.log.WarnContext(ctx, "settle contact marker", "err", err)
	}
}

// claimAtHub takes the group's pending place for ref at the hub. A full
// ceiling is reported; a hub that cannot answer leaves the location's
// own ceiling in force, and unread says so, for staff.
func (s *Service) claimAtHub(ctx context.Context, ref string, until time.Time) (full, unread bool) {
	if s.control == nil {
		return false, false
	}
	ctx, cancel := within(ctx, s.deadlines.Contact)
	defer cancel()
	err := s.control.Claim(ctx, ref, until)
	if _, ok := errors.AsType[*ControlFull](err); ok {
		return true, false
	}
	if err != nil {
		s.log.WarnContext(ctx, "group pending place not claimed; the location's own ceiling applies", "err", err)
		return false, true
	}
	return false, false
}

// releaseAtHub gives back ref's group place after a commit known not to
// have happened, in what remains of the call; a place not given back
// counts until the stay's end.
func (s *Service) releaseAtHub(ctx context.Context, ref string) {
	if s.control == nil {
		return
	}
	if err := s.control.Release(ctx, ref); err != nil {
		s.log.WarnContext(ctx, "release group pending place", "err", err)
	}
}
