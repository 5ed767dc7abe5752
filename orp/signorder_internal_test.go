package orp

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestSignatureOrderProperty is §20.6's property check of signatures:
// two random orders of the same seats' signatures finish a deal of 2 to
// 16 seats in the same state, with the same bound list, sorted by party
// id, and a deal is active exactly when every required seat signed.
func TestSignatureOrderProperty(t *testing.T) {
	now := time.Date(2026, 10, 26, 12, 0, 0, 0, time.UTC)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 16).Draw(t, "seats")
		var base []seatState
		for i := range n {
			base = append(base, seatState{Seat: Seat{ID: fmt.Sprintf("orp:hub.example/p_%02d", rapid.IntRange(0, 99).Filter(func(k int) bool {
				for _, s := range base {
					if s.ID == fmt.Sprintf("orp:hub.example/p_%02d", k) {
						return false
					}
				}
				return true
			}).Draw(t, "id")), Role: "member", Required: i == 0 || rapid.Bool().Draw(t, "required")}})
		}
		signers := rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 0, n, func(i int) int { return i }).Draw(t, "signers")
		finish := func(order []int) *dealRecord {
			d := &dealRecord{Orp: Version04, State: statePending, Parties: append([]seatState(nil), base...)}
			for k, i := range order {
				d.Parties[i].Signed = true
				d.rebound(now.Add(time.Duration(k) * time.Second))
				if d.ready() {
					d.State = stateActive
				}
			}
			return d
		}
		a := finish(signers)
		shuffled := rapid.Permutation(signers).Draw(t, "other order")
		b := finish(shuffled)
		if a.State != b.State || len(a.Bound) != len(b.Bound) {
			t.Fatalf("orders %v and %v finish %s %v and %s %v", signers, shuffled, a.State, a.Bound, b.State, b.Bound)
		}
		for i := range a.Bound {
			if a.Bound[i].Party != b.Bound[i].Party || i > 0 && a.Bound[i-1].Party >= a.Bound[i].Party {
				t.Fatalf("bound %v and %v, want the same list sorted by party id", a.Bound, b.Bound)
			}
		}
		all := true
		for _, s := range base {
			signed := false
			for _, i := range signers {
				signed = signed || base[i].ID == s.ID
			}
			all = all && (!s.Required || signed)
		}
		if (a.State == stateActive) != all {
			t.Fatalf("state %s, every required seat signed: %v", a.State, all)
		}
	})
}
