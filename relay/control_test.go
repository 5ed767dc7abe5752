package relay

import (
	"context"
	"net/http/httptest"
	"testing"

	"frontdesk/direct"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
)

// TestRestateFromAnOlderLocation: the hub reads a restated stay sent
// without what it became, as a location from before stays could move
// sends a confirmation, as the stay no longer pending.
func TestRestateFromAnOlderLocation(t *testing.T) {
	hub := newBookingWorld(t, clock.NewFixed(bookNow))
	srv := NewServer(ServerOptions{Keys: []Key{key1}, Clock: clock.NewFixed(bookNow), Deployment: production()})
	cs := direct.NewControlStore(hub.svc)
	ServeControl(srv, cs)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	client, err := NewClient(ClientOptions{Origins: map[string]string{hubSlug: ts.URL}, Keys: []Key{key1}, Clock: clock.NewFixed(bookNow), Rand: random.SeededBy(6)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stay := direct.ControlStay{Location: "riverside", Checkin: "2027-01-10", Checkout: "2027-01-12", Pending: true}
	m, err := cs.Mark(ctx, []string{"m1"})
	if err == nil {
		err = cs.Settle(ctx, m, &stay)
	}
	if err == nil {
		err = client.Call(ctx, hubSlug, OpControlRestate, Mutation, map[string]any{"mailboxes": []string{"m1"}, "made": stay}, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	m, err = cs.Mark(ctx, []string{"m1"})
	if want := (direct.ControlStay{Location: "riverside", Checkin: "2027-01-10", Checkout: "2027-01-12"}); err != nil || len(m.Stays) != 1 || m.Stays[0] != want {
		t.Fatalf("the stay after an older location's restate: %+v, %v", m.Stays, err)
	}
}
