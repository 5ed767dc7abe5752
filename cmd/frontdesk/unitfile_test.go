package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnitRunsServe: the shipped unit's ExecStart is serve with
// flags serve takes.
func TestSystemdUnitRunsServe(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "frontdesk.service"))
	if err != nil {
		t.Fatal(err)
	}
	var exec []string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			exec = strings.Fields(v)
		}
	}
	if len(exec) < 2 || exec[1] != "serve" {
		t.Fatalf("ExecStart = %v, want frontdesk serve …", exec)
	}
	help, _, err := runCmd(t, "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range exec[2:] {
		if strings.HasPrefix(arg, "--") && !strings.Contains(help, "  -"+strings.TrimPrefix(arg, "--")+" ") {
			t.Errorf("ExecStart passes %s, which serve does not take", arg)
		}
	}
}
