package relay

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"frontdesk/business"
	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/direct/chatdoor"
	"frontdesk/direct/directtest"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/mail"
	"frontdesk/pricing"
	"frontdesk/reservation"
)

// bookNow is Monday 30 November 2026, 10:00 in Denver: office hours.
var bookNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

var guest = reservation.Caller{Host: "localhost:8080"}

// bookingWorld is one booking service on its own SQLite file with the
// dev mailbox, as a process of either deployment holds it.
type bookingWorld struct {
	svc  *direct.Service
	mail *mail.Dev
}

func newBookingWorld(t *testing.T, c clock.Clock, edit ...func(*config.Config)) bookingWorld {
	t.Helper()
	cfg, st := directtest.Demo(t, edit...)
	dev := mail.NewDev(st, c, nil)
	svc := direct.New(direct.Options{
		Config: direct.Config{Portfolio: cfg.Portfolio, Mail: cfg.Mail.Addresses, Deployment: cfg.Deployment.Deployment}, Store: st,
		Pricer: pricing.New(cfg.Portfolio, "http://localhost:8080"), Clock: c, Rand: random.Seeded([32]byte{1}), Mail: dev,
		Resolve: directtest.Resolver(cfg)})
	return bookingWorld{svc: svc, mail: dev}
}

var mailedCode = regexp.MustCompile(`code is (\d{6})\.`)

func (w bookingWorld) lastCode(t *testing.T) string {
	t.Helper()
	msgs, err := w.mail.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := mailedCode.FindStringSubmatch(msgs[i].Text); m != nil {
			return m[1]
		}
	}
	t.Fatal("no code mailed")
	return ""
}

// splitWorld is a hub whose booking door relays to one location server
// for riverside, each with its own store.
type splitWorld struct {
	hub, location bookingWorld
	door          *Door
	server        *httptest.Server
	client        *Client
}

func newSplitWorld(t *testing.T, d business.Deployment) *splitWorld {
	t.Helper()
	c := clock.NewFixed(bookNow)
	w := &splitWorld{hub: newBookingWorld(t, c), location: newBookingWorld(t, c)}
	srv := NewServer(ServerOptions{Keys: []Key{key1}, Clock: c, Deployment: d, Phone: PhoneOf(config.Demo().Portfolio)})
	ServeBookings(srv, w.location.svc)
	w.server = httptest.NewServer(srv)
	t.Cleanup(w.server.Close)
	var err error
	w.client, err = NewClient(ClientOptions{Origins: map[string]string{"riverside": w.server.URL}, Keys: []Key{key1}, Clock: c, Rand: random.SeededBy(4)})
	if err != nil {
		t.Fatal(err)
	}
	w.door = NewDoor(w.client, w.hub.svc)
	return w
}

// bookingDoor is what the booking tools call, in either deployment.
type bookingDoor interface {
	Start(context.Context, reservation.Caller, chatdoor.Args) (*direct.StartResult, error)
}

func answerText(err error) string {
	if e, ok := chatdoor.AsError(err); ok {
		return e.Message
	}
	if err != nil {
		return "ERROR " + err.Error()
	}
	return ""
}

// TestSplitDoorAnswersAsOneProcess: the hub's door over the relay gives
// the booking tools' answers byte for byte as the chat door in one
// process does, refusals and successes, including arguments that try to
// carry what only the deployment may say.
func TestSplitDoorAnswersAsOneProcess(t *testing.T) {
	split := newSplitWorld(t, production())
	one := newBookingWorld(t, clock.NewFixed(bookNow))
	single := chatdoor.New(one.svc)
	ctx := context.Background()
	start := func(d bookingDoor, a chatdoor.Args) (any, error) { return d.Start(ctx, guest, a) }
	tests := []struct {
		name string
		args chatdoor.Args
	}{
		{"unknown field", directtest.Stay("colour", "blue")},
		{"a deployment field", directtest.Stay("context", "production")},
		{"an origin field", directtest.Stay("origin", "http://elsewhere.example")},
		{"bad email", directtest.Stay("email", "ada")},
		{"bad dates", directtest.Stay("checkout", "2026-12-29")},
		{"too many guests", directtest.Stay("guests", 9.0)},
		{"studio for three nights", directtest.Stay("roomtype", "studio")},
		{"no property", directtest.Stay("property", nil)},
		{"unknown property", directtest.Stay("property", "nowhere")},
		{"resend of a made-up id", directtest.Args("booking_id", "RIV_b_0000")},
		{"a valid start", directtest.Stay()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotRes, gotErr := start(split.door, tt.args)
			wantRes, wantErr := start(single, tt.args)
			if got, want := answerText(gotErr), answerText(wantErr); got != want {
				t.Fatalf("split answer = %q\none process = %q", got, want)
			}
			if gotErr == nil {
				g, _ := json.Marshal(gotRes)
				w, _ := json.Marshal(wantRes)
				if string(g) != string(w) {
					t.Fatalf("split result = %s\none process = %s", g, w)
				}
			}
		})
	}
	// The whole journey: the code mailed by the location confirms there,
	// and the reservation is the location's, looked up and cancelled
	// through the hub as in one process.
	res, err := split.door.Start(ctx, guest, directtest.Stay("email", "grace@example.com"))
	if err != nil {
		t.Fatalf("start: %s", answerText(err))
	}
	conf, err := split.door.Confirm(ctx, guest, directtest.Args("booking_id", res.BookingID, "code", split.location.lastCode(t)))
	if err != nil {
		t.Fatalf("confirm: %s", answerText(err))
	}
	if msgs, _ := split.hub.mail.Messages(ctx); len(msgs) != 0 {
		t.Fatalf("the hub mailed %d messages", len(msgs))
	}
	found, err := split.door.Lookup(ctx, guest, directtest.Args("reservation_number", conf.ReservationNumber, "phone_last4", "0199"))
	if err != nil || found.ReservationNumber != conf.ReservationNumber {
		t.Fatalf("lookup = %+v, %s", found, answerText(err))
	}
	for _, bad := range []chatdoor.Args{
		directtest.Args("reservation_number", conf.ReservationNumber, "phone_last4", "0199", "code", "123456"),
		directtest.Args("reservation_number", "XYZ-1"),
	} {
		_, gotErr := split.door.Cancel(ctx, guest, bad)
		_, wantErr := single.Cancel(ctx, guest, bad)
		if got, want := answerText(gotErr), answerText(wantErr); got != want || got == "" {
			t.Errorf("cancel %v = %q, one process %q", bad, got, want)
		}
	}
}

// TestLocationRefusesAnotherLocationsCall: a relayed call whose fields
// name a location other than the one it was sent for is not run.
func TestLocationRefusesAnotherLocationsCall(t *testing.T) {
	w := newSplitWorld(t, production())
	err := w.client.Call(context.Background(), "riverside", OpStart, Mutation, directtest.Stay("property", "oldtown"), nil)
	if e, ok := AsError(err); !ok || e.Code != CodeUnknownOperation {
		t.Fatalf("a call for oldtown sent to riverside = %v", err)
	}
	if msgs, _ := w.location.mail.Messages(context.Background()); len(msgs) != 0 {
		t.Fatal("the refused call mailed a code")
	}
}

// TestSplitDoorFailures: the location layer's own refusal keeps its
// sentence; a location that takes no call gives the outage sentence with
// its phone (and a start's form); one that answers nothing in time
// leaves a confirmation uncertain, never undone.
func TestSplitDoorFailures(t *testing.T) {
	ctx := context.Background()
	draft := newSplitWorld(t, business.Deployment{Context: "deploy-preview", Published: true, Hostnames: []string{"127.0.0.1"}})
	_, err := draft.door.Start(ctx, guest, directtest.Stay())
	if got, want := answerText(err), "Booking tools are disabled on this draft (context: deploy-preview). Call +1 303 555 0111."; got != want {
		t.Fatalf("draft location = %q, want %q", got, want)
	}

	down := newSplitWorld(t, production())
	down.server.Close()
	_, err = down.door.Start(ctx, guest, directtest.Stay())
	if got, want := answerText(err), "This booking cannot be checked right now. Try again in a few minutes or call +1 303 555 0111.\nhttp://localhost:8080/book/riverside?roomtype=double&checkin=2026-12-30&checkout=2027-01-02"; got != want {
		t.Fatalf("a location down, start = %q, want %q", got, want)
	}
	_, err = down.door.Lookup(ctx, guest, directtest.Args("reservation_number", "RIV-0123456789ABCDEF", "phone_last4", "0199"))
	if got, want := answerText(err), "This reservation cannot be checked right now. Try again in a few minutes or call +1 303 555 0111."; got != want {
		t.Fatalf("a location down, lookup = %q, want %q", got, want)
	}

	hung := newSplitWorld(t, production())
	release := make(chan struct{})
	hung.server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = hung.door.Confirm(short, guest, directtest.Args("booking_id", "RIV_b_0123456789abcdef0123456789abcdef0123456789abcdef", "code", "123456"))
	want := "The booking outcome could not be checked right now. The booking may have gone through; a confirmation email is the proof. Ask again in a minute with the same booking_id and code, or call +1 303 555 0111."
	if got := answerText(err); got != want {
		t.Fatalf("a hung confirm = %q, want %q", got, want)
	}
	if !IsUncertain(err) {
		t.Fatalf("a hung confirm's cause is not uncertain: %v", err)
	}
}
