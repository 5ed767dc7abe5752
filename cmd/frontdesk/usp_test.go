package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
)

// TestUSPIsServed: the demo serves the business profile, the REST binding
// and the MCP binding on the running server; with USP off, none of them.
func TestUSPIsServed(t *testing.T) {
	t.Parallel()
	url := startServer(t, "")
	resp, err := http.Get(url + "/.well-known/usp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=300" || !strings.Contains(string(body), url+"/usp/mcp") {
		t.Fatalf("profile: %d %v\n%s", resp.StatusCode, resp.Header, body)
	}
	status, _, list := post(t, url+"/usp/services/list", nil, `{"filters":{"category_id":"timed"}}`)
	if status != 200 || !strings.Contains(list, `"svc_airport_shuttle"`) {
		t.Fatalf("REST list: %d %s", status, list)
	}
	// A path under the base that names no operation, or an operation's
	// path with another method, is a problem, not the server's plain
	// not-found page: routes.go mounts the binding's catch-all too.
	for _, c := range []struct{ method, path string }{{"GET", "/usp/nowhere"}, {"DELETE", "/usp/services/list"}, {"GET", "/usp/"}} {
		status, h, body := send(t, c.method, url+c.path, nil, nil)
		if status != http.StatusNotFound || h.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, "serves no USP operation at "+c.method+" "+c.path) {
			t.Errorf("%s %s = %d %s %s, want a 404 problem", c.method, c.path, status, h.Get("Content-Type"), body)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/usp/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "usp_availability_query", Arguments: shuttleQuery14Days(500)})
	if err != nil || res.IsError {
		t.Fatalf("query: %v %+v", err, res)
	}
	var out struct {
		Slots []json.RawMessage `json:"slots"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &out)
	if len(out.Slots) != 14*16 {
		t.Fatalf("%d shuttle slots over 14 days, want 224", len(out.Slots))
	}

	off := startMain(t, "", func(c *config.Config) { c.USP.Enabled = false }).URL
	for _, path := range []string{"/.well-known/usp", "/usp/mcp"} {
		resp, err := http.Get(off + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("USP off: %s answers %d", path, resp.StatusCode)
		}
	}
}

// shuttleQuery14Days are the arguments of usp_availability_query for the
// demo's airport shuttle over the 14 days after testNow; limit 0 leaves
// the page size at its default of 50 slots.
func shuttleQuery14Days(limit int) map[string]any {
	args := map[string]any{
		"service_id": "svc_airport_shuttle",
		"start_date": testNow.AddDate(0, 0, 1).Format("2006-01-02"),
		"end_date":   testNow.AddDate(0, 0, 14).Format("2006-01-02"),
	}
	if limit > 0 {
		args["limit"] = limit
	}
	return args
}
