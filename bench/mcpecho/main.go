// Command mcpecho is the baseline of bench/usp-wrk.sh: a bare go-sdk MCP
// server with one tool, `echo`, over streamable HTTP, the same tool the
// in-process benchmarks of cmd/frontdesk call, but in its own process so
// that an outside load generator measures the server alone. It imports
// nothing of frontdesk, only the go-sdk.
//
//	mcpecho ADDR
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoText struct {
	Text string `json:"text"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpecho ADDR")
		os.Exit(2)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoText) (*mcp.CallToolResult, echoText, error) {
		return nil, in, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if err := http.ListenAndServe(os.Args[1], h); err != nil {
		fmt.Fprintln(os.Stderr, "mcpecho:", err)
		os.Exit(1)
	}
}
