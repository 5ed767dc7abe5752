package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/config"
	"frontdesk/internal/golden"
)

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestInitPrintsConfigsThatCheck(t *testing.T) {
	for _, args := range [][]string{{"init"}, {"init", "--demo"}} {
		out, _, err := runCmd(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "frontdesk.toml")
		os.WriteFile(path, []byte(out), 0o600)
		got, _, err := runCmd(t, "check-config", path)
		if err != nil || !strings.HasSuffix(got, "valid (") && !strings.Contains(got, ": valid (") {
			t.Fatalf("%v: check-config = %q, %v", args, got, err)
		}
	}
	demo, _, _ := runCmd(t, "init", "--demo")
	if demo != string(config.DemoTOML) {
		t.Fatal("init --demo is not the built-in demo")
	}
}

func TestCheckConfigNamesEveryBadField(t *testing.T) {
	bad := strings.Replace(string(config.DemoTOML), `currency = "USD"`, `currency = "dollars"`, 1)
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

func TestUnknownCommand(t *testing.T) {
	if _, _, err := runCmd(t, "frobnicate"); err == nil {
		t.Fatal("unknown command accepted")
	}
}

// TestStdioServesTheHub runs `frontdesk mcp` in process with pipes and
// talks to it with the SDK client.
func TestStdioServesTheHub(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"mcp", "--data", t.TempDir()}, inR, outW, io.Discard)
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
