// Command mcpreplay is the same-bytes baseline of bench/replay.sh: a bare
// go-sdk MCP server whose tools answer exactly what frontdesk answered.
// At start it calls each tool of a calls file on a running frontdesk
// once, keeps the result (its text and structured content), and from then
// on answers every call of that tool with it, doing no work of its own.
// Set beside frontdesk under the same load, it shows what the SDK and
// the transport cost for answers of those sizes, so what is left of
// frontdesk's cost is frontdesk's own. It imports nothing of frontdesk,
// only the go-sdk.
//
//	mcpreplay ADDR FRONTDESK_MCP_URL CALLS_FILE
//
// Each line of CALLS_FILE is NAME TOOL ARGUMENTS_JSON: the replay serves
// a tool NAME answering what TOOL answered to those arguments.
//
// With MCPREPLAY_LIVE_MB set, the replay also keeps that many megabytes
// reachable for its whole life (liveHeap), so it can be measured with a
// live heap the size of frontdesk's.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mcpreplay ADDR FRONTDESK_MCP_URL CALLS_FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "mcpreplay:", err)
		os.Exit(1)
	}
}

// node is a small object pointing at others, as parse trees, compiled
// schemas and catalogues are: the collector follows every pointer. It
// takes 96 bytes.
type node struct {
	next *node
	kids [11]*node
}

// liveHeap returns about mb megabytes of nodes, each pointing at the
// one before it and at eleven of the sixteen before that.
func liveHeap(mb int) *node {
	var head *node
	var recent [16]*node
	for i := range mb << 20 / 96 {
		n := &node{next: head}
		for k := range n.kids {
			n.kids[k] = recent[(i+k*5)%len(recent)]
		}
		recent[i%len(recent)] = n
		head = n
	}
	return head
}

func run(addr, frontdesk, callsFile string) error {
	ctx := context.Background()
	if v := os.Getenv("MCPREPLAY_LIVE_MB"); v != "" {
		mb, err := strconv.Atoi(v)
		if err != nil || mb < 0 {
			return fmt.Errorf("MCPREPLAY_LIVE_MB=%q: not a number of megabytes", v)
		}
		heap := liveHeap(mb)
		defer runtime.KeepAlive(heap) // reachable for as long as the replay serves
		fmt.Fprintf(os.Stderr, "mcpreplay: keeping %d MB live\n", mb)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpreplay", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: frontdesk}, nil)
	if err != nil {
		return err
	}
	defer func() { _ = cs.Close() }() // the answers are kept; the session was only for taking them
	f, err := os.Open(callsFile)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	s := mcp.NewServer(&mcp.Implementation{Name: "replay", Version: "1"}, nil)
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.SplitN(strings.TrimSpace(lines.Text()), " ", 3)
		if len(fields) != 3 {
			continue
		}
		name, tool := fields[0], fields[1]
		var args map[string]any
		if err := json.Unmarshal([]byte(fields[2]), &args); err != nil {
			return fmt.Errorf("%s: arguments: %w", name, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if res.IsError {
			return fmt.Errorf("%s: frontdesk answered an error", name)
		}
		// The structured content is kept as the raw bytes frontdesk sent,
		// so the replay encodes the same answer again, not a map of it.
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return err
		}
		answer := &mcp.CallToolResult{Content: res.Content, StructuredContent: json.RawMessage(raw)}
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return answer, nil
		})
		fmt.Fprintf(os.Stderr, "mcpreplay: %s answers %d bytes of structured content\n", name, len(raw))
	}
	if err := lines.Err(); err != nil {
		return err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	return http.ListenAndServe(addr, h)
}
