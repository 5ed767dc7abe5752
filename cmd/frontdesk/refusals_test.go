package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusalsCommand prints the inventory of the demo as markdown, as
// docs/refusals.md has it. Regenerate that with
// go run ./cmd/frontdesk refusals > docs/refusals.md.
func TestRefusalsCommand(t *testing.T) {
	t.Parallel()
	out, _, err := runCmd(t, "refusals")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| door | code | rule | sentence | form | phone |", "| chat | `guest_range` | P | The reservation form allows 1 to 4 guests per room. | no | yes |",
		"`quote_minimum_stay`", "`plain_credentials`"} {
		if !strings.Contains(out, want) {
			t.Errorf("frontdesk refusals lacks %q", want)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "refusals.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != out {
		t.Fatal("docs/refusals.md differs from what frontdesk refusals prints; regenerate it: go run ./cmd/frontdesk refusals > docs/refusals.md")
	}
}
