package orp_test

import (
	"testing"

	"pgregory.net/rapid"

	"frontdesk/orp"
)

func pct(n int64) *int64 { return &n }

func eurMoney(n int64) *orp.Money { return &orp.Money{AmountMinor: n, Currency: "EUR"} }

func seatWith(i int, t *orp.SeatTerms) orp.Seat {
	return orp.Seat{ID: "orp:hub.example/p_seat" + string(rune('a'+i)), Role: "member", Required: true, Terms: t}
}

// TestSplitRules is §20.1's split rule case by case.
func TestSplitRules(t *testing.T) {
	cases := []struct {
		name  string
		terms []*orp.SeatTerms
		ok    bool
	}{
		{"50/30/20", []*orp.SeatTerms{{Percent: pct(50)}, {Percent: pct(30)}, {Percent: pct(20)}}, true},
		{"60/41", []*orp.SeatTerms{{Percent: pct(60)}, {Percent: pct(41)}}, false},
		{"60/39", []*orp.SeatTerms{{Percent: pct(60)}, {Percent: pct(39)}}, false},
		{"101 on one seat", []*orp.SeatTerms{{Percent: pct(101)}, nil}, false},
		{"under 100 with hours, per, deposit and a cap", []*orp.SeatTerms{
			{Percent: pct(50), Per: "hour", Hours: pct(2)}, {Percent: pct(40), Cap: eurMoney(100),
				Deposit: &orp.Deposit{Amount: orp.Money{AmountMinor: 100, Currency: "EUR"}, Holder: "Harbour Escrow"}}}, false},
		{"fixed amounts alone", []*orp.SeatTerms{{Amount: eurMoney(0)}, {Amount: eurMoney(250000)}}, true},
		{"percent 1 with a cap beside fixed amounts", []*orp.SeatTerms{{Amount: eurMoney(0)}, {Amount: eurMoney(250000)}, {Percent: pct(1), Cap: eurMoney(5000)}}, true},
		{"percent, amount and cap on one seat, under 100", []*orp.SeatTerms{{Percent: pct(40), Amount: eurMoney(1000), Cap: eurMoney(9000)}, nil}, true},
		{"mix summing to 101", []*orp.SeatTerms{{Percent: pct(60), Cap: eurMoney(1)}, {Percent: pct(41), Cap: eurMoney(1)}, {Amount: eurMoney(5)}}, false},
		{"mix exactly 100", []*orp.SeatTerms{{Percent: pct(60), Cap: eurMoney(1)}, {Percent: pct(40), Cap: eurMoney(1)}, {Amount: eurMoney(5)}}, true},
		{"percent without a cap in a mix", []*orp.SeatTerms{{Percent: pct(10)}, {Amount: eurMoney(5)}}, false},
		{"no terms at all", []*orp.SeatTerms{nil, nil}, true},
		{"zero percents summing to 0", []*orp.SeatTerms{{Percent: pct(0)}, {Percent: pct(0)}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seats []orp.Seat
			for i, tm := range c.terms {
				seats = append(seats, seatWith(i, tm))
			}
			err := orp.CheckSeats(seats)
			if (err == nil) != c.ok {
				t.Fatalf("CheckSeats = %v, want ok %v", err, c.ok)
			}
			if err != nil && orp.AsError(err).Code != orp.InvalidMessage {
				t.Fatalf("refusal = %v, want invalid_message", err)
			}
		})
	}
}

// TestSplitProperty is §20.6's property check: random deals of 2 to 16
// seats whose percents sum to 100 validate, and the same split with one
// seat moved by any non-zero amount is rejected.
func TestSplitProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 16).Draw(t, "seats")
		// n percents summing to 100: cuts in [0, 100].
		cuts := rapid.SliceOfN(rapid.Int64Range(0, 100), n-1, n-1).Draw(t, "cuts")
		sortInt64(cuts)
		seats := make([]orp.Seat, n)
		prev := int64(0)
		for i := range n {
			next := int64(100)
			if i < n-1 {
				next = cuts[i]
			}
			seats[i] = seatWith(i, &orp.SeatTerms{Percent: pct(next - prev)})
			seats[i].Required = i == 0 || rapid.Bool().Draw(t, "required")
			prev = next
		}
		if err := orp.CheckSeats(seats); err != nil {
			t.Fatalf("a split summing to 100 was refused: %v", err)
		}
		i := rapid.IntRange(0, n-1).Draw(t, "moved")
		delta := rapid.Int64Range(-100, 100).Filter(func(d int64) bool { return d != 0 }).Draw(t, "delta")
		p := *seats[i].Terms.Percent + delta
		seats[i].Terms = &orp.SeatTerms{Percent: &p}
		if err := orp.CheckSeats(seats); err == nil || orp.AsError(err).Code != orp.InvalidMessage {
			t.Fatalf("a split moved by %d was %v, want invalid_message", delta, err)
		}
	})
}

func sortInt64(s []int64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
