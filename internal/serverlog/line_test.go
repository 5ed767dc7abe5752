package serverlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"
)

var lineTime = time.Date(2026, 12, 7, 20, 0, 18, 165137807, time.UTC)

// both writes r through a JSONHandler and through a lineHandler, each
// made by build, and returns the two outputs.
func both(build func(slog.Handler) slog.Handler, r slog.Record, opts *slog.HandlerOptions) (want, got string) {
	var a, b bytes.Buffer
	_ = build(slog.NewJSONHandler(&a, opts)).Handle(context.Background(), r)
	_ = build(newLineHandler(&b, opts)).Handle(context.Background(), r)
	return a.String(), b.String()
}

func record(t time.Time, level slog.Level, msg string, attrs ...slog.Attr) slog.Record {
	r := slog.NewRecord(t, level, msg, 0)
	r.AddAttrs(attrs...)
	return r
}

type valuer struct{}

func (valuer) LogValue() slog.Value { return slog.StringValue("resolved") }

// TestLineHandlerWritesWhatJSONHandlerWrites: every record, whether the
// line handler writes it or hands it on, comes out byte for byte as the
// JSON handler writes it.
func TestLineHandlerWritesWhatJSONHandlerWrites(t *testing.T) {
	plain := func(h slog.Handler) slog.Handler { return h }
	request := []slog.Attr{
		slog.String("method", "POST"), slog.String("route", "/mcp"), slog.Int("status", 200),
		slog.Float64("duration_ms", 1.862), slog.String("server", "hub"), slog.String("tool", "quote_stay"),
		slog.String("outcome", "ok"), slog.String("request_id", "e1600fd500001ab5"),
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.001, 1.862, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.5e300, -2.5e-10, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	strs := []string{"", "plain", `quote " and \ backslash`, "tab\tnewline\nreturn\r", "\x00\x01\x1f\x7f", "<b>&amp;</b>", "caf\u00e9 \u2603 \U0001F600", "line\u2028para\u2029", "bad \xff\xfe utf-8", "\xe2\x80", "ends in \xc3"}
	cases := []struct {
		name  string
		build func(slog.Handler) slog.Handler
		r     slog.Record
		opts  *slog.HandlerOptions
	}{
		{"request line", func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{slog.String("component", "http")}) }, record(lineTime, slog.LevelInfo, "request", request...), nil},
		{"no attributes", plain, record(lineTime, slog.LevelWarn, "started"), nil},
		{"levels between", plain, record(lineTime, slog.LevelInfo+2, "odd level", slog.Bool("b", true), slog.Bool("c", false)), nil},
		{"debug and error", plain, record(lineTime, slog.LevelError+4, "x", slog.Uint64("u", math.MaxUint64), slog.Int64("i", math.MinInt64)), nil},
		{"duration", plain, record(lineTime, slog.LevelInfo, "d", slog.Duration("took", 1500*time.Millisecond)), nil},
		{"zero time", plain, record(time.Time{}, slog.LevelInfo, "no time", slog.Int("n", 1)), nil},
		{"far time", plain, record(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), slog.LevelInfo, "far"), nil},
		{"zoned time", plain, record(time.Date(2026, 3, 8, 2, 30, 0, 5, time.FixedZone("X", -7*3600)), slog.LevelInfo, "zoned"), nil},
		{"time attribute", plain, record(lineTime, slog.LevelInfo, "t", slog.Time("at", lineTime)), nil},
		{"group attribute", plain, record(lineTime, slog.LevelInfo, "g", slog.Int("a", 1), slog.Group("grp", slog.String("k", "v")), slog.Int("b", 2)), nil},
		{"empty group", plain, record(lineTime, slog.LevelInfo, "g", slog.Group("grp")), nil},
		{"any and error", plain, record(lineTime, slog.LevelInfo, "a", slog.Any("err", errors.New("boom")), slog.Any("m", map[string]int{"x": 1})), nil},
		{"log valuer", plain, record(lineTime, slog.LevelInfo, "v", slog.Any("v", valuer{})), nil},
		{"empty key", plain, record(lineTime, slog.LevelInfo, "k", slog.String("", "v")), nil},
		{"empty attribute", plain, record(lineTime, slog.LevelInfo, "k", slog.Attr{}, slog.Int("n", 1)), nil},
		{"repeated keys", plain, record(lineTime, slog.LevelInfo, "k", slog.Int("n", 1), slog.Int("n", 2)), nil},
		{"with group", func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.Int("a", 1)}).WithGroup("g").WithAttrs([]slog.Attr{slog.Int("b", 2)})
		}, record(lineTime, slog.LevelInfo, "m", slog.Int("c", 3)), nil},
		{"with empty group", func(h slog.Handler) slog.Handler { return h.WithGroup("") }, record(lineTime, slog.LevelInfo, "m", slog.Int("c", 3)), nil},
		{"with complex attribute", func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("a", "x"), slog.Any("v", valuer{})}).WithAttrs([]slog.Attr{slog.Int("b", 2)})
		}, record(lineTime, slog.LevelInfo, "m", slog.Int("c", 3)), nil},
		{"with nothing", func(h slog.Handler) slog.Handler { return h.WithAttrs(nil).WithAttrs([]slog.Attr{}) }, record(lineTime, slog.LevelInfo, "m"), nil},
		{"replace attr", plain, record(lineTime, slog.LevelInfo, "m", slog.Int("c", 3)), &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { a.Key += "!"; return a }}},
		{"add source", plain, record(lineTime, slog.LevelInfo, "m"), &slog.HandlerOptions{AddSource: true}},
	}
	for _, f := range floats {
		cases = append(cases, struct {
			name  string
			build func(slog.Handler) slog.Handler
			r     slog.Record
			opts  *slog.HandlerOptions
		}{"float", plain, record(lineTime, slog.LevelInfo, "f", slog.Float64("f", f)), nil})
	}
	for _, s := range strs {
		cases = append(cases, struct {
			name  string
			build func(slog.Handler) slog.Handler
			r     slog.Record
			opts  *slog.HandlerOptions
		}{"string", func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{slog.String(s, s)}) }, record(lineTime, slog.LevelInfo, s, slog.String(s, s)), nil})
	}
	for _, c := range cases {
		opts := c.opts
		if opts == nil {
			opts = &slog.HandlerOptions{}
		}
		if want, got := both(c.build, c.r, opts); got != want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, want)
		}
	}
}

// TestLineHandlerWritesTheRequestLineItself: the line a server writes
// for every request does not go through the JSON handler.
func TestLineHandlerWritesTheRequestLineItself(t *testing.T) {
	h := newLineHandler(io.Discard, &slog.HandlerOptions{})
	var counted countingHandler
	h.json = &counted
	r := record(lineTime, slog.LevelInfo, "request", slog.String("route", "/mcp"), slog.Int("status", 200), slog.Float64("duration_ms", 0.25))
	if err := h.WithAttrs([]slog.Attr{slog.String("component", "http")}).Handle(context.Background(), r); err != nil || counted.n != 0 {
		t.Fatalf("request line: err %v, %d handed on, want written here", err, counted.n)
	}
}

type countingHandler struct{ n int }

func (c *countingHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (c *countingHandler) Handle(context.Context, slog.Record) error { c.n++; return nil }
func (c *countingHandler) WithAttrs([]slog.Attr) slog.Handler        { return c }
func (c *countingHandler) WithGroup(string) slog.Handler             { return c }

func FuzzLineHandler(f *testing.F) {
	f.Add("request", "route", "/mcp", "k", 1.862, int64(200), true)
	f.Add("caf\u00e9\u2028", "\x00", "bad \xff", "", 1e-7, int64(-1), false)
	f.Fuzz(func(t *testing.T, msg, key, s, key2 string, fl float64, n int64, b bool) {
		r := record(lineTime, slog.Level(n%16), msg, slog.String(key, s), slog.Float64(key2, fl), slog.Int64(s, n), slog.Bool(key, b))
		build := func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{slog.String(key2, msg)}) }
		if want, got := both(build, r, &slog.HandlerOptions{Level: slog.LevelDebug - 8}); got != want {
			t.Fatalf("\n got %q\nwant %q", got, want)
		}
	})
}

func BenchmarkRequestLine(b *testing.B) {
	for _, c := range []struct {
		name string
		h    slog.Handler
	}{{"json", slog.NewJSONHandler(io.Discard, nil)}, {"line", newLineHandler(io.Discard, &slog.HandlerOptions{})}} {
		b.Run(c.name, func(b *testing.B) {
			h := c.h.WithAttrs([]slog.Attr{slog.String("component", "http")})
			ctx := context.Background()
			for b.Loop() {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.String("method", "POST"), slog.String("route", "/mcp"), slog.Int("status", 200), slog.Float64("duration_ms", 1.862))
				r.AddAttrs(slog.String("server", "hub"), slog.String("tool", "quote_stay"), slog.String("outcome", "ok"), slog.String("request_id", "e1600fd500001ab5"))
				_ = h.Handle(ctx, r)
			}
		})
	}
}
