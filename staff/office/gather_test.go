package office

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/internal/fault"
	"frontdesk/reservation"
)

func stay(ref string, nights ...string) reservation.Reservation {
	return reservation.Reservation{Reference: ref, Slots: nights}
}

func refsOf(rows []reservation.Reservation) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Reference)
	}
	return out
}

var gatherLocs = []business.Location{{Slug: "riverside", Name: "Riverside Inn"}, {Slug: "oldtown", Name: "Old Town Lodge"}, {Slug: "airport", Name: "Airport Suites"}}

// TestGatherMerges: every location's rows come back as one list in the
// order asked for, a listing's or a search's, whatever order the
// locations answered in.
func TestGatherMerges(t *testing.T) {
	rows := map[string][]reservation.Reservation{
		"riverside": {stay("RIV-2", "2026-12-03"), stay("RIV-9", "2026-11-20", "2026-11-21")},
		"oldtown":   {stay("OTL-1", "2026-12-01", "2026-12-02"), stay("OTL-5", "2026-12-03")},
		"airport":   {stay("APS-4", "2026-11-25")},
	}
	read := func(_ context.Context, l business.Location) ([]reservation.Reservation, error) {
		return rows[l.Slug], nil
	}
	for _, tt := range []struct {
		name string
		less func(a, b reservation.Reservation) int
		want []string
	}{
		{"by arrival", ByArrival, []string{"RIV-9", "APS-4", "OTL-1", "OTL-5", "RIV-2"}},
		// Near 2026-12-02: stays not ended by then by arrival, then the
		// ended ones, latest first.
		{"nearest", Nearest("2026-12-02"), []string{"OTL-1", "OTL-5", "RIV-2", "APS-4", "RIV-9"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Gather(context.Background(), gatherLocs, time.Second, read, tt.less)
			if err != nil || !slices.Equal(refsOf(got), tt.want) {
				t.Fatalf("Gather = %v, %v; want %v", refsOf(got), err, tt.want)
			}
		})
	}
}

// TestGatherNamesWhatItCouldNotRead: a location that fails, refuses or
// does not answer within its limit is named with why, in config order,
// and the others' rows still come back; a page deadline shorter than
// the limit clips every read to it.
func TestGatherNamesWhatItCouldNotRead(t *testing.T) {
	slow := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	read := func(ctx context.Context, l business.Location) ([]reservation.Reservation, error) {
		switch l.Slug {
		case "oldtown":
			return nil, slow(ctx)
		case "airport":
			return nil, &fault.Error{Code: "relay_out_of_scope", Message: "This login does not work at this property."}
		}
		return []reservation.Reservation{stay("RIV-1", "2026-12-01")}, nil
	}
	for _, tt := range []struct {
		name        string
		limit, page time.Duration
	}{
		{"the location's limit", 50 * time.Millisecond, time.Minute},
		{"the page's deadline", time.Minute, 50 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.page)
			defer cancel()
			began := time.Now()
			got, err := Gather(ctx, gatherLocs, tt.limit, read, ByArrival)
			if took := time.Since(began); took > 2*time.Second {
				t.Fatalf("Gather took %v, want about 50ms", took)
			}
			if !slices.Equal(refsOf(got), []string{"RIV-1"}) {
				t.Fatalf("rows = %v, want RIV-1 alone", refsOf(got))
			}
			nr, ok := NotReadOf(err)
			want := []Unread{{"oldtown", "Old Town Lodge", ReasonLate}, {"airport", "Airport Suites", ReasonRefused}}
			if !ok || !slices.Equal(nr.Locations, want) {
				t.Fatalf("err = %v, want %v unread", err, want)
			}
		})
	}
	down := func(context.Context, business.Location) ([]reservation.Reservation, error) {
		return nil, &fault.Error{Code: "relay_unreachable", Err: errors.New("connection refused")}
	}
	_, err := Gather(context.Background(), gatherLocs[:1], time.Second, down, ByArrival)
	if nr, ok := NotReadOf(err); !ok || nr.Locations[0].Reason != ReasonDown {
		t.Fatalf("a location that took no connection = %v, want %q", err, ReasonDown)
	}
}

// TestGatherTakesNoLateAnswer: an answer that comes back after the
// location's limit passed is not shown as if it were read in time.
func TestGatherTakesNoLateAnswer(t *testing.T) {
	late := func(ctx context.Context, _ business.Location) ([]reservation.Reservation, error) {
		<-ctx.Done()
		return []reservation.Reservation{stay("RIV-1", "2026-12-01")}, nil
	}
	got, err := Gather(context.Background(), gatherLocs[:1], 20*time.Millisecond, late, ByArrival)
	if nr, ok := NotReadOf(err); !ok || len(got) != 0 || nr.Locations[0].Reason != ReasonLate {
		t.Fatalf("Gather = %v, %v; want nothing and the location unread as late", refsOf(got), err)
	}
}
