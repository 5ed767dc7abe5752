package direct

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/direct/chatdoor/catalogue"
	"frontdesk/direct/directtest"
	"frontdesk/internal/civil"
	"frontdesk/internal/clock"
	"frontdesk/internal/random"
	"frontdesk/mail"
	"frontdesk/message"
	"frontdesk/pricing"
	"frontdesk/reservation"
	"frontdesk/store"
)

// testNow is Monday 30 November 2026, 10:00 in Denver: office hours.
var testNow = time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)

// faultyMail delivers through the real dev mailbox unless told to fail.
type faultyMail struct {
	mu    sync.Mutex
	next  error                    // returned once by the next Send
	last  map[string]message.Email // the newest delivered mail by recipient
	sends map[string]int           // deliveries by Message-ID
	dev   *mail.Dev
}

func (f *faultyMail) Send(ctx context.Context, e message.Email) error {
	f.mu.Lock()
	err := f.next
	f.next = nil
	f.mu.Unlock()
	if err != nil {
		return err
	}
	if err := f.dev.Send(ctx, e); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.last == nil {
		f.last, f.sends = map[string]message.Email{}, map[string]int{}
	}
	f.last[e.To[0]] = e
	f.sends[e.ID]++
	return nil
}

// sentTwice lists the Message-IDs delivered more than once.
func (f *faultyMail) sentTwice() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var twice []string
	for id, n := range f.sends {
		if n > 1 {
			twice = append(twice, id)
		}
	}
	return twice
}

func (f *faultyMail) failNext(err error) {
	f.mu.Lock()
	f.next = err
	f.mu.Unlock()
}

type world struct {
	t     testing.TB
	cfg   config.Config
	st    store.Store
	clock *clock.Fixed
	mail  *faultyMail
	svc   *Service
}

// newWorld is the demo business on a fresh SQLite file with the dev
// mailbox, a fixed clock and seeded randomness.
func newWorld(t *testing.T, edit ...func(*config.Config)) *world {
	t.Helper()
	cfg, st := directtest.Demo(t, edit...)
	return newWorldOn(t, cfg, st)
}

func newWorldOn(t testing.TB, cfg config.Config, st store.Store) *world {
	clk := clock.NewFixed(testNow)
	fm := &faultyMail{dev: mail.NewDev(st, clk, nil)}
	pricer := pricing.New(cfg.Portfolio, "http://localhost:8080")
	w := &world{t: t, cfg: cfg, st: st, clock: clk, mail: fm}
	w.svc = New(Options{Config: bookingConfig(cfg), Store: st, Pricer: pricer, Clock: clk, Rand: random.SeededBy(1), Mail: fm,
		Resolve: directtest.Resolver(cfg)})
	return w
}

// bookingConfig is what the command hands the service of the file cfg.
func bookingConfig(cfg config.Config) Config {
	return Config{Portfolio: cfg.Portfolio, Mail: cfg.Mail.Addresses, Deployment: cfg.Deployment.Deployment}
}

var web = reservation.Caller{Host: "localhost:8080"}

// Args are a booking tool's arguments, as the tests write them; start,
// confirm, lookup and cancel turn them into typed requests.
type Args map[string]any

func args(kv ...any) Args { return directtest.Args(kv...) }

// stayArgs is a valid start for Riverside's double.
func stayArgs(extra ...any) Args { return directtest.Stay(extra...) }

func (w *world) messages() []mail.DevMessage {
	w.t.Helper()
	msgs, err := w.mail.dev.Messages(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	return msgs
}

var codePattern = regexp.MustCompile(`code is (\d{6})\.`)

// lastCode reads the code of the newest mail delivered to addr.
func (w *world) lastCode(addr string) string {
	w.t.Helper()
	w.mail.mu.Lock()
	e := w.mail.last[addr]
	w.mail.mu.Unlock()
	if m := codePattern.FindStringSubmatch(e.Text); m != nil {
		return m[1]
	}
	w.t.Fatalf("no code mailed to %s", addr)
	return ""
}

func refusalText(err error) string {
	if r, ok := AsError(err); ok {
		return worded(r)
	}
	if err != nil {
		return "ERROR " + err.Error()
	}
	return ""
}

// worded is a refusal's text as the chat door words it.
func worded(r *Error) string {
	if r.Message != "" {
		return r.Message
	}
	// A deployment refusal is the one the start-call wrapper changes: it
	// carries a form only when a start call gave one.
	code := string(r.Code)
	text, ok := catalogue.Word(catalogue.Answer{Code: code, Rule: catalogue.Rule(code, strings.HasPrefix(code, "deploy_")), Phone: r.Phone, Form: r.Form, Values: r.Values})
	if !ok {
		return "UNWORDED " + code
	}
	return text
}

// Catalogue sentences the tests compare with.
var (
	sentWrongCode, _       = catalogue.Sentence("wrong_code")
	sentCancelNotInChat, _ = catalogue.Sentence("cancel_not_in_chat")
	sentPausedForStaff, _  = catalogue.Sentence("paused_for_staff")
)

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// book runs a whole booking for the given start args and returns its
// reference.
func (w *world) book(a Args) string {
	w.t.Helper()
	conf, err := w.startConfirm(a)
	if err != nil {
		w.t.Fatalf("confirm: %v", refusalText(err))
	}
	return conf.ReservationNumber
}

// startConfirm starts a booking with a and confirms it with the code
// mailed for it; a refused start ends the test.
func (w *world) startConfirm(a Args) (*ConfirmResult, error) {
	w.t.Helper()
	res, err := w.start(context.Background(), web, a)
	if err != nil {
		w.t.Fatalf("start: %v", refusalText(err))
	}
	email, _ := a["email"].(string)
	return w.confirm(context.Background(), web, args("booking_id", res.BookingID, "code", w.lastCode(email)))
}

// text is a string argument, or "" when absent or not a string.
func text(a Args, key string) string {
	s, _ := a[key].(string)
	return s
}

// start calls Start with the request well-formed arguments name, as the
// chat door does once their fields pass its checks: a booking_id asks
// for a resend, and absent guests count one.
func (w *world) start(ctx context.Context, c reservation.Caller, a Args) (*StartResult, error) {
	return startOn(w.svc, ctx, c, a)
}

func startOn(svc *Service, ctx context.Context, c reservation.Caller, a Args) (*StartResult, error) {
	if id := text(a, "booking_id"); id != "" {
		return svc.Start(ctx, c, StartRequest{BookingID: id})
	}
	l, _ := svc.Resolve(text(a, "property"))
	unit, _ := l.Unit(text(a, "roomtype"))
	in, _ := civil.Parse(text(a, "checkin"))
	out, _ := civil.Parse(text(a, "checkout"))
	email, _ := reservation.ParseEmail(text(a, "email"))
	phone, _ := reservation.ParsePhone(text(a, "phone"), svc.cfg.Business.PhoneCountryCode)
	guests := 1
	if g, ok := a["guests"].(float64); ok {
		guests = int(g)
	}
	return svc.Start(ctx, c, StartRequest{
		Location: l, RoomType: unit.Type, Checkin: in, Checkout: out, Name: reservation.CleanName(text(a, "guest_name")),
		Email: email, Phone: phone, Notes: text(a, "notes"), Guests: guests,
	})
}

// confirm, lookup and cancel call the typed operations with the request
// well-formed arguments name, as the chat door does once their fields
// pass its checks.
// confirm and cancel wait for the notice outcomes their answers leave
// behind, so a test reads the store as the operation left it. They use
// Settle, not Wait: tests run them in parallel, and Wait is for shutdown,
// once no request runs.
func (w *world) confirm(ctx context.Context, c reservation.Caller, a Args) (*ConfirmResult, error) {
	defer w.svc.Settle(context.Background())
	return w.svc.Confirm(ctx, c, ConfirmRequest{BookingID: text(a, "booking_id"), Code: text(a, "code")})
}

func (w *world) lookup(ctx context.Context, c reservation.Caller, a Args) (*LookupResult, error) {
	return w.svc.Lookup(ctx, c, LookupRequest{Reference: text(a, "reservation_number"), Last4: text(a, "phone_last4")})
}

func (w *world) cancel(ctx context.Context, c reservation.Caller, a Args) (*reservation.CancelResult, error) {
	defer w.svc.Settle(context.Background())
	return w.svc.Cancel(ctx, c, CancelRequest{
		Reference: text(a, "reservation_number"), Last4: text(a, "phone_last4"),
		CancelID: text(a, "cancel_id"), Code: text(a, "code"),
	})
}
