package requestid

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"0af7651916cd43dd8448eb211c80319c", true},
		{"req-1.2:3_x", true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"a b", false},
		{"a\nlevel=ERROR", false},
		{"ada@example.com", false},
	}
	for _, tt := range tests {
		if got := Valid(tt.id); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

// TestHandlerAddsIdentity: lines logged with the request's context carry
// its id, and its reference once noted; other lines carry neither.
func TestHandlerAddsIdentity(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil))).With("component", "x")
	ctx := With(context.Background(), "r1")
	log.InfoContext(ctx, "before")
	SetReference(ctx, "RIV-1")
	log.InfoContext(ctx, "after")
	log.Info("outside")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i, want := range []string{"component=x request_id=r1", "component=x request_id=r1 reference=RIV-1", "component=x"} {
		if !strings.HasSuffix(lines[i], want) {
			t.Errorf("line %d = %q, want it to end %q", i, lines[i], want)
		}
	}
}

// TestSourceIDs: ids are 16 hex digits, distinct, and their prefix comes
// from the random source, so a fixed source repeats them.
func TestSourceIDs(t *testing.T) {
	s, err := NewSource(strings.NewReader("\x01\x02\x03\x04"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Next()+" "+s.Next(), "0102030400000001 0102030400000002"; got != want {
		t.Fatalf("ids = %s, want %s", got, want)
	}
	if _, err := NewSource(strings.NewReader("")); err == nil {
		t.Fatal("NewSource on an empty random source = nil, want an error")
	}
}

// TestJoin: work joined to a request logs as that request, and the
// reference it notes reaches the request's own context.
func TestJoin(t *testing.T) {
	session := With(context.Background(), "first")
	req := With(context.Background(), "second")
	call := Join(session, req)
	SetReference(call, "RIV-1")
	if got := ID(call); got != "second" {
		t.Errorf("ID = %q, want second", got)
	}
	if got := Reference(req); got != "RIV-1" {
		t.Errorf("the request's reference = %q, want RIV-1", got)
	}
	if got := Reference(session); got != "" {
		t.Errorf("the session's reference = %q, want none", got)
	}
	if got := ID(Join(session, context.Background())); got != "first" {
		t.Errorf("joined to no request: ID = %q, want first", got)
	}
}

// TestNoteCallGoesOnceOnTheRequestLine: the request's line takes the
// first call it carried; a second call of the same request, a call after
// the line is written, and a call outside any request log their own.
func TestNoteCallGoesOnceOnTheRequestLine(t *testing.T) {
	first, second := slog.String("tool", "find_rooms"), slog.String("tool", "quote_stay")
	if NoteCall(context.Background(), first) {
		t.Fatal("a call outside any request was noted")
	}
	req := With(context.Background(), "req-1")
	call := Join(context.Background(), req)
	if !NoteCall(call, first) {
		t.Fatal("the first call of a request was not noted")
	}
	if NoteCall(call, second) {
		t.Fatal("a second call of the same request was noted")
	}
	if got := TakeCall(req); len(got) != 1 || !got[0].Equal(first) {
		t.Fatalf("TakeCall = %v, want [%v]", got, first)
	}
	late := Join(context.Background(), With(context.Background(), "req-2"))
	TakeCall(late)
	if NoteCall(late, first) {
		t.Fatal("a call was noted after its request's line was written")
	}
}
