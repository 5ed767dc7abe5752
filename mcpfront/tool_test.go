package mcpfront

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/metrics"
)

type idOut struct {
	BookingID string `json:"booking_id"`
	Rooms     []int  `json:"rooms"`
}

// TestResultTextCarriesTheStructuredResult shows that a client which
// reads only text content gets the whole result: the one-line summary,
// then the structured result as JSON, byte for byte.
func TestResultTextCarriesTheStructuredResult(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "text-test", Version: "1"}, nil)
	env := Env{Server: "test", Log: Options{}.Log(), Metrics: metrics.New(), Safe: func(err error) (string, string, bool) { return err.Error(), "refused", false }}
	Add(s, env, Tool[noArgs, idOut]{
		Name: "start", Title: "start", Input: Object(nil, map[string]*jsonschema.Schema{}),
		Run: func(context.Context, noArgs) (idOut, string, error) {
			return idOut{BookingID: "bk_1", Rooms: []int{2, 3}}, "Code sent.", nil
		},
	})
	ctx := context.Background()
	cs := connectInMemory(t, s)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "start", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, c.(*mcp.TextContent).Text)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	want := []string{"Code sent.", `{"booking_id":"bk_1","rooms":[2,3]}`}
	if len(texts) != 2 || texts[0] != want[0] || texts[1] != want[1] || string(structured) != want[1] {
		t.Fatalf("content = %q, structured = %s; want %q and the same JSON", texts, structured, want)
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

type writesItself struct{ Field string }

func (writesItself) AppendJSON(b []byte) ([]byte, error) { return append(b, `{"by":"itself"}`...), nil }

// TestEncodeLetsAValueWriteItself: a result with AppendJSON is written
// by it, not walked by encoding/json.
func TestEncodeLetsAValueWriteItself(t *testing.T) {
	if got, err := encode(writesItself{Field: "x"}); err != nil || string(got) != `{"by":"itself"}` {
		t.Fatalf("encode = %s, %v; want the value's own JSON", got, err)
	}
	if got, err := encode(struct{ Field string }{"x"}); err != nil || string(got) != `{"Field":"x"}` {
		t.Fatalf("encode of a plain struct = %s, %v", got, err)
	}
}
