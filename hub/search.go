package hub

import (
	"context"
	"errors"
	"sync"

	"frontdesk/business"
	"frontdesk/location"
	"frontdesk/pricing"
	"frontdesk/reservation"
)

// RoomSearcher is the guest site's availability search.
type RoomSearcher interface {
	SearchRooms(ctx context.Context, q reservation.SearchRequest) (reservation.RoomSearch, error)
}

// Searcher is the guest site's availability search for this hub: own
// itself when the hub reads the store own reads (one process), else own
// with each location's free rooms read from its process (SearchRooms).
func (h *Hub) Searcher(own RoomSearcher) RoomSearcher {
	if _, local := h.backend.(*location.Service); local {
		return own
	}
	return splitSearch{h: h, own: own}
}

type splitSearch struct {
	h   *Hub
	own RoomSearcher
}

// SearchRooms assembles the search from the locations. own, the hub's
// core, checks the request and words its problems, and prices each room
// type from the config, which the hub holds whole; its store holds no
// stay, so each location's own free counts replace its rooms' (read in
// parallel, each within the inventory read's deadline). A location that
// cannot be read is named in Unread and none of its rooms is offered.
func (s splitSearch) SearchRooms(ctx context.Context, q reservation.SearchRequest) (reservation.RoomSearch, error) {
	res, err := s.own.SearchRooms(ctx, q)
	if err != nil {
		return res, err
	}
	var locs []business.Location // those with an offer, in the core's order
	for _, o := range res.Offers {
		if len(locs) == 0 || locs[len(locs)-1].Slug != o.Location.Slug {
			locs = append(locs, o.Location)
		}
	}
	rooms := make([]location.Rooms, len(locs))
	errs := make([]error, len(locs))
	var wg sync.WaitGroup
	for i, l := range locs {
		wg.Go(func() {
			rooms[i], errs[i] = s.h.backend.FindRooms(ctx, l.Slug, res.Checkin.String(), res.Checkout.String())
		})
	}
	wg.Wait()
	free := map[string]int{} // by slug and room type
	read := map[string]bool{}
	for i, l := range locs {
		if _, refused := errors.AsType[*pricing.Refusal](errs[i]); errs[i] != nil && !refused {
			res.Unread = append(res.Unread, l)
			continue
		}
		read[l.Slug] = true
		for _, r := range rooms[i].Rooms {
			if r.Bookable {
				free[l.Slug+"/"+r.RoomType] = r.Free
			}
		}
	}
	offers := res.Offers[:0:0]
	for _, o := range res.Offers {
		switch n := free[o.Location.Slug+"/"+o.Unit.Type]; {
		case !read[o.Location.Slug]:
		case n < 1:
			res.Full = append(res.Full, o.Location.Name+" "+o.Unit.DisplayName())
		default:
			o.Free = n
			offers = append(offers, o)
		}
	}
	res.Offers = offers
	return res, nil
}

var _ RoomSearcher = splitSearch{}
