package mcpfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/internal/requestid"
)

// NewServer is every MCP server of frontdesk: it declares only the tools
// capability, answers the methods of capabilities it does not declare
// (prompts, resources, completions, logging) with "method not found",
// gives the instructions an assistant reads first, caps the values an
// error echoes back, and logs one line per tool call.
func NewServer(impl *mcp.Implementation, instructions, server string, opts Options) *mcp.Server {
	s := mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	s.AddReceivingMiddleware(grownStack, recovered(opts.Log()), undeclared, capEchoes, LogCalls(opts.Log(), server))
	return s
}

// recovered turns a panic in a handler into an internal error for that
// one request: the SDK runs handlers on goroutines of its own, where a
// panic would end the whole process.
func recovered(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					logger.ErrorContext(ctx, "mcp handler panicked", "method", loggable(method), "panic", fmt.Sprint(p))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the request could not be served. Try again."}
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// undeclared refuses the methods of capabilities the servers do not
// declare, so what a client is told matches what it gets.
func undeclared(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		family, _, _ := strings.Cut(method, "/")
		switch family {
		case "prompts", "resources", "completion", "logging":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("Method not found: this server offers tools only, not %s.", family)}
		}
		return next(ctx, method, req)
	}
}

// maxEcho bounds the text of an error answer that repeats what the caller
// sent, such as a schema error quoting a 600 kB argument.
const maxEcho = 1000

// schemaErrorPrefix starts the answer to arguments that fail the input
// schema; the rest of it quotes the offending value.
const schemaErrorPrefix = "Tool arguments do not match the input schema"

func capEchoes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && len(rpcErr.Message) > maxEcho {
			capped := *rpcErr
			capped.Message = truncate(capped.Message)
			capped.Data = nil
			err = &capped
		} else if err != nil && len(err.Error()) > maxEcho {
			err = errors.New(truncate(err.Error()))
		}
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok && strings.HasPrefix(t.Text, schemaErrorPrefix) && len(t.Text) > maxEcho {
					t.Text = truncate(t.Text)
				}
			}
		}
		return res, err
	}
}

// truncate keeps the first maxEcho bytes of s, cut at a character
// boundary, and says that the rest was left out.
func truncate(s string) string {
	cut := maxEcho
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes not shown)", len(s)-cut)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// LogCalls writes one line per tool call: server, tool, outcome, code
// and duration; over HTTP, a routine call's line is its request's. The arguments and the answer stay out of the log: they
// carry guest data. A business refusal is routine (info, outcome
// "refused", the domain's code); an internal fault is an error (outcome
// "error"; its cause is logged once where it happens); a call the
// protocol refused before any tool ran is a warning (outcome
// "protocol_error", the JSON-RPC code).
func LogCalls(logger *slog.Logger, server string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			start := time.Now()
			var reported callOutcome
			res, err := next(context.WithValue(ctx, outcomeKey{}, &reported), method, req)
			tool := ""
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				tool = p.Name
			}
			outcome, code, level := "ok", "", slog.LevelInfo
			r, _ := res.(*mcp.CallToolResult)
			switch {
			case reported.internal:
				outcome, code, level = "error", reported.code, slog.LevelError
			case reported.reported && (err != nil || r != nil && r.IsError):
				// A tool's refusal, as a result or, on bindings that answer
				// refusals as JSON-RPC errors (USP), as an error.
				outcome, code = "refused", reported.code
			case err != nil:
				outcome, code, level = "protocol_error", rpcCode(err), slog.LevelWarn
			case r != nil && r.IsError:
				outcome, code = "refused", reported.code
			}
			if !logger.Enabled(ctx, level) {
				return res, err
			}
			attrs := []slog.Attr{slog.String("server", server), slog.String("tool", loggable(tool)), slog.String("outcome", outcome)}
			if outcome != "ok" {
				attrs = append(attrs, slog.String("code", loggable(code)))
			}
			// Over HTTP, a routine call is said on its request's line,
			// whose duration covers it: one line per call instead of two.
			if level == slog.LevelInfo && requestid.NoteCall(ctx, attrs...) {
				return res, err
			}
			// The record is built here rather than by logger.Log, which
			// looks up the caller's source position on every call (no
			// handler of frontdesk prints it) and boxes each value.
			rec := slog.NewRecord(time.Now(), level, "tool call", 0)
			rec.AddAttrs(attrs...)
			rec.AddAttrs(slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
			_ = logger.Handler().Handle(ctx, rec) // as logger.Log, which drops a handler's error
			return res, err
		}
	}
}

// rpcCode names a JSON-RPC error for the log: the code a binding put in
// its data (USP's data.code), else the standard name of its number.
func rpcCode(err error) string {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return "internal_error"
	}
	var data struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(rpcErr.Data, &data) == nil && data.Code != "" {
		return data.Code
	}
	switch rpcErr.Code {
	case jsonrpc.CodeParseError:
		return "parse_error"
	case jsonrpc.CodeInvalidRequest:
		return "invalid_request"
	case jsonrpc.CodeMethodNotFound:
		return "method_not_found"
	case jsonrpc.CodeInvalidParams:
		return "invalid_params"
	case jsonrpc.CodeInternalError:
		return "internal_error"
	}
	return fmt.Sprintf("rpc_%d", rpcErr.Code)
}

// loggable keeps a tool name in the log only when it looks like one: a
// client chooses it, and a log line is no place for its free text.
func loggable(name string) string {
	if len(name) > 64 {
		return "(invalid)"
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '/') {
			return "(invalid)"
		}
	}
	return name
}
