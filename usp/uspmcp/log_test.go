package uspmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/mcpfront"
	"frontdesk/usp/usptest"
)

// TestUSPToolCallLogLine: USP answers a refusal as a JSON-RPC error, and
// its log line still says refused, at info, with USP's own code.
func TestUSPToolCallLogLine(t *testing.T) {
	var logs bytes.Buffer
	plat := usptest.NewPlatforms(t, nil)
	b := usptest.NewBusiness(t, config.Demo(), usptest.Now, plat, nil)
	s := New(b.Business, mcpfront.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_services_list", Arguments: map[string]any{}})
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "usp_services_get", Arguments: map[string]any{"service_id": "svc_none"}})
	var got []string
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r["msg"] == "tool call" {
			code, _ := r["code"].(string)
			got = append(got, strings.Join([]string{r["server"].(string), r["tool"].(string), r["outcome"].(string), code, r["level"].(string)}, " "))
		}
	}
	want := []string{"usp usp_services_list ok  INFO", "usp usp_services_get refused service_not_found INFO"}
	if !slices.Equal(got, want) {
		t.Fatalf("tool call lines = %q, want %q", got, want)
	}
}
