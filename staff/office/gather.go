package office

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"frontdesk/business"
	"frontdesk/internal/fault"
	"frontdesk/reservation"
)

// A page of the staff screen that spans locations, at a split
// deployment's hub, is assembled from each location's answer: read in
// parallel, each within its own limit and all within the page's
// deadline. A location that does not answer is named, never counted as
// having nothing to show.

// NotRead is the error of a read across locations that could not read
// some of them; the reservations returned with it are the others'.
type NotRead struct {
	Locations []Unread
}

// Unread is one location a read could not read, and why, in words safe
// to show staff.
type Unread struct {
	Slug, Name, Reason string
}

func (e *NotRead) Error() string {
	var names []string
	for _, u := range e.Locations {
		names = append(names, u.Name+": "+u.Reason)
	}
	return "not read: " + strings.Join(names, "; ")
}

// The reasons a location was not read.
const (
	ReasonLate    = "it did not answer in time"
	ReasonRefused = "it refused the read"
	ReasonDown    = "it could not be reached"
)

// Gather reads each of locs with read, in parallel, each within limit
// and all within ctx, and merges what they return in order of less. With
// a location unread the error is a *NotRead naming it, in the order of
// locs, next to the others' reservations.
func Gather(ctx context.Context, locs []business.Location, limit time.Duration,
	read func(ctx context.Context, l business.Location) ([]reservation.Reservation, error),
	less func(a, b reservation.Reservation) int) ([]reservation.Reservation, error) {
	rows, err := readEach(ctx, locs, limit, read)
	out := slices.Concat(rows...)
	slices.SortStableFunc(out, less)
	return out, err
}

// readEach reads each of locs with read, in parallel, each within limit
// and all within ctx: the answers by index, the zero value for a
// location not read, and a *NotRead naming those, in the order of locs.
func readEach[T any](ctx context.Context, locs []business.Location, limit time.Duration,
	read func(ctx context.Context, l business.Location) (T, error)) ([]T, error) {
	out := make([]T, len(locs))
	errs := make([]error, len(locs))
	var wg sync.WaitGroup
	for i, l := range locs {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, limit)
			defer cancel()
			got, err := read(ctx, l)
			if err == nil && ctx.Err() != nil {
				err = ctx.Err() // an answer past the limit is not waited for, nor taken
			}
			if err == nil {
				out[i] = got
			}
			errs[i] = err
		})
	}
	wg.Wait()
	var missed NotRead
	for i, l := range locs {
		if errs[i] != nil {
			missed.Locations = append(missed.Locations, Unread{Slug: l.Slug, Name: l.Name, Reason: reason(errs[i])})
		}
	}
	if len(missed.Locations) > 0 {
		return out, &missed
	}
	return out, nil
}

// reason words why a read failed.
func reason(err error) string {
	var f *fault.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ReasonLate
	case errors.As(err, &f) && f.Message != "":
		return ReasonRefused
	}
	return ReasonDown
}

// ByArrival orders reservations as a listing does: by first slot, then
// reference.
func ByArrival(a, b reservation.Reservation) int {
	return cmp.Or(cmp.Compare(a.FirstSlot(), b.FirstSlot()), cmp.Compare(a.Reference, b.Reference))
}

// Nearest orders reservations as a search does, nearest to near first:
// those not ended by near in order of arrival, then the ones that ended,
// latest first.
func Nearest(near string) func(a, b reservation.Reservation) int {
	ended := func(r reservation.Reservation) bool { return r.LastSlot() < near }
	return func(a, b reservation.Reservation) int {
		switch ea, eb := ended(a), ended(b); {
		case ea != eb:
			if ea {
				return 1
			}
			return -1
		case ea:
			return cmp.Or(cmp.Compare(b.FirstSlot(), a.FirstSlot()), cmp.Compare(a.Reference, b.Reference))
		}
		return ByArrival(a, b)
	}
}

// NotReadOf is the *NotRead in err's chain.
func NotReadOf(err error) (*NotRead, bool) {
	return errors.AsType[*NotRead](err)
}
