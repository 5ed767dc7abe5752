package catalogue

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryCodeHasASentence reads the codes the booking core and the
// chat door declare, so a new code cannot reach a guest unworded.
func TestEveryCodeHasASentence(t *testing.T) {
	files, err := filepath.Glob("../../*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	codePattern := regexp.MustCompile(`fault\.Code = "([a-z0-9_]+)"`)
	codes := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range codePattern.FindAllStringSubmatch(string(src), -1) {
			codes[m[1]] = true
		}
	}
	if len(codes) < 40 {
		t.Fatalf("found %d codes; the pattern no longer finds the refusals", len(codes))
	}
	delete(codes, "answered") // a withdrawal's, on the guest's page alone; no chat tool withdraws
	for code := range codes {
		if _, ok := Sentence(code); !ok {
			t.Errorf("code %q has no sentence", code)
		}
	}
}

// TestAssembly pins the rules of §12 that complete a sentence.
func TestAssembly(t *testing.T) {
	const phone, form = "+1 303 555 0111", "http://localhost:8080/book/riverside"
	tests := []struct {
		name string
		a    Answer
		want string
	}{
		{"P adds the phone", Answer{Code: "wrong_code", Rule: "P", Phone: phone}, "Incorrect or expired verification code. Call " + phone + "."},
		{"P keeps a phone the sentence has", Answer{Code: "not_found", Rule: "P", Phone: phone}, "no reservation found. Call " + phone + "."},
		{"F with a form", Answer{Code: "no_room", Rule: "F", Phone: phone, Form: form}, "No room is free for those nights. Use find_rooms to look again. The booking form is available, or call " + phone + ".\n" + form},
		{"F without a form is P", Answer{Code: "no_room", Rule: "F", Phone: phone}, "No room is free for those nights. Use find_rooms to look again. Call " + phone + "."},
		{"L adds the link", Answer{Code: "cannot_check", Rule: "L", Phone: phone, Form: form}, "This booking cannot be checked right now. Try again in a few minutes or call " + phone + ".\n" + form},
		{"PL adds both", Answer{Code: "deploy_unknown", Rule: "PL", Phone: phone, Form: form}, "Booking tools are disabled because the deployment context is unknown. Call " + phone + ".\n" + form},
		{"values after the phone", Answer{Code: "moved", Phone: phone, Values: []string{"RIV-0123456789ABCDEF"}}, "Reservation RIV-0123456789ABCDEF was moved. No room is currently reserved under this reference. Call " + phone + " with any questions."},
		{"a pricing refusal is its own text", Answer{Code: "quote_min_stay", Rule: "L", Phone: phone, Values: []string{"Studios are let by the week."}}, "Studios are let by the week."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Word(tt.a)
			if !ok || got != tt.want {
				t.Errorf("Word = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
	if _, ok := Word(Answer{Code: "no_such_code"}); ok {
		t.Error("an unknown code was worded")
	}
}
