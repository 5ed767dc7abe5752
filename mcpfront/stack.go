package mcpfront

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// grownStack grows a tool call's stack before the call goes deep. The SDK
// runs each request on a goroutine of its own, whose stack starts at
// 2 KiB and doubles whenever a call needs more: a read tool call was
// copied to a larger stack twice, deep in the SDK's dispatch and again in
// the tool, and each copy walks every frame beneath it (about 4% of the
// call's CPU). Grown here, near the bottom, the stack is copied once, with
// a few frames.
func grownStack(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			growStack(0)
		}
		return next(ctx, method, req)
	}
}

// toolCallStack is about the deepest a tool call's stack goes, below
// 16 KiB, which its goroutine's stack grows to at once.
const toolCallStack = 12 << 10

// growStack takes a frame of toolCallStack bytes, so that the runtime
// grows the stack to hold it; returning leaves the stack that size. i is
// an index the compiler cannot know, so that the frame stays.
//
//go:noinline
func growStack(i int) byte {
	var frame [toolCallStack]byte
	return frame[i]
}
