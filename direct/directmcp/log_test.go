package directmcp

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/direct"
	"frontdesk/internal/metrics"
	"frontdesk/mcpfront"
)

// capture is a slog handler that keeps every record with its attributes
// as text, so a test can read what an operator would.
type capture struct {
	mu      *sync.Mutex
	records *[]captured
	attrs   []slog.Attr
}

type captured struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func newCapture() capture { return capture{mu: &sync.Mutex{}, records: &[]captured{}} }

func (capture) Enabled(context.Context, slog.Level) bool { return true }

func (c capture) Handle(_ context.Context, r slog.Record) error {
	rec := captured{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range c.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.records = append(*c.records, rec)
	return nil
}

func (c capture) WithAttrs(attrs []slog.Attr) slog.Handler {
	c.attrs = append(append([]slog.Attr{}, c.attrs...), attrs...)
	return c
}

func (c capture) WithGroup(string) slog.Handler { return c }

func (c capture) all() []captured {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]captured{}, *c.records...)
}

type guestIn struct {
	GuestName string `json:"guest_name"`
	Email     string `json:"email"`
}

// TestToolCallLogLine: one line per tool call with the server, the
// tool, the outcome, the code of a refusal or fault, and the duration,
// at a level that tells a business refusal (info) from an internal fault
// (error) and a protocol refusal (warn); never the guest's data that the
// arguments carry.
func TestToolCallLogLine(t *testing.T) {
	logs := newCapture()
	opts := mcpfront.Options{Logger: slog.New(logs), Metrics: metrics.New()}
	s := mcpfront.NewServer(&mcp.Implementation{Name: "log-test", Version: "1"}, "", "hub", opts)
	env := mcpfront.Env{Server: "hub", Log: opts.Log(), Metrics: opts.Metrics}
	b := bookingTools{phone: "+1 303 555 0100"}
	env.Safe = func(err error) (string, string, bool) { return b.answer(env, err) }
	input := mcpfront.Object(nil, map[string]*jsonschema.Schema{"guest_name": {Type: "string"}, "email": {Type: "string"}}, "email")
	tool := func(name string, err error) {
		mcpfront.Add(s, env, mcpfront.Tool[guestIn, guestIn]{Name: name, Title: name, Input: input,
			Run: func(_ context.Context, in guestIn) (guestIn, string, error) { return in, "Done.", err }})
	}
	tool("find_rooms", nil)
	tool("start_booking", &direct.Error{Code: "paused", Message: "Chat booking is briefly paused."})
	tool("confirm_booking", errors.New("store: disk full"))

	ctx := context.Background()
	cs := connectInMemory(t, s)
	guest := map[string]any{"guest_name": "Ada Lovelace", "email": "ada@example.org"}
	calls := []struct {
		name, tool string
		args       map[string]any
		want       string // outcome, code and level of the line
	}{
		{"success", "find_rooms", guest, "ok  INFO"},
		{"schema refusal", "find_rooms", map[string]any{"guest_name": "Ada Lovelace", "email": 42}, "refused invalid_arguments INFO"},
		{"business refusal", "start_booking", guest, "refused paused INFO"},
		{"internal fault", "confirm_booking", guest, "error fault ERROR"},
		{"unknown tool", "ada@example.org", guest, "protocol_error invalid_params WARN"},
	}
	for _, c := range calls {
		cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	}
	var lines []captured
	for _, r := range logs.all() {
		if r.msg == "tool call" {
			lines = append(lines, r)
		}
	}
	if len(lines) != len(calls) {
		t.Fatalf("%d tool call lines for %d calls: %+v", len(lines), len(calls), lines)
	}
	for i, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			l := lines[i]
			got := l.attrs["outcome"] + " " + l.attrs["code"] + " " + l.level.String()
			if got != c.want {
				t.Errorf("line = %q, want %q (%v)", got, c.want, l.attrs)
			}
			tool := c.tool
			if c.name == "unknown tool" {
				tool = "(invalid)" // a client's free text is not logged
			}
			if l.attrs["server"] != "hub" || l.attrs["tool"] != tool || l.attrs["duration_ms"] == "" {
				t.Errorf("line attributes = %v", l.attrs)
			}
		})
	}
	for _, r := range logs.all() {
		text := r.msg + " " + strings.Join(values(r.attrs), " ")
		for _, secret := range []string{"Ada", "Lovelace", "ada@example.org"} {
			if strings.Contains(text, secret) {
				t.Errorf("log line holds guest data %q: %s %v", secret, r.msg, r.attrs)
			}
		}
	}
}

// connectInMemory connects a client to s over in-memory transports; both
// sessions end with t.
func connectInMemory(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
