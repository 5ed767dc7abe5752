package relay

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"frontdesk/direct"
	"frontdesk/referral"
	"frontdesk/reservation"
	"frontdesk/store"
)

// Partner attribution across a split deployment. The business's ORP host
// lives at one location (split.orp_location), where partners' deals and
// clicks are kept. A booking at another location that carries a
// partner's mark is reported there, over the signed relay through the
// hub, and so is its end, so its conversion, refund and payout follow as
// in one process. The report is an outbox: the booking's own
// transaction keeps it, and the reservation outbox delivers it, again
// after a failure, until the ORP location has it; the ORP location
// records a sale once under its reference, however often it is told.

// OpORPReport is a sale or an end reported to the ORP location: a
// location calls it at the hub, which passes it on.
const OpORPReport = "orp_report"

// orpReport is OpORPReport's arguments: a new attributed sale, or the end
// of a reservation reported before.
type orpReport struct {
	Sale *referral.Sale           `json:"sale,omitempty"`
	End  *reservation.StoredEvent `json:"end,omitempty"`
}

// serveORPReports records at the ORP location the reports of the other
// locations with the ledger of its host.
func serveORPReports(s *Server, l *referral.Ledger) {
	s.Add(OpORPReport, Operation{Run: func(ctx context.Context, call Call) (any, error) {
		var a orpReport
		if err := json.Unmarshal(call.Args, &a); err != nil || (a.Sale == nil) == (a.End == nil) {
			return nil, s.worded(CodeUnknownOperation, "")
		}
		if a.Sale != nil {
			return true, l.Record(ctx, *a.Sale)
		}
		return true, l.Ended(ctx, *a.End)
	}})
}

// forwardORPReports passes the locations' reports on to the ORP location
// slug, at the hub, as they came.
func forwardORPReports(s *Server, client *Client, slug string) {
	s.Add(OpORPReport, Operation{Run: func(ctx context.Context, call Call) (any, error) {
		return true, client.Call(ctx, slug, OpORPReport, Mutation, call.Args, nil)
	}})
}

// kindORPReport keys a booking's report to the ORP location by its
// reference, from its creation until its end was told.
const kindORPReport = "relay.orp-report"

// reporter is a location's attribution when the ORP host is another
// location's: a reservation with a mark keeps its report in its own
// transaction, and the outbox's consumer tells the ORP location, through
// the hub, of the sale and then of its end.
type reporter struct {
	hub *Client
	st  store.Records
}

var _ reservation.Attributor = (*reporter)(nil)

// Addition keeps the sale's report with the reservation.
func (r *reporter) Addition(ctx context.Context, m referral.Mark, ref string, total int64, door reservation.Source, at time.Time) (reservation.Addition, error) {
	if m.Empty() {
		return reservation.Addition{}, nil
	}
	v, err := json.Marshal(referral.Sale{Mark: m, Reference: ref, Total: total, Door: door, At: at})
	if err != nil {
		return reservation.Addition{}, err
	}
	return reservation.Records(errReportRaced, store.Write{Op: store.OpCreate, Record: store.Record{Kind: kindORPReport, Key: ref, Value: v, UpdatedAt: at}}), nil
}

// errReportRaced: a report of the reference exists already, which only a
// reference drawn twice would meet.
var errReportRaced = errors.New("relay: a report of this reservation exists")

// attach makes the reporter tell the ORP location, from the outbox of
// bookings' desk, of each reported sale at its creation and of its end.
func (r *reporter) attach(bookings *direct.Service) {
	bookings.Core().UseAttribution(r)
	bookings.Desk().Consume("orp-report", r.deliver)
}

// deliver tells the ORP location what event e means for a reported sale:
// the sale at its creation, the end at its end, when the report is
// dropped. A failure to reach the hub or the ORP location is an outage:
// the event is offered again at the next pass.
func (r *reporter) deliver(ctx context.Context, e reservation.StoredEvent) ([]store.Write, error) {
	created, ended := e.From == "", e.To.Terminal() && !e.From.Terminal()
	if !created && !ended {
		return nil, nil
	}
	rec, err := r.st.Get(ctx, kindORPReport, e.Reference)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var a orpReport
	if created {
		a.Sale = &referral.Sale{}
		if err := json.Unmarshal(rec.Value, a.Sale); err != nil {
			return nil, err
		}
	}
	if ended {
		a.Sale, a.End = nil, &e
	}
	if err := r.hub.Call(ctx, hubSlug, OpORPReport, Mutation, a, nil); err != nil {
		if e, ok := AsError(err); ok && (e.Code == CodeUnreachable || e.Code == CodeUncertain || e.Code == CodeUnavailable) {
			return nil, &reservation.Error{Code: reservation.CodeUnavailable, Message: "The ORP location could not be told.", Err: err}
		}
		return nil, err
	}
	if !ended {
		return nil, nil
	}
	return []store.Write{{Op: store.OpDelete, Record: store.Record{Kind: kindORPReport, Key: e.Reference, Version: rec.Version}}}, nil
}
