package chatdoor

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/direct/directtest"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/mail"
	"frontdesk/pricing"
	"frontdesk/reservation"
)

// testNow is Monday 30 November 2026, 10:00 in Denver: office hours.
var testNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

var web = reservation.Caller{Host: "localhost:8080"}

// world is the demo business behind the chat door, on a fresh SQLite
// file with the dev mailbox, a fixed clock and seeded randomness.
type world struct {
	t    *testing.T
	mail *mail.Dev
	svc  *Door
}

func newWorld(t *testing.T, edit ...func(*config.Config)) *world {
	t.Helper()
	cfg, st := directtest.Demo(t, edit...)
	clk := clock.NewFixed(testNow)
	dev := mail.NewDev(st, clk, nil)
	svc := direct.New(direct.Options{
		Config: direct.Config{Portfolio: cfg.Portfolio, Mail: cfg.Mail.Addresses, Deployment: cfg.Deployment.Deployment}, Store: st, Pricer: pricing.New(cfg.Portfolio, "http://localhost:8080"), Clock: clk,
		Rand: random.Seeded([32]byte{1}), Mail: dev,
		Resolve: directtest.Resolver(cfg)})
	return &world{t: t, mail: dev, svc: New(svc)}
}

func args(kv ...any) Args { return directtest.Args(kv...) }

// stayArgs is a valid start for Riverside's double.
func stayArgs(extra ...any) Args { return directtest.Stay(extra...) }

var codePattern = regexp.MustCompile(`code is (\d{6})\.`)

// lastCode reads the code of the newest mail delivered to addr.
func (w *world) lastCode(addr string) string {
	w.t.Helper()
	msgs, err := w.mail.Messages(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	code := ""
	for _, m := range msgs {
		if mm := codePattern.FindStringSubmatch(m.Text); mm != nil && len(m.To) > 0 && m.To[0] == addr {
			code = mm[1]
		}
	}
	if code == "" {
		w.t.Fatalf("no code mailed to %s", addr)
	}
	return code
}

// book runs a whole booking through the door and returns its reference.
func (w *world) book(a Args) string {
	w.t.Helper()
	ctx := context.Background()
	res, err := w.svc.Start(ctx, web, a)
	if err != nil {
		w.t.Fatalf("start: %v", refusalText(err))
	}
	email, _ := a["email"].(string)
	conf, err := w.svc.Confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode(email)))
	if err != nil {
		w.t.Fatalf("confirm: %v", refusalText(err))
	}
	return conf.ReservationNumber
}

func refusalText(err error) string {
	if r, ok := errors.AsType[*direct.Error](err); ok {
		return r.Message
	}
	if err != nil {
		return "ERROR " + err.Error()
	}
	return ""
}
