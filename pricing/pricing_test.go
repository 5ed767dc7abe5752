package pricing

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/internal/civil"
	"frontdesk/internal/golden"
	"frontdesk/internal/money"
)

var today, _ = civil.Parse("2026-11-30")

func demoPricer() (*Pricer, config.Config) {
	c := config.Demo()
	return New(c.Portfolio, "http://localhost:8080"), c
}

func location(c config.Config, slug string) business.Location {
	for _, l := range c.Locations {
		if l.Slug == slug {
			return l
		}
	}
	panic(slug)
}

// TestEveryUnitTypeOneToThirtyNights prices every room type of the demo at
// every length the cap allows, against a reviewed golden table.
func TestEveryUnitTypeOneToThirtyNights(t *testing.T) {
	p, c := demoPricer()
	var b strings.Builder
	in := today.AddDays(10)
	for _, l := range c.Locations {
		for _, u := range l.NightUnits() {
			for n := 1; n <= 30; n++ {
				q, err := p.Quote(Stay{Location: l, RoomType: u.Type, Checkin: in.String(), Checkout: in.AddDays(n).String()}, today)
				var r *Refusal
				switch {
				case errors.As(err, &r):
					fmt.Fprintf(&b, "%s %s %2d: refused %s\n", l.Slug, u.Type, n, r.Kind)
				case err != nil:
					t.Fatal(err)
				default:
					if q.Nights != n || q.Total != q.Subtotal+q.Tax {
						t.Fatalf("%s %s %d: inconsistent quote %+v", l.Slug, u.Type, n, q)
					}
					fmt.Fprintf(&b, "%s %s %2d: subtotal %s tax %s total %s (%s)\n", l.Slug, u.Type, n,
						p.Amount(q.Subtotal), p.Amount(q.Tax), p.Amount(q.Total), q.RateBasis)
				}
			}
		}
	}
	golden.Check(t, "prices-1-30.txt", []byte(b.String()))
}

func TestPriceArithmetic(t *testing.T) {
	p, c := demoPricer()
	riverside := location(c, "riverside")
	tests := []struct {
		unit                 string
		nights               int
		subtotal, tax, total int64
		basis                string
	}{
		{"single", 1, 8900, 957, 9857, "nightly"},           // 8900 × 10.75% = 956.75 → 957
		{"single", 7, 54000, 5805, 59805, "weekly"},         // one week at the weekly rate
		{"single", 9, 71800, 7719, 79519, "weekly+nightly"}, // 54000 + 2 × 8900; 7718.5 → 7719
		{"studio", 7, 56000, 6020, 62020, "weekly"},
		{"studio", 10, 80000, 8600, 88600, "weekly"}, // 56000 + 3 × 8000
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s-%d", tt.unit, tt.nights), func(t *testing.T) {
			q, err := p.Quote(Stay{Location: riverside, RoomType: tt.unit, Checkin: "2026-12-10", Checkout: civilAdd("2026-12-10", tt.nights)}, today)
			if err != nil {
				t.Fatal(err)
			}
			if q.Subtotal != tt.subtotal || q.Tax != tt.tax || q.Total != tt.total || q.RateBasis != tt.basis {
				t.Fatalf("quote = %d + %d = %d (%s), want %d + %d = %d (%s)", q.Subtotal, q.Tax, q.Total, q.RateBasis, tt.subtotal, tt.tax, tt.total, tt.basis)
			}
		})
	}
}

func TestRoomTypeIsCaseInsensitive(t *testing.T) {
	p, c := demoPricer()
	q, err := p.Quote(Stay{Location: location(c, "riverside"), RoomType: "DoUbLe", Checkin: "2026-12-10", Checkout: "2026-12-12"}, today)
	if err != nil || q.RoomType != "double" {
		t.Fatalf("Quote = %+v, %v", q, err)
	}
}

func TestArrivalWindowBoundaries(t *testing.T) {
	p, c := demoPricer()
	l := location(c, "oldtown")
	tests := []struct {
		offset int
		kind   RefusalKind
	}{
		{-2, RefusalPast}, {-1, ""}, {0, ""}, {550, ""}, {551, RefusalTooFar},
	}
	for _, tt := range tests {
		in := today.AddDays(tt.offset)
		_, err := p.Quote(Stay{Location: l, RoomType: "single", Checkin: in.String(), Checkout: in.AddDays(1).String()}, today)
		var r *Refusal
		got := RefusalKind("")
		if errors.As(err, &r) {
			got = r.Kind
		} else if err != nil {
			t.Fatal(err)
		}
		if got != tt.kind {
			t.Errorf("offset %d: refusal %q, want %q", tt.offset, got, tt.kind)
		}
	}
}

// TestRefusalsGolden pins every inherited quote refusal byte for byte.
func TestRefusalsGolden(t *testing.T) {
	p, c := demoPricer()
	riverside, oldtown, airport := location(c, "riverside"), location(c, "oldtown"), location(c, "airport")
	paused := riverside
	paused.Units = append([]business.Unit(nil), riverside.Units...)
	paused.Units[1].MinNights = 7 // double: the nightly pause
	lowStudio := riverside
	lowStudio.Units = append([]business.Unit(nil), riverside.Units...)
	lowStudio.Units[2].MinNights = 3 // studio minimum below a week
	cases := []struct {
		name string
		stay Stay
	}{
		{"minimum-stay-studio", Stay{riverside, "studio", "2026-12-10", "2026-12-13", 0}},
		{"minimum-stay-studio-airport", Stay{airport, "studio", "2026-12-10", "2026-12-13", 0}},
		{"minimum-stay-nightly-paused", Stay{paused, "double", "2026-12-10", "2026-12-13", 0}},
		{"weekly-only-under-a-week", Stay{lowStudio, "studio", "2026-12-10", "2026-12-14", 0}},
		{"over-cap", Stay{riverside, "single", "2026-12-10", "2027-01-10", 0}},
		{"unknown-room-type-sister", Stay{oldtown, "studio", "2026-12-10", "2026-12-17", 0}},
		{"unknown-room-type-alone", Stay{oldtown, "suite", "2026-12-10", "2026-12-17", 0}},
		{"checkin-past", Stay{riverside, "single", "2026-11-28", "2026-11-29", 0}},
		{"checkin-too-far", Stay{riverside, "single", "2028-06-03", "2028-06-04", 0}},
		{"checkout-not-after", Stay{riverside, "single", "2026-12-10", "2026-12-10", 0}},
		{"unreadable-dates", Stay{riverside, "single", "2026-02-30", "next week", 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.Quote(tc.stay, today)
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("Quote = %v, want a refusal", err)
			}
			golden.Check(t, "refusals/"+tc.name+".txt", []byte(r.Text))
		})
	}
	t.Run("quote-outage", func(t *testing.T) {
		golden.Check(t, "refusals/quote-outage.txt", []byte(p.QuoteOutage(riverside, "did not answer in time").Text))
	})
	t.Run("stay-cap", func(t *testing.T) {
		in, _ := civil.Parse("2026-12-01")
		golden.Check(t, "refusals/stay-cap.txt", []byte(p.StayCap(in, in.AddDays(45)).Text))
	})
}

func civilAdd(s string, n int) string {
	d, _ := civil.Parse(s)
	return d.AddDays(n).String()
}

// TestBreakdownAddsUp: for every unit of the demo and every stay from 1
// to 30 nights that has a price, the lines add up to the quote's
// subtotal, weeks come before nights, and a week line is used only
// where a weekly rate is.
func TestBreakdownAddsUp(t *testing.T) {
	p, c := demoPricer()
	today, _ := civil.Parse("2027-01-01")
	for _, l := range c.Locations {
		for _, u := range l.NightUnits() {
			for nights := 1; nights <= 30; nights++ {
				q, err := p.Quote(Stay{Location: l, RoomType: u.Type, Checkin: "2027-02-01", Checkout: civilAdd("2027-02-01", nights)}, today)
				if err != nil {
					continue
				}
				var sum int64
				for i, line := range p.Breakdown(u, nights) {
					sum += line.Amount
					if line.Per == "week" && (i != 0 || u.WeeklyRate == "") {
						t.Errorf("%s %s %d nights: week line %d of %+v", l.Slug, u.Type, nights, i, line)
					}
				}
				if sum != q.Subtotal {
					t.Errorf("%s %s %d nights: lines add to %d, subtotal %d", l.Slug, u.Type, nights, sum, q.Subtotal)
				}
			}
		}
	}
}

// TestPriceLines: a stay's price splits into its rate lines, worded as
// every door shows them, and the tax line, adding up to the quote's
// total; a total today's rates do not give stands alone.
func TestPriceLines(t *testing.T) {
	p, c := demoPricer()
	today, _ := civil.Parse("2027-01-01")
	for _, l := range c.Locations {
		for _, u := range l.NightUnits() {
			for nights := 1; nights <= 30; nights++ {
				q, err := p.Quote(Stay{Location: l, RoomType: u.Type, Checkin: "2027-02-01", Checkout: civilAdd("2027-02-01", nights)}, today)
				if err != nil {
					continue
				}
				pr := p.Price(u, nights, 1, q.Total)
				var sum int64
				for _, line := range pr.Lines {
					sum += line.Amount
				}
				if len(pr.Lines) == 0 || sum != q.Subtotal || pr.Subtotal != q.Subtotal || pr.Tax.Amount != q.Tax || pr.Total != q.Total {
					t.Errorf("%s %s %d nights: price %+v, quote %+v", l.Slug, u.Type, nights, pr, q)
				}
				if (q.Tax > 0) != (pr.Tax.Label != "") {
					t.Errorf("%s %s %d nights: tax line %+v for tax %d", l.Slug, u.Type, nights, pr.Tax, q.Tax)
				}
			}
			if pr := p.Price(u, 7, 1, 1); len(pr.Lines) != 0 || pr.Tax.Label != "" || pr.Total != 1 {
				t.Errorf("%s %s: a total the rates do not give = %+v", l.Slug, u.Type, pr)
			}
		}
	}
	l := c.Locations[0]
	u, _ := l.Unit("double")
	u.NightlyRate, u.WeeklyRate = "100.00", "600.00"
	pr := p.Price(u, 9, 1, 80000+money.DivRound(80000*p.taxBasisPoints(), 10000))
	var got []string
	for _, line := range pr.Lines {
		got = append(got, line.Label)
	}
	if want := "1 week × $600.00 a week; 2 nights × $100.00 a night"; strings.Join(got, "; ") != want {
		t.Fatalf("lines = %q, want %q", got, want)
	}
}

// BenchmarkChatQuote is quote_stay's pricing: one room type, three
// nights, the rate read from the config.
func BenchmarkChatQuote(b *testing.B) {
	p, c := demoPricer()
	stay := Stay{Location: location(c, "riverside"), RoomType: "double", Checkin: "2026-12-28", Checkout: "2026-12-31"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ChatQuote(stay, today); err != nil {
			b.Fatal(err)
		}
	}
}
