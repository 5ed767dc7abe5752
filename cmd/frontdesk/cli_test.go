package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/golden"
)

// runCmd runs a command on the system clock, as a shell would.
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return runCmdOn(t, clock.System{}, args...)
}

// runCmdAtTestNow runs a command with its clock stopped at testNow, the
// time the test servers run at, so the fixed dates of a test stay ahead
// of the command's now whatever day the test runs on.
func runCmdAtTestNow(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return runCmdOn(t, clock.NewFixed(testNow), args...)
}

func runCmdOn(t *testing.T, clk clock.Clock, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), clk, args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestInitPrintsConfigsThatCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{{[]string{"init"}, ": valid (1 location)\n"}, {[]string{"init", "--demo"}, ": valid (3 locations)\n"}} {
		out, _, err := runCmd(t, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "frontdesk.toml")
		os.WriteFile(path, []byte(out), 0o600)
		got, _, err := runCmd(t, "check-config", path)
		if err != nil || !strings.HasSuffix(got, tt.want) {
			t.Fatalf("%v: check-config = %q, %v; want it to end %q", tt.args, got, err, tt.want)
		}
	}
	demo, _, _ := runCmd(t, "init", "--demo")
	if demo != string(config.DemoTOML) {
		t.Fatal("init --demo is not the built-in demo")
	}
}

// TestCheckConfigNamesEveryBadField: an unknown key, a mistyped value and
// validation errors in one file are all reported, each with its field.
func TestCheckConfigNamesEveryBadField(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(string(config.DemoTOML), `currency = "USD"`, `currency = "dollars"`+"\ncurency = \"EUR\"", 1)
	bad = strings.Replace(bad, `min_age = 18`, `min_age = "adult"`, 1)
	bad = strings.Replace(bad, `phone = "+1 303 555 0122"`, `phone = ""`, 1)
	path := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(path, []byte(bad), 0o600)
	_, _, err := runCmd(t, "check-config", path)
	if err == nil {
		t.Fatal("check-config accepted a bad file")
	}
	got := strings.ReplaceAll(err.Error(), path, "FILE")
	golden.Check(t, "check-config-bad.txt", []byte(got+"\n"))

	// serve refuses the same file before opening anything.
	_, _, err = runCmd(t, "serve", "--config", path, "--addr", "127.0.0.1:0", "--data", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "business.currency") {
		t.Fatalf("serve with a bad config = %v", err)
	}
}

// TestTLSWithoutModeRefused: a [tls] table naming certificate files but
// no mode is refused by check-config and serve, saying what to add,
// instead of serving plain HTTP.
func TestTLSWithoutModeRefused(t *testing.T) {
	t.Parallel()
	file := string(config.DemoTOML) + "\n[tls]\ncert_file = \"/etc/frontdesk/tls/fullchain.pem\"\nkey_file = \"/etc/frontdesk/tls/privkey.pem\"\n"
	path := filepath.Join(t.TempDir(), "tls.toml")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	want := `add mode = "files" to [tls]`
	if _, _, err := runCmd(t, "check-config", path); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("check-config = %v, want it to say %q", err, want)
	}
	if _, _, err := runCmd(t, "serve", "--config", path, "--addr", "127.0.0.1:0", "--data", t.TempDir()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("serve = %v, want it to say %q", err, want)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	if _, _, err := runCmd(t, "frobnicate"); err == nil {
		t.Fatal("unknown command accepted")
	}
}

// TestStdioServesTheHub runs `frontdesk mcp` in process with pipes and
// talks to it with the SDK client.
func TestStdioServesTheHub(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, clock.System{}, []string{"mcp", "--data", t.TempDir()}, inR, outW, io.Discard)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 8 {
		t.Fatalf("tools = %v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_properties", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.StructuredContent == nil {
		t.Fatalf("list_properties = %+v, %v", res, err)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil && err != context.Canceled && !strings.Contains(err.Error(), "closed") {
		t.Fatalf("mcp returned %v", err)
	}
}

// TestEveryCommandAnswersHelp: --help and -h print the command's help and
// succeed, "help CMD" shows the same, and a command lists only the flags
// it uses.
func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	for cmd := range commands {
		words := strings.Fields(cmd)
		for _, args := range [][]string{append(slices.Clone(words), "--help"), append(slices.Clone(words), "-h"), append([]string{"help"}, words...)} {
			out, _, err := runCmd(t, args...)
			if err != nil {
				t.Errorf("%v = %v, want success", args, err)
			}
			if !strings.HasPrefix(out, "Usage: frontdesk "+cmd) {
				t.Errorf("%v printed %q", args, out)
			}
		}
	}
	for _, cmd := range []string{"mcp", "sweep", "init", "check-config"} {
		out, _, _ := runCmd(t, cmd, "--help")
		if strings.Contains(out, "-addr") {
			t.Errorf("%s --help lists -addr:\n%s", cmd, out)
		}
	}
	if out, _, _ := runCmd(t, "serve", "--help"); !strings.Contains(out, "-addr") || !strings.Contains(out, "-log-level") {
		t.Errorf("serve --help lacks -addr or -log-level:\n%s", out)
	}
	if _, _, err := runCmd(t, "serve", "--nope"); err == nil || !strings.Contains(err.Error(), "frontdesk serve --help") {
		t.Errorf("bad flag = %v", err)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, err := runCmd(t, args...)
		if err != nil || !strings.HasPrefix(out, "frontdesk ") || !strings.Contains(out, "revision") {
			t.Errorf("%v = %q, %v", args, out, err)
		}
	}
}

// TestServeRefusesSMTPWithoutPassword: a mailer that must authenticate
// but has no secret stops serve at start, naming the variable.
func TestServeRefusesSMTPWithoutPassword(t *testing.T) {
	t.Parallel()
	file := strings.Replace(string(config.ExampleTOML), `driver = "dev"`, `driver = "smtp"`+"\n"+`smtp_host = "smtp.example.com"`+"\n"+`smtp_username = "bookings@example.com"`+"\n"+`smtp_password_env = "FRONTDESK_TEST_UNSET_PASSWORD"`, 1)
	path := filepath.Join(t.TempDir(), "smtp.toml")
	os.WriteFile(path, []byte(file), 0o600)
	_, _, err := runCmd(t, "serve", "--config", path, "--addr", "127.0.0.1:0", "--data", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "FRONTDESK_TEST_UNSET_PASSWORD") || !strings.Contains(err.Error(), "no password") {
		t.Fatalf("serve with a passwordless SMTP login = %v", err)
	}
}

// TestStdioLinksUsePublicURL: links in stdio answers start with the
// configured public URL, not a guessed port.
func TestStdioLinksUsePublicURL(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, clock.System{}, []string{"mcp", "--data", t.TempDir(), "--public-url", "https://book.example.com"}, inR, outW, io.Discard)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "property_info", Arguments: map[string]any{"property": "riverside"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), "https://book.example.com/book/riverside") || strings.Contains(string(b), ":8080") {
		t.Fatalf("property_info links = %s", b)
	}
}

// TestStdioSurvivesUnreadableLines: a line the SDK cannot decode gets a
// JSON-RPC error without internals, and the session goes on.
func TestStdioSurvivesUnreadableLines(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		run(ctx, clock.System{}, []string{"mcp", "--data", t.TempDir()}, inR, outW, io.Discard)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	for _, tt := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, `"code":-32600`},
		{`not json`, `"code":-32700`},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, `"id":2,"result"`},
	} {
		fmt.Fprintln(inW, tt.send)
		if !lines.Scan() {
			t.Fatalf("no answer to %s", tt.send)
		}
		got := lines.Text()
		if !strings.Contains(got, tt.want) || strings.Contains(got, "wireDecode") || strings.Contains(got, "float64") {
			t.Errorf("answer to %s = %.200s, want %s", tt.send, got, tt.want)
		}
	}
	inW.Close()
}
