package mail

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"frontdesk/business"
	"frontdesk/internal/clock"
	"frontdesk/internal/page"
	"frontdesk/message"
	"frontdesk/store"
)

// devKind is the store kind of captured mail. Keys are the capture time
// as zero-padded UTC nanoseconds, "-", and the email's ID, so that the
// store's ascending key order is oldest first.
const devKind = "devmail"

// devShown is how many of the newest messages the mailbox shows.
const devShown = 500

// devPage is how many records one List call reads while paging.
const devPage = 200

//go:embed templates/*.html
var templateFS embed.FS

var pages = page.Must(templateFS, "templates/*.html", nil)

// Dev is the development mail driver: it keeps every message in the store
// instead of sending it, so `frontdesk serve` and `frontdesk mcp`, which
// are separate processes on the same data, share one mailbox, and a
// person reads it at /dev/mail.
type Dev struct {
	records store.Records
	clock   clock.Clock
	logger  *slog.Logger
	// Nav is the navigation the mailbox page shows, as every page does.
	Nav []page.Link
	// Limits, when set, are explained on the page: a code that never
	// arrives is most often a paused limit.
	Limits *business.Limits
	// Paused, when set, lists the ceilings that are full now, so the page
	// can say which one paused a booking and when it lifts.
	Paused func(context.Context) ([]Pause, error)

	// A send is done once its message is stored: sends that arrive
	// while one write runs wait for it and go together in the next
	// Apply (a group commit), so the mailbox's commits do not queue one
	// by one behind the bookings that mail.
	mu      sync.Mutex
	queued  []queuedMail
	writing sync.Mutex // one write of the queue at a time
}

// queuedMail is one message waiting for its write, and where its write's
// result goes.
type queuedMail struct {
	record store.Record
	done   chan error
}

// Pause is an adjustable chat-booking ceiling that is full, as the page
// shows it: the [limits] setting, the location ("" for the whole
// business), how full, and when one more fits (zero for a pending
// ceiling, which lifts when staff decide).
type Pause struct {
	Setting     string
	Location    string
	Used, Limit int
	Lifts       time.Time
}

var _ message.Sender = (*Dev)(nil)

// NewDev returns a dev driver on records, stamping messages with clk.
// A nil logger discards.
func NewDev(records store.Records, clk clock.Clock, logger *slog.Logger) *Dev {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Dev{records: records, clock: clk, logger: logger.With("component", "devmail")}
}

// DevMessage is one captured message and when it was captured.
type DevMessage struct {
	message.Email
	ReceivedAt time.Time
}

// devRecord is the stored form of a DevMessage.
type devRecord struct {
	ID         string    `json:"id"`
	From       string    `json:"from"`
	To         []string  `json:"to"`
	ReplyTo    string    `json:"reply_to,omitempty"`
	Subject    string    `json:"subject"`
	Text       string    `json:"text"`
	Date       time.Time `json:"date"`
	ReceivedAt time.Time `json:"received_at"`
}

// Send captures e and returns once it is stored, so a send reported as
// done is in the mailbox. A second capture of the same ID at the same
// instant is a retry of the same send and keeps one copy. A store failure
// is the send's error: the message is not in the mailbox.
func (d *Dev) Send(ctx context.Context, e message.Email) error {
	now := d.clock.Now().UTC()
	value, err := json.Marshal(devRecord{
		ID: e.ID, From: e.From, To: nonNil(e.To), ReplyTo: e.ReplyTo,
		Subject: e.Subject, Text: e.Text, Date: e.Date.UTC(), ReceivedAt: now,
	})
	if err != nil {
		return fmt.Errorf("dev mail: %w: %w", message.ErrNotSent, err)
	}
	key := fmt.Sprintf("%020d-%s", now.UnixNano(), e.ID)
	q := queuedMail{record: store.Record{Kind: devKind, Key: key, Value: value, UpdatedAt: now}, done: make(chan error, 1)}
	d.mu.Lock()
	d.queued = append(d.queued, q)
	d.mu.Unlock()
	// The write runs to its end even if the send's caller gives up, so a
	// message is never half reported.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	d.flush(wctx)
	if err := <-q.done; err != nil {
		return fmt.Errorf("dev mail: %w: %w", message.ErrNotSent, err)
	}
	return nil
}

// flush stores every queued message, in one Apply when it can, and tells
// each its result. A caller whose message another flush took finds the
// queue empty and reads its result from that flush.
func (d *Dev) flush(ctx context.Context) {
	d.writing.Lock()
	defer d.writing.Unlock()
	d.mu.Lock()
	batch := d.queued
	d.queued = nil
	d.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	writes := make([]store.Write, len(batch))
	for i, q := range batch {
		writes[i] = store.Write{Op: store.OpCreate, Record: q.record}
	}
	_, err := d.records.Apply(ctx, writes)
	if errors.Is(err, store.ErrExists) {
		// A retry's copy is stored already: keep the others one by one.
		for _, q := range batch {
			_, e := d.records.Create(ctx, q.record)
			if errors.Is(e, store.ErrExists) {
				e = nil
			}
			if e != nil {
				d.logger.WarnContext(ctx, "store dev mail", "messages", 1, "err", e)
			}
			q.done <- e
		}
		return
	}
	if err != nil {
		d.logger.WarnContext(ctx, "store dev mail", "messages", len(batch), "err", err)
	}
	for _, q := range batch {
		q.done <- err
	}
}

// Close has nothing to store: every send stored its message before it
// returned.
func (d *Dev) Close(context.Context) error {
	return nil
}

// Messages returns the newest captured messages, at most 500, oldest
// first.
func (d *Dev) Messages(ctx context.Context) ([]DevMessage, error) {
	var out []DevMessage
	after := ""
	for {
		page, err := d.records.List(ctx, devKind, "", after, devPage)
		if err != nil {
			return nil, fmt.Errorf("dev mail: list: %w", err)
		}
		for _, r := range page {
			var v devRecord
			if err := json.Unmarshal(r.Value, &v); err != nil {
				return nil, fmt.Errorf("dev mail: record %s: %w", r.Key, err)
			}
			out = append(out, DevMessage{
				Email:      message.Email{ID: v.ID, From: v.From, To: v.To, ReplyTo: v.ReplyTo, Subject: v.Subject, Text: v.Text, Date: v.Date},
				ReceivedAt: v.ReceivedAt,
			})
		}
		if len(out) > devShown {
			out = slices.Delete(out, 0, len(out)-devShown)
		}
		if len(page) < devPage {
			return out, nil
		}
		after = page[len(page)-1].Key
	}
}

// jsonMessage is one message on the wire of /dev/mail.json.
type jsonMessage struct {
	ID         string   `json:"id"`
	From       string   `json:"from"`
	To         []string `json:"to"`
	Subject    string   `json:"subject"`
	Text       string   `json:"text"`
	ReceivedAt string   `json:"received_at"`
}

// ServeJSON answers GET /dev/mail.json, for programs: every message kept,
// oldest first.
func (d *Dev) ServeJSON(w http.ResponseWriter, r *http.Request) {
	msgs, err := d.Messages(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	out := struct {
		Messages []jsonMessage `json:"messages"`
	}{Messages: make([]jsonMessage, 0, len(msgs))}
	for _, m := range msgs {
		out.Messages = append(out.Messages, jsonMessage{
			ID: m.ID, From: m.From, To: nonNil(m.To), Subject: m.Subject, Text: m.Text,
			ReceivedAt: m.ReceivedAt.UTC().Format(time.RFC3339),
		})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Mail text is full of "<", ">" and "&"; the response is JSON with
	// nosniff, never HTML, so they are left readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		d.fail(w, r, err)
		return
	}
	header(w, "application/json")
	w.Write(buf.Bytes())
}

// ServeHTML answers GET /dev/mail, for people: newest first.
func (d *Dev) ServeHTML(w http.ResponseWriter, r *http.Request) {
	msgs, err := d.Messages(r.Context())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	slices.Reverse(msgs) // a person reads the newest first
	var paused []Pause
	if d.Paused != nil {
		if paused, err = d.Paused(r.Context()); err != nil {
			d.fail(w, r, err)
			return
		}
	}
	header(w, "text/html; charset=utf-8")
	pages.Render(w, r, d.logger, http.StatusOK, "devmail.html", d.Nav, struct {
		Messages []DevMessage
		Limits   *business.Limits
		Checked  bool // Paused was asked, so an empty list means none is full
		Paused   []Pause
	}{msgs, d.Limits, d.Paused != nil, paused})
}

// header marks the mailbox as uncacheable: it holds sign-in codes.
func header(w http.ResponseWriter, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

func (d *Dev) fail(w http.ResponseWriter, r *http.Request, err error) {
	d.logger.ErrorContext(r.Context(), "dev mailbox failed", "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
