package usp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/internal/golden"
	"frontdesk/internal/uspspec"
	"frontdesk/inventory"
)

func query(t *testing.T, b *Business, in QueryRequest) *QueryResult {
	t.Helper()
	res, err := b.QueryAvailability(context.Background(), Call{}, in)
	if err != nil {
		t.Fatalf("query %+v: %v", in, err)
	}
	return res
}

func limit(n int) *int { return &n }

// Both America/Denver changes of 2026: slots keep their local times and
// change offset, and a night across the change lasts 23 or 25 hours.
func TestDenverDaylightSavingChanges(t *testing.T) {
	cases := []struct {
		name          string
		before, on    string // the day before the change and the day of it
		shuttleBefore string
		shuttleOn     string
		nightStart    string
		nightEnd      string
		nightDuration string
	}{
		{"spring forward", "2026-03-07", "2026-03-08",
			"2026-03-07T06:00:00-07:00", "2026-03-08T06:00:00-06:00",
			"2026-03-07T15:00:00-07:00", "2026-03-08T15:00:00-06:00", "PT23H"},
		{"fall back", "2026-10-31", "2026-11-01",
			"2026-10-31T06:00:00-06:00", "2026-11-01T06:00:00-07:00",
			"2026-10-31T15:00:00-06:00", "2026-11-01T15:00:00-07:00", "PT25H"},
	}
	f := demo(t)
	schemas := uspspec.Load(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: c.before, EndDate: c.on, Limit: limit(100)})
			schemas.Check(t, uspspec.REST("POST", "/availability/query", 200), mustJSON(t, res))
			if len(res.Slots) != 32 {
				t.Fatalf("%d shuttle slots over two days, want 32", len(res.Slots))
			}
			if res.Slots[0].Start != c.shuttleBefore || res.Slots[16].Start != c.shuttleOn {
				t.Fatalf("first slots start %s and %s, want %s and %s", res.Slots[0].Start, res.Slots[16].Start, c.shuttleBefore, c.shuttleOn)
			}
			for _, s := range res.Slots {
				start, _ := time.Parse(time.RFC3339, s.Start)
				end, _ := time.Parse(time.RFC3339, s.End)
				if end.Sub(start) != time.Hour || s.Duration != "PT1H" {
					t.Fatalf("slot %s–%s lasts %v (%s), want one hour", s.Start, s.End, end.Sub(start), s.Duration)
				}
			}
			night := query(t, f.b, QueryRequest{ServiceID: "svc_riverside_single", StartDate: c.before, EndDate: c.before})
			if len(night.Slots) != 1 {
				t.Fatalf("%d night slots, want 1", len(night.Slots))
			}
			n := night.Slots[0]
			if n.Start != c.nightStart || n.End != c.nightEnd || n.Duration != c.nightDuration {
				t.Fatalf("night = %s–%s %s, want %s–%s %s", n.Start, n.End, n.Duration, c.nightStart, c.nightEnd, c.nightDuration)
			}
		})
	}
}

// A timed unit open over the change itself: on the spring day the local
// times 02:00 and 02:30 do not exist and are never offered; on the autumn
// day 01:00 and 01:30 are their first occurrence, and every slot lasts its
// duration as instants.
func TestTimedUnitAcrossTheChangeHour(t *testing.T) {
	cfg := config.Demo()
	cfg.Locations = cfg.Locations[2:]
	cfg.Locations[0].Units = []business.Unit{{Type: "sauna", Kind: business.KindTimed, Count: 4, DurationMinutes: 30, Opens: "00:00", Closes: "04:00", Price: "10.00"}}
	f := newFixture(t, cfg, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), nil)
	starts := func(day string) []string {
		res := query(t, f.b, QueryRequest{ServiceID: "svc_airport_sauna", StartDate: day, EndDate: day})
		var out []string
		for _, s := range res.Slots {
			start, _ := time.Parse(time.RFC3339, s.Start)
			end, _ := time.Parse(time.RFC3339, s.End)
			if end.Sub(start) != 30*time.Minute || s.Duration != "PT30M" {
				t.Fatalf("%s–%s is not 30 minutes", s.Start, s.End)
			}
			out = append(out, s.Start[11:])
		}
		return out
	}
	spring := strings.Join(starts("2026-03-08"), " ")
	if want := "00:00:00-07:00 00:30:00-07:00 01:00:00-07:00 01:30:00-07:00 03:00:00-06:00 03:30:00-06:00"; spring != want {
		t.Fatalf("spring day starts:\n%s\nwant\n%s", spring, want)
	}
	fall := strings.Join(starts("2026-11-01"), " ")
	if want := "00:00:00-06:00 00:30:00-06:00 01:00:00-06:00 01:30:00-06:00 02:00:00-07:00 02:30:00-07:00 03:00:00-07:00 03:30:00-07:00"; fall != want {
		t.Fatalf("fall day starts:\n%s\nwant\n%s", fall, want)
	}
}

// Flow vector 103 of the newer text, run as written: two slots that
// straddle a US Eastern change, built from the vector's own services.
func TestFlowVector103DSTSpanningSlot(t *testing.T) {
	var v struct {
		Given struct {
			BusinessTimezone string `json:"business_timezone"`
			Services         []struct {
				ID       string `json:"id"`
				Duration struct {
					Fixed int `json:"fixed"`
				} `json:"duration"`
			} `json:"services"`
		} `json:"given"`
		Cases []struct {
			Case      string `json:"case"`
			ServiceID string `json:"service_id"`
			Slot      struct {
				Start, End string
			} `json:"slot"`
			StartUTC string `json:"start_utc"`
			EndUTC   string `json:"end_utc"`
			Minutes  int    `json:"true_duration_minutes"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(uspspec.FlowVectors(t)["103-dst-spanning-slot"], &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 2 {
		t.Fatalf("vector has %d cases, want 2", len(v.Cases))
	}
	for _, c := range v.Cases {
		t.Run(c.Case, func(t *testing.T) {
			minutes := 0
			for _, s := range v.Given.Services {
				if s.ID == c.ServiceID {
					minutes = s.Duration.Fixed
				}
			}
			start, err := time.Parse(time.RFC3339, c.Slot.Start)
			if err != nil || minutes == 0 {
				t.Fatalf("vector case unreadable: %v", err)
			}
			// A unit that opens at the slot's local start and stays open
			// two more of its lengths by the wall clock.
			opens := start.Hour()*60 + start.Minute()
			closes := opens + 3*minutes
			cfg := config.Demo()
			cfg.Business.TimeZone = v.Given.BusinessTimezone
			cfg.Locations = cfg.Locations[:1]
			cfg.Locations[0].TimeZone = v.Given.BusinessTimezone
			typ := strings.TrimPrefix(c.ServiceID, "svc_")
			cfg.Locations[0].Units = []business.Unit{{Type: typ, Kind: business.KindTimed, Count: 1, DurationMinutes: minutes,
				Opens: fmt.Sprintf("%02d:%02d", opens/60, opens%60), Closes: fmt.Sprintf("%02d:%02d", closes/60, closes%60), Price: "0.00"}}
			f := newFixture(t, cfg, start.Add(-72*time.Hour), nil)
			day := start.Format(time.DateOnly)
			res := query(t, f.b, QueryRequest{ServiceID: "svc_riverside_" + typ, StartDate: day, EndDate: day})
			if len(res.Slots) == 0 {
				t.Fatal("no slots")
			}
			got := res.Slots[0]
			gotStart, _ := time.Parse(time.RFC3339, got.Start)
			gotEnd, _ := time.Parse(time.RFC3339, got.End)
			if got.Start != c.Slot.Start || got.End != c.Slot.End {
				t.Fatalf("slot = %s–%s, want %s–%s", got.Start, got.End, c.Slot.Start, c.Slot.End)
			}
			if gotStart.UTC().Format(time.RFC3339) != c.StartUTC || gotEnd.UTC().Format(time.RFC3339) != c.EndUTC {
				t.Fatalf("UTC = %s–%s, want %s–%s", gotStart.UTC(), gotEnd.UTC(), c.StartUTC, c.EndUTC)
			}
			if gotEnd.Sub(gotStart) != time.Duration(c.Minutes)*time.Minute {
				t.Fatalf("duration %v, want %d minutes", gotEnd.Sub(gotStart), c.Minutes)
			}
			zone, _ := time.LoadLocation(v.Given.BusinessTimezone)
			seen := map[string]bool{}
			for _, s := range res.Slots {
				// A skipped local time moved forward would repeat a start.
				if seen[s.ID] {
					t.Fatalf("slot %s is offered twice", s.Start)
				}
				seen[s.ID] = true
				st, _ := time.Parse(time.RFC3339, s.Start)
				// No slot starts at a local time that does not exist.
				local := st.In(zone)
				if local.Format("15:04") != s.Start[11:16] {
					t.Fatalf("slot %s is not a local time of %s", s.Start, zone)
				}
			}
			if strings.Contains(c.Case, "spring") {
				for _, s := range res.Slots {
					if strings.HasPrefix(s.Start[11:], "02:") {
						t.Fatalf("slot %s starts in the skipped hour", s.Start)
					}
				}
			}
		})
	}
}

// The flow vectors that concern the business role in Standalone mode run
// here and in flow_test.go (101 and 105 for their business part, without
// the UCP-native checkout and payment); the others are payment in
// UCP-native mode. A new vector fails here until it is placed.
func TestEveryFlowVectorIsPlaced(t *testing.T) {
	applied := map[string]bool{
		"103-dst-spanning-slot":                 true,
		"101-hold-expiry-during-checkout":       true, // TestFlowVector101HoldExpiredSlotStillFree
		"102-concurrent-holds-one-slot":         true, // TestFlowVector102ConcurrentHoldsOneSlot
		"105-confirmation-mode-guard":           true, // TestFlowVector105ConfirmationModeGuard
		"105-cancel-checkout-abandoned-booking": true, // TestFlowVector105CancelledBookingStaysCancelled
	}
	later := map[string]string{
		"104-charge-without-booking":        "payment (UCP-native)",
		"106-ucp-native-fixed-deposit":      "UCP-native mode",
		"107-ucp-native-percentage-deposit": "UCP-native mode",
	}
	for id := range uspspec.FlowVectors(t) {
		if !applied[id] && later[id] == "" {
			t.Errorf("flow vector %s is neither run nor placed", id)
		}
	}
}

func TestFreeCountsComeFromTheInventory(t *testing.T) {
	f := demo(t)
	ctx := context.Background()
	airport := location(f.cfg, "airport")
	shuttle, _ := airport.Unit("shuttle")
	day, _ := civil.Parse("2026-03-10")
	if err := f.holder.Hold(ctx, "h1", airport, shuttle, []string{"2026-03-10T09:00"}, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	double, _ := airport.Unit("double")
	if err := f.holder.Hold(ctx, "h2", airport, double, inventory.Nights(day, 1), f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	res := query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-10", EndDate: "2026-03-10"})
	for _, s := range res.Slots {
		if strings.HasPrefix(s.Start, "2026-03-10T09:00") {
			t.Fatalf("held slot %s is offered", s.ID)
		}
	}
	if len(res.Slots) != 15 {
		t.Fatalf("%d shuttle slots, want 15 of 16", len(res.Slots))
	}
	rooms := query(t, f.b, QueryRequest{ServiceID: "svc_airport_double", StartDate: "2026-03-09", EndDate: "2026-03-11"})
	var dates []string
	for _, s := range rooms.Slots {
		dates = append(dates, s.Start[:10])
		if s.Capacity == nil || s.Capacity.Total != 1 || s.Capacity.Remaining != 1 || s.State != "limited" {
			t.Fatalf("room slot = %+v", s)
		}
	}
	if got := strings.Join(dates, " "); got != "2026-03-09 2026-03-11" {
		t.Fatalf("double room nights = %s, want the held night missing", got)
	}
	party := query(t, f.b, QueryRequest{ServiceID: "svc_riverside_single", StartDate: "2026-03-10", EndDate: "2026-03-10", PartySize: limit(4)})
	if len(party.Slots) != 0 {
		t.Fatalf("4 rooms offered where 3 exist: %+v", party.Slots)
	}
	// No slot is an empty array, which the schema requires.
	schemas := uspspec.Load(t)
	schemas.Check(t, uspspec.REST("POST", "/availability/query", 200), mustJSON(t, party))
	other := query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-10", EndDate: "2026-03-10", ResourceID: "res_other"})
	schemas.Check(t, uspspec.REST("POST", "/availability/query", 200), mustJSON(t, other))
	party = query(t, f.b, QueryRequest{ServiceID: "svc_riverside_single", StartDate: "2026-03-10", EndDate: "2026-03-10", PartySize: limit(3)})
	if len(party.Slots) != 1 || party.Slots[0].Capacity.Remaining != 3 {
		t.Fatalf("party of 3 = %+v", party.Slots)
	}
}

func TestQueryPagesCoverTheRange(t *testing.T) {
	f := demo(t)
	in := QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-15"}
	var got []string
	pages := 0
	for {
		res := query(t, f.b, in)
		pages++
		for _, s := range res.Slots {
			got = append(got, s.Start)
		}
		if !res.Pagination.HasMore {
			break
		}
		in.Cursor = res.Pagination.Cursor
	}
	if len(got) != 14*16 || pages != 5 {
		t.Fatalf("%d slots in %d pages, want 224 in 5", len(got), pages)
	}
	for i := 1; i < len(got); i++ {
		a, _ := time.Parse(time.RFC3339, got[i-1])
		b, _ := time.Parse(time.RFC3339, got[i])
		if !a.Before(b) {
			t.Fatalf("slots out of order at %d: %s then %s", i, got[i-1], got[i])
		}
	}
	whole := query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-15", Limit: limit(500)})
	if len(whole.Slots) != 224 || whole.Pagination.HasMore {
		t.Fatalf("one page of 500: %d slots, more %v", len(whole.Slots), whole.Pagination.HasMore)
	}
	golden.Check(t, "availability-first-page.json", mustJSON(t, query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-02", Limit: limit(2)})))
}

func TestQueryRefusals(t *testing.T) {
	f := demo(t)
	cases := []struct {
		name string
		in   QueryRequest
		want Code
	}{
		{"no service", QueryRequest{StartDate: "2026-03-02", EndDate: "2026-03-03"}, CodeInvalidRequest},
		{"unknown service", QueryRequest{ServiceID: "svc_x", StartDate: "2026-03-02", EndDate: "2026-03-03"}, CodeValidation},
		{"bad date", QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "March 2", EndDate: "2026-03-03"}, CodeValidation},
		{"end before start", QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-05", EndDate: "2026-03-03"}, CodeValidation},
		{"too wide", QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-05-03"}, CodeRangeTooWide},
		{"longer than the booking window", QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2036-03-02"}, CodeValidation},
		{"bad zone", QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-03", Timezone: "Mars/Olympus"}, CodeValidation},
		{"party of zero", QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02", EndDate: "2026-03-03", PartySize: limit(0)}, CodeValidation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.b.QueryAvailability(context.Background(), Call{}, c.in)
			if got := protocolCode(t, err); got != c.want {
				t.Fatalf("code = %s, want %s", got, c.want)
			}
		})
	}
	// Datetimes are instants; the answer may be written in another zone.
	res := query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-02T20:00:00Z", EndDate: "2026-03-02T22:00:00Z", Timezone: "America/New_York"})
	if len(res.Slots) != 2 || res.Slots[0].Start != "2026-03-02T15:00:00-05:00" {
		t.Fatalf("slots = %+v", res.Slots)
	}
	// Past slots are not offered.
	res = query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-01", EndDate: "2026-03-01"})
	if len(res.Slots) == 0 || res.Slots[0].Start != "2026-03-01T06:00:00-07:00" {
		// 12:00 UTC is 05:00 in Denver: every slot of the day is ahead.
		t.Fatalf("today's slots = %+v", res.Slots)
	}
	f.clock.Set(time.Date(2026, 3, 1, 20, 30, 0, 0, time.UTC)) // 13:30 in Denver
	res = query(t, f.b, QueryRequest{ServiceID: "svc_airport_shuttle", StartDate: "2026-03-01", EndDate: "2026-03-01"})
	if len(res.Slots) != 8 || res.Slots[0].Start != "2026-03-01T14:00:00-07:00" {
		t.Fatalf("slots after 13:30 = %d from %s", len(res.Slots), res.Slots[0].Start)
	}
}
