package office

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/direct"
	"frontdesk/direct/chatdoor"
	"frontdesk/direct/directtest"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/internal/signature/signaturetest"
	"frontdesk/mail"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/store"
)

// testNow is Monday 30 November 2026, 10:00 in Denver: office hours.
var testNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

var web = reservation.Caller{Host: "localhost:8080"}

var errNotSentForTest = fmt.Errorf("rejected at RCPT: %w: %w", message.ErrNotSent, message.ErrRecipientRefused)

// world is the demo business with the chat door in front of it and the
// office behind, on a fresh SQLite file with the dev mailbox, a fixed
// clock and seeded randomness.
type world struct {
	t      *testing.T
	cfg    config.Config
	st     store.Store
	clock  *clock.Fixed
	mail   *failingMail
	svc    *Office
	chat   *chatdoor.Door
	booker *direct.Service
}

func newWorld(t *testing.T, edit ...func(*config.Config)) *world {
	t.Helper()
	cfg, st := directtest.Demo(t, edit...)
	return newWorldOn(t, cfg, st)
}

func newWorldOn(t *testing.T, cfg config.Config, st store.Store) *world {
	clk := clock.NewFixed(testNow)
	fm := &failingMail{dev: mail.NewDev(st, clk, nil)}
	svc := direct.New(direct.Options{
		Config: direct.Config{Portfolio: cfg.Portfolio, Mail: cfg.Mail.Addresses, Deployment: cfg.Deployment.Deployment}, Store: st, Pricer: pricing.New(cfg.Portfolio, "http://localhost:8080"), Clock: clk,
		Rand: random.Seeded([32]byte{1}), Mail: fm, Resolve: directtest.Resolver(cfg)})
	return &world{t: t, cfg: cfg, st: st, clock: clk, mail: fm, booker: svc, chat: chatdoor.New(svc),
		svc: New(Options{Bookings: svc, Core: svc.Core(), Clock: clk, Pricer: pricing.New(cfg.Portfolio, "http://localhost:8080")})}
}

// failingMail is the dev mailbox, refusing the next send when told to.
type failingMail struct {
	mu   sync.Mutex
	next error
	dev  *mail.Dev
}

func (f *failingMail) Send(ctx context.Context, e message.Email) error {
	f.mu.Lock()
	err := f.next
	f.next = nil
	f.mu.Unlock()
	if err != nil {
		return err
	}
	return f.dev.Send(ctx, e)
}

func (f *failingMail) failNext(err error) {
	f.mu.Lock()
	f.next = err
	f.mu.Unlock()
}

func args(kv ...any) chatdoor.Args { return directtest.Args(kv...) }

// stayArgs is a valid start for Riverside's double.
func stayArgs(extra ...any) chatdoor.Args { return directtest.Stay(extra...) }

var codePattern = regexp.MustCompile(`code is (\d{6})\.`)

// lastCode reads the code of the newest mail delivered to addr.
func (w *world) lastCode(addr string) string {
	w.t.Helper()
	msgs, err := w.mail.dev.Messages(context.Background())
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

func (w *world) start(ctx context.Context, c reservation.Caller, a chatdoor.Args) (*direct.StartResult, error) {
	return w.chat.Start(ctx, c, a)
}

func (w *world) confirm(ctx context.Context, c reservation.Caller, a chatdoor.Args) (*direct.ConfirmResult, error) {
	return w.chat.Confirm(ctx, c, a)
}

// book runs a whole chat booking and returns its reference.
func (w *world) book(a chatdoor.Args) string {
	w.t.Helper()
	ctx := context.Background()
	res, err := w.start(ctx, web, a)
	if err != nil {
		w.t.Fatalf("start: %v", refusalText(err))
	}
	email, _ := a["email"].(string)
	if email == "" {
		email = "ada@example.com"
	}
	conf, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode(email)))
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

// formTokens numbers the tests' form requests, each a new one.
var formTokens atomic.Int64

func formRequest(t testing.TB) reservation.FormRequest {
	return reservation.FormRequest{Location: "riverside", RoomType: "double", Checkin: "2026-12-30", Checkout: "2027-01-02",
		Name: "Grace Hopper", Email: "grace@example.com", Phone: "(303) 555-0142", Guests: "2",
		Notes: "Arriving by train.", Signature: signaturetest.Drawn(t), Address: "192.0.2.10", Token: directtest.FormToken(formTokens.Add(1))}
}
