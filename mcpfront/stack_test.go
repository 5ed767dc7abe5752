package mcpfront

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestGrownStackPassesEveryCallThrough(t *testing.T) {
	want := &mcp.CallToolResult{}
	for _, method := range []string{"tools/call", "tools/list", "initialize"} {
		var got string
		h := grownStack(func(_ context.Context, m string, _ mcp.Request) (mcp.Result, error) {
			got = m
			return want, nil
		})
		res, err := h(t.Context(), method, nil)
		if got != method || res != want || err != nil {
			t.Fatalf("%s: next saw %q and returned %v, %v", method, got, res, err)
		}
	}
}

// deep calls itself n times, each frame holding about 400 bytes, as a
// tool call's frames do.
//
//go:noinline
func deep(n int) byte {
	var frame [400]byte
	frame[n%len(frame)] = byte(n)
	if n == 0 {
		return frame[0]
	}
	return deep(n-1) + frame[n%len(frame)]
}

// A call about as deep as a read tool's, on a new goroutine as the SDK
// runs each request: with the stack grown first, and without.
func BenchmarkDeepCallOnNewGoroutine(b *testing.B) {
	for _, c := range []struct {
		name string
		grow bool
	}{{"grown_first", true}, {"grown_by_doubling", false}} {
		b.Run(c.name, func(b *testing.B) {
			done := make(chan byte)
			for b.Loop() {
				go func() {
					if c.grow {
						growStack(0)
					}
					done <- deep(28)
				}()
				<-done
			}
		})
	}
}
