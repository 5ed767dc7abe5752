package direct

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"frontdesk/business"
	"frontdesk/reservation"
	"frontdesk/store"
)

// guestPageLink is the absolute address of a guest's page.
func (s *Service) guestPageLink(token string) string {
	return s.pricer.URL("/stay/" + url.PathEscape(token))
}

// GuestStay reads the reservation token opens, or reservation.ErrNoReservation.
func (s *Service) GuestStay(ctx context.Context, token string) (reservation.GuestStay, error) {
	now := s.clock.Now()
	ref, err := s.core.GuestReference(ctx, token)
	if err != nil {
		return reservation.GuestStay{}, err
	}
	r, err := s.getBooked(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return reservation.GuestStay{}, reservation.ErrNoReservation
	}
	if err != nil {
		return reservation.GuestStay{}, fmt.Errorf("read reservation: %w", err)
	}
	l, _ := s.location(r.Location)
	g := reservation.GuestStay{Reservation: r.Reservation, Location: l, Nights: len(r.Slots), Total: s.pricer.Display(r.Total)}
	if in, out, err := r.Stay(); err == nil {
		g.Checkin, g.Checkout = in, out
		g.CheckinAt = localTime(checkinInstant(l, in), l)
	}
	set, err := s.policy(ctx)
	if err != nil {
		return reservation.GuestStay{}, fmt.Errorf("read settings: %w", err)
	}
	g.Withdrawable = r.State == reservation.Requested
	if refusal := s.cancellable(r, l, set, now, route{phone: l.Phone}, true); refusal != nil {
		g.Why = guestCancelWhy(r.State, l, s.cfg.Limits.CancelBeforeHours, refusal.Code)
	} else {
		g.Cancellable = true
	}
	return g, nil
}

// guestCancelWhy words, for the guest's page, why it offers no
// cancellation.
func guestCancelWhy(state reservation.State, l business.Location, beforeHours int, code Code) string {
	switch code {
	case CodeAlreadyCancelled:
		return "This reservation is no longer open, so there is nothing to cancel."
	case CodeEnded, CodeMoved:
		return "This stay has ended or was moved, so it cannot be cancelled here."
	case CodeCancelByPhone:
		return fmt.Sprintf("Cancellations here close %d hours before check-in. Call %s to change or cancel this stay.", beforeHours, l.Phone)
	}
	if state == reservation.Requested {
		return "Staff have not answered this request yet. To withdraw it, call " + l.Phone + "."
	}
	return "Cancellations here are taken during office hours. Come back then, or call " + l.Phone + "."
}

// GuestCancel is the first step of a cancellation from the guest's page:
// the same notice period, code budgets and emailed code as the chat
// tools' cancel_booking, without their office-hours condition. It returns
// the cancellation's id for the second step.
func (s *Service) GuestCancel(ctx context.Context, c reservation.Caller, token string) (*reservation.CancelResult, error) {
	ref, err := s.core.GuestReference(ctx, token)
	if err != nil {
		return nil, err
	}
	r, err := s.getBooked(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reservation.ErrNoReservation
	}
	if err != nil {
		return nil, fmt.Errorf("read reservation: %w", err)
	}
	return s.Cancel(ctx, c, CancelRequest{Reference: ref, Last4: LastFour(r.Contact.Phone), Guest: true})
}

// GuestCancelFinish is the second step: the code the first step emailed
// proves the guest reads the reservation's mail, and the reservation is
// cancelled. A cancel id that belongs to another reservation than the
// token's is refused as unknown.
func (s *Service) GuestCancelFinish(ctx context.Context, c reservation.Caller, token, cancelID, code string) (*reservation.CancelResult, error) {
	ref, err := s.core.GuestReference(ctx, token)
	if err != nil {
		return nil, err
	}
	cn, _, err := getJSON[cancellation](ctx, s.st, kindCancel, cancelID)
	if errors.Is(err, store.ErrNotFound) || err == nil && cn.Ref != ref {
		return nil, reservation.ErrNoReservation
	}
	if err != nil {
		return nil, fmt.Errorf("read cancellation: %w", err)
	}
	return s.Cancel(ctx, c, CancelRequest{CancelID: cancelID, Code: code})
}

// GuestWithdraw withdraws a request staff have not answered, from the
// guest's own page: the page's token is the guest's own link, and a
// request holds no room, so no emailed code is asked for. The request
// is cancelled with "guest" in its audit; the page words the result, so
// no mail is sent. A request staff answered meanwhile is refused with
// the code "answered", and nothing changes.
func (s *Service) GuestWithdraw(ctx context.Context, token string) (reservation.Reservation, error) {
	ref, err := s.core.GuestReference(ctx, token)
	if err != nil {
		return reservation.Reservation{}, err
	}
	r, _, err := s.core.Decide(ctx, reservation.Decision{Reference: ref, To: reservation.Cancelled, From: reservation.Requested, By: "guest",
		Note: "withdrawn by the guest on their page", Quiet: true})
	if errors.Is(err, reservation.ErrAnswered) {
		return r, &Error{Code: CodeAnswered, Phone: phoneOf(s, r.Location)}
	}
	return r, err
}
