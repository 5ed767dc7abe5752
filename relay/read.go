package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"frontdesk/hub"
	"frontdesk/internal/civil"
	"frontdesk/location"
	"frontdesk/pricing"
)

// The read operations, which run on drafts too, as the read tools do.
const (
	OpFindRooms = "find_rooms"
	OpQuote     = "quote"
	OpInfo      = "info"
)

// readArgs are the read operations' arguments; a call with any other
// field is refused.
type readArgs struct {
	RoomType string `json:"roomtype,omitempty"`
	Checkin  string `json:"checkin,omitempty"`
	Checkout string `json:"checkout,omitempty"`
}

// quoteWire is a pricing.Quote with its dates as text.
type quoteWire struct {
	Location, RoomType, Checkin, Checkout string
	Nights                                int
	Subtotal, Tax, Total                  int64
	Currency, RateBasis                   string
}

// Backend is hub.Backend over the relay: the hub's read calls, each
// under its kind's deadline.
type Backend struct{ c *Client }

var _ hub.Backend = (*Backend)(nil)

// NewBackend returns the hub's backend that relays through c.
func NewBackend(c *Client) *Backend { return &Backend{c: c} }

// FindRooms relays find_rooms, an inventory read (3 s).
func (b *Backend) FindRooms(ctx context.Context, slug, checkin, checkout string) (location.Rooms, error) {
	var out location.Rooms
	err := b.c.Call(ctx, slug, OpFindRooms, Inventory, readArgs{Checkin: checkin, Checkout: checkout}, &out)
	return out, err
}

// Quote relays a quote (6 s).
func (b *Backend) Quote(ctx context.Context, slug, roomType, checkin, checkout string) (pricing.Quote, error) {
	var w quoteWire
	if err := b.c.Call(ctx, slug, OpQuote, Quote, readArgs{RoomType: roomType, Checkin: checkin, Checkout: checkout}, &w); err != nil {
		return pricing.Quote{}, err
	}
	in, err1 := civil.Parse(w.Checkin)
	out, err2 := civil.Parse(w.Checkout)
	if err1 != nil || err2 != nil {
		return pricing.Quote{}, &Error{Code: CodeUnavailable, Err: fmt.Errorf("relay quote: dates %q to %q", w.Checkin, w.Checkout)}
	}
	return pricing.Quote{Location: w.Location, RoomType: w.RoomType, Checkin: in, Checkout: out, Nights: w.Nights,
		Subtotal: w.Subtotal, Tax: w.Tax, Total: w.Total, Currency: w.Currency, RateBasis: w.RateBasis}, nil
}

// Info relays property_info, a lookup (5 s). hub.Backend gives it no
// context; the lookup's own deadline bounds it.
func (b *Backend) Info(slug string) (location.Info, error) {
	var out location.Info
	err := b.c.Call(context.Background(), slug, OpInfo, Lookup, nil, &out)
	return out, err
}

// decodeRead reads a read operation's arguments, refusing unknown fields.
func decodeRead(call Call) (readArgs, error) {
	var a readArgs
	if len(call.Args) == 0 {
		return a, nil
	}
	dec := json.NewDecoder(bytes.NewReader(call.Args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, refuse(CodeUnknownOperation, "Unknown assistant booking operation.")
	}
	return a, nil
}

// ServeReads adds the read operations of svc to s.
func ServeReads(s *Server, svc *location.Service) {
	s.Add(OpFindRooms, Operation{Run: func(ctx context.Context, call Call) (any, error) {
		a, err := decodeRead(call)
		if err != nil {
			return nil, err
		}
		return svc.FindRooms(ctx, call.Slug, a.Checkin, a.Checkout)
	}})
	s.Add(OpQuote, Operation{Run: func(ctx context.Context, call Call) (any, error) {
		a, err := decodeRead(call)
		if err != nil {
			return nil, err
		}
		q, err := svc.Quote(ctx, call.Slug, a.RoomType, a.Checkin, a.Checkout)
		if err != nil {
			return nil, err
		}
		return quoteWire{Location: q.Location, RoomType: q.RoomType, Checkin: q.Checkin.String(), Checkout: q.Checkout.String(),
			Nights: q.Nights, Subtotal: q.Subtotal, Tax: q.Tax, Total: q.Total, Currency: q.Currency, RateBasis: q.RateBasis}, nil
	}})
	s.Add(OpInfo, Operation{Run: func(_ context.Context, call Call) (any, error) {
		if _, err := decodeRead(call); err != nil {
			return nil, err
		}
		return svc.Info(call.Slug)
	}})
}
