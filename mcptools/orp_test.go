package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"frontdesk/orp"
)

// TestJoinedSessions keeps the newest joins within the bound and lets a
// session that joins again act as its newest party.
func TestJoinedSessions(t *testing.T) {
	j := &joined{token: map[string]string{}}
	for i := 0; i < maxJoinedCount+3; i++ {
		j.remember(fmt.Sprint("s", i), fmt.Sprint("t", i))
	}
	if got := j.lookup("s0"); got != "" {
		t.Fatalf("oldest session = %q, want forgotten", got)
	}
	if got := j.lookup(fmt.Sprint("s", maxJoinedCount+2)); got != fmt.Sprint("t", maxJoinedCount+2) {
		t.Fatalf("newest session = %q", got)
	}
	j.remember("s5", "again")
	if got := j.lookup("s5"); got != "again" {
		t.Fatalf("rejoined session = %q", got)
	}
}

// TestCredential prefers an explicit bearer, and never reads a session
// id from a stateless request.
func TestCredential(t *testing.T) {
	o := orpTools{joined: &joined{token: map[string]string{"sess1": "joined-token"}}}
	cases := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"joined session", http.Header{"Mcp-Session-Id": {"sess1"}, "Mcp-Protocol-Version": {"2025-11-25"}}, "joined-token"},
		{"explicit bearer wins", http.Header{"Mcp-Session-Id": {"sess1"}, "Authorization": {"Bearer explicit"}}, "explicit"},
		{"stateless ignores the session id", http.Header{"Mcp-Session-Id": {"sess1"}, "Mcp-Protocol-Version": {"2026-07-28"}}, ""},
		{"unknown session", http.Header{"Mcp-Session-Id": {"other"}}, ""},
		{"stdio", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			if c.header != nil {
				ctx = context.WithValue(ctx, headerKey{}, c.header)
			}
			if got := o.credential(ctx); got != c.want {
				t.Fatalf("credential = %q, want %q", got, c.want)
			}
		})
	}
}

// TestTextLeavesOutTheToken shows that the JSON text of a join, alone or
// inside a suggestion, never carries the bearer token, which the session
// keeps; the structured result still does.
func TestTextLeavesOutTheToken(t *testing.T) {
	j := orp.JoinResponse{Party: "orp:h/p_1", Token: "orpt_secret", Claim: "https://h/claim/c"}
	texts := map[string]any{
		"join":    withoutToken(j),
		"suggest": suggestedWithoutToken(orp.SuggestResponse{Joined: &j}),
	}
	for name, v := range texts {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), "orpt_secret") || !strings.Contains(string(b), "orp:h/p_1") {
			t.Errorf("%s text = %s, want the party without the token", name, b)
		}
	}
	if j.Token != "orpt_secret" {
		t.Errorf("the result itself lost its token: %+v", j)
	}
}
