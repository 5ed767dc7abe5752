// Command bookbase is the transport floor of a chat booking, the baseline
// of bench/booking.sh with SERVER=bookbase: it stands in for `frontdesk
// serve` under bench/bookload and does only the work no implementation of
// a chat booking can leave out. start_booking commits one record to the
// same store (PostgreSQL or SQLite, through frontdesk's store, as the
// raw commits of bookload do) and mails a code over SMTP with STARTTLS to
// bookload's sink, on one SMTP session kept open as frontdesk keeps its
// sessions; confirm_booking checks the code. Both answer over the go-sdk's
// streamable HTTP, statelessly, with answers of the size frontdesk gives
// (a fixed text and structured content, not frontdesk's own bytes).
//
//	bookbase init --demo                   a config bookload can edit
//	bookbase serve --config F --addr A --data D
//
// Its one-at-a-time bookings per second over (raw commits per second / 4)
// is the floor no server could pass on this machine; serve sets GOGC=400
// when GOGC is unset, as frontdesk serve does.
//
// With BOOKBASE=spec in its environment it is the spec's floor instead:
// the durable steps and mails direct-booking.md §8 puts before each
// answer, and nothing else. start_booking stores the intent with the
// code's salted digest, mails the code and marks the intent open (two
// commits, step 4); confirm_booking reads the intent and proves the
// code, then in one commit takes the room's night against its vacancy,
// stores the reservation and closes the intent (steps 5 and 8), and attempts the guest's and the
// staff's notices before it answers (step 9). No limits, pricing, audit
// or outbox: what is left of frontdesk's cost against it is frontdesk's
// own.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net/http"
	"net/smtp"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/postgres"
	"frontdesk/sqlite"
	"frontdesk/store"
)

// demo is what `init --demo` prints: the two lines bookload edits.
const demo = "[mail]\ndriver = \"dev\"\n"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bookbase:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "init" {
		fmt.Print(demo)
		return nil
	}
	if len(args) == 0 || args[0] != "serve" {
		return errors.New("usage: bookbase init --demo | serve --config F --addr A --data D")
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	configPath := fs.String("config", "", "the config bookload wrote")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	data := fs.String("data", "", "data directory (SQLite)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	cfg, err := os.ReadFile(*configPath)
	if err != nil {
		return err
	}
	ctx := context.Background()
	st, err := openStore(ctx, string(cfg), *data)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }() // the process ends here
	port := regexp.MustCompile(`smtp_port = (\d+)`).FindStringSubmatch(string(cfg))
	if port == nil {
		return errors.New("the config names no smtp_port")
	}
	b := &booker{st: st, smtpAddr: "127.0.0.1:" + port[1], codes: map[string]string{}, spec: os.Getenv("BOOKBASE") == "spec"}
	s := mcp.NewServer(&mcp.Implementation{Name: "bookbase", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "start_booking", InputSchema: map[string]any{"type": "object"}}, b.start)
	s.AddTool(&mcp.Tool{Name: "confirm_booking", InputSchema: map[string]any{"type": "object"}}, b.confirm)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true})
	// Two paths, told apart by hand: bookload asks /readyz until it
	// answers, then calls the tools at /mcp.
	return http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			w.WriteHeader(http.StatusOK)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
}

// openStore opens the PostgreSQL database the config names, else SQLite
// in the data directory.
func openStore(ctx context.Context, cfg, data string) (store.Store, error) {
	if m := regexp.MustCompile(`database = "([^"]+)"`).FindStringSubmatch(cfg); m != nil {
		return postgres.Open(ctx, m[1])
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, filepath.Join(data, "bookbase.db"))
}

type booker struct {
	st       store.Store
	smtpAddr string
	mu       sync.Mutex // guards codes and the SMTP session
	codes    map[string]string
	smtp     *smtp.Client
	n        int
	spec     bool // the spec's floor (BOOKBASE=spec), not the transport's
}

type startArgs struct {
	Email string `json:"email"`
}

type confirmArgs struct {
	BookingID string `json:"booking_id"`
	Code      string `json:"code"`
}

// start commits one record and mails the code.
func (b *booker) start(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in startArgs
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Email == "" {
		return nil, errors.New("start_booking needs an email")
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return nil, err
	}
	code := fmt.Sprintf("%06d", n.Int64())
	b.mu.Lock()
	b.n++
	id := "bk_" + strconv.Itoa(b.n)
	b.codes[id] = code
	b.mu.Unlock()
	if b.spec {
		return b.startSpec(ctx, id, in.Email, code)
	}
	if _, err := b.st.Create(ctx, store.Record{Kind: "bench", Key: id, Value: []byte(code), UpdatedAt: time.Now()}); err != nil {
		return nil, err
	}
	if err := b.mail(in.Email, "Your booking code", "Your code is "+code+"."); err != nil {
		return nil, err
	}
	return answer(fmt.Sprintf(startAnswer, id)), nil
}

// intent is the spec floor's stored intent: the mailbox, the code's
// salted digest and whether the code left.
type intent struct {
	Email  string `json:"email"`
	Salt   string `json:"salt"`
	Digest string `json:"digest"`
	State  string `json:"state"`
}

func digest(salt, code string) string {
	sum := sha256.Sum256([]byte(salt + code))
	return hex.EncodeToString(sum[:])
}

func (in intent) record(id string, version int64) store.Record {
	v, _ := json.Marshal(in) // strings only: it always encodes
	return store.Record{Kind: "bench-intent", Key: id, Value: v, Version: version, UpdatedAt: time.Now()}
}

// startSpec stores the intent, mails the code and marks the intent open.
func (b *booker) startSpec(ctx context.Context, id, email, code string) (*mcp.CallToolResult, error) {
	in := intent{Email: email, Salt: rand.Text(), State: "sending"}
	in.Digest = digest(in.Salt, code)
	if _, err := b.st.Apply(ctx, []store.Write{{Op: store.OpCreate, Record: in.record(id, 0)}}); err != nil {
		return nil, err
	}
	if err := b.mail(email, "Your booking code", "Your code is "+code+"."); err != nil {
		return nil, err
	}
	in.State = "open"
	if _, err := b.st.Apply(ctx, []store.Write{{Op: store.OpSwap, Record: in.record(id, 1)}}); err != nil {
		return nil, err
	}
	return answer(fmt.Sprintf(startAnswer, id)), nil
}

// confirmSpec proves the code against the stored intent, then takes the
// room's night against its vacancy, stores the reservation and closes
// the intent in one commit, and attempts both notices. (Holds and
// reservations proper are the reservation desk's alone to write; a
// vacancy counter is the same conditional write.)
func (b *booker) confirmSpec(ctx context.Context, id, code string) (*mcp.CallToolResult, error) {
	rec, err := b.st.Get(ctx, "bench-intent", id)
	if err != nil {
		return nil, err
	}
	var in intent
	if err := json.Unmarshal(rec.Value, &in); err != nil {
		return nil, err
	}
	if in.State != "open" || digest(in.Salt, code) != in.Digest {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "wrong code"}}}, nil
	}
	in.State = "completed"
	ref := "RIV-" + id
	night := time.Now().AddDate(0, 0, 30).Format(time.DateOnly)
	if _, err := b.st.Apply(ctx, []store.Write{
		{Op: store.OpSwap, Record: in.record(id, rec.Version)},
		// The room's night, counted against its vacancy: a conditional
		// write of the night's inventory, as a hold is.
		{Op: store.OpTake, Tally: &store.Tally{Name: "bench-room/riverside/double/" + night, Limit: 1 << 30}},
		{Op: store.OpCreate, Record: store.Record{Kind: "bench-reservation", Key: ref, Value: []byte(`{"state":"reserved"}`), UpdatedAt: time.Now()}},
	}); err != nil {
		return nil, err
	}
	guest := b.mail(in.Email, "Your reservation", "Reservation "+ref+" is held for you.")
	staff := b.mail("desk@example.com", "A booking from chat", "Reservation "+ref+" came from chat.")
	if guest != nil || staff != nil {
		return nil, errors.Join(guest, staff) // the load counts it as failed
	}
	return answer(fmt.Sprintf(confirmAnswer, id)), nil
}

// confirm checks the code.
func (b *booker) confirm(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in confirmArgs
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	if b.spec {
		return b.confirmSpec(ctx, in.BookingID, in.Code)
	}
	b.mu.Lock()
	code, ok := b.codes[in.BookingID]
	delete(b.codes, in.BookingID)
	b.mu.Unlock()
	if !ok || code != in.Code {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "wrong code"}}}, nil
	}
	return answer(fmt.Sprintf(confirmAnswer, in.BookingID)), nil
}

// mail sends the code on the kept SMTP session, opening it (with
// STARTTLS) the first time and again after a failure.
func (b *booker) mail(to, subject, body string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.smtp == nil {
		c, err := smtp.Dial(b.smtpAddr)
		if err != nil {
			return err
		}
		if err := c.StartTLS(&tls.Config{ServerName: "127.0.0.1"}); err != nil {
			_ = c.Close() // the session failed already
			return err
		}
		b.smtp = c
	}
	err := send(b.smtp, to, subject, body)
	if err != nil {
		_ = b.smtp.Close() // a broken session is opened again
		b.smtp = nil
	}
	return err
}

func send(c *smtp.Client, to, subject, body string) error {
	if err := c.Mail("desk@example.com"); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	msg := "From: desk@example.com\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\n" + body + "\r\n"
	if _, err := w.Write([]byte(msg)); err != nil {
		return err
	}
	return w.Close()
}

// The answers have the shape and about the size of frontdesk's.
const (
	startAnswer   = `{"booking_id":%q,"status":"code_sent","property":"riverside","roomtype":"double","checkin":"2027-01-01","checkout":"2027-01-02","nights":1,"total":"131.79","currency":"USD","next":"Ask the guest for the six-digit code sent to their email, then call confirm_booking with it. The code expires in 15 minutes."}`
	confirmAnswer = `{"booking_id":%q,"status":"confirmed","reservation_number":"RIV-5CB7043A203DA993","property":"riverside","name":"Riverside Inn","roomtype":"double","checkin":"2027-01-01","checkout":"2027-01-02","nights":1,"total":"131.79","currency":"USD","next":"Give the guest the reservation number; a confirmation is on its way by email."}`
)

func answer(body string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "Done."}, &mcp.TextContent{Text: body}},
		StructuredContent: json.RawMessage(body),
	}
}
