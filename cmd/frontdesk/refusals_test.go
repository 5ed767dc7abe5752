package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"frontdesk/booking/chatdoor/catalogue"
	"frontdesk/config"
)

// refusalSites reads the refusal sites of the booking core and the chat
// door from their source: each code with the rules it is given there.
// The core's refuse takes its rule as a constant (AssembleF…) or from
// assemblyForData (F or P); the door's refuse and field give rule P.
func refusalSites(t *testing.T) map[string][]string {
	t.Helper()
	core := regexp.MustCompile(`refuse\("([a-z0-9_]+)", (Assemble[A-Za-z]+|assemblyForData)`)
	door := regexp.MustCompile(`(?:refuse|field)\("([a-z0-9_]+)"[,)]`)
	// A code built from a prefix and the field it names, such as
	// "bad_"+field for booking_id and cancel_id.
	prefixed := regexp.MustCompile(`(?:refuse|field)\("([a-z0-9_]+)"\+`)
	rule := map[string][]string{"AssembleNone": {"-"}, "AssembleP": {"P"}, "AssembleF": {"F"}, "AssembleL": {"L"}, "AssemblePL": {"PL"}, "assemblyForData": {"F", "P"}}
	sites := map[string][]string{}
	add := func(code string, rules ...string) {
		for _, r := range rules {
			if !slices.Contains(sites[code], r) {
				sites[code] = append(sites[code], r)
			}
		}
	}
	for _, dir := range []string{"booking", "booking/chatdoor"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no source in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if dir == "booking" {
				for _, m := range core.FindAllStringSubmatch(string(src), -1) {
					add(m[1], rule[m[2]]...)
				}
				continue
			}
			for _, m := range door.FindAllStringSubmatch(string(src), -1) {
				add(m[1], "P")
			}
			for _, m := range prefixed.FindAllStringSubmatch(string(src), -1) {
				for _, code := range catalogue.Codes() {
					if strings.HasPrefix(code, m[1]) && strings.HasSuffix(code, "_id") {
						add(code, "P") // the identifiers proof reads: booking_id, cancel_id
					}
				}
			}
		}
	}
	for _, rs := range sites {
		slices.Sort(rs)
	}
	return sites
}

// TestRefusalInventoryMatchesCode: every code refused in the core or the
// chat door is in the inventory with exactly the rules its sites give
// it, every code the catalogue words is printed, and the inventory lists
// nothing the code does not have.
func TestRefusalInventoryMatchesCode(t *testing.T) {
	sites := refusalSites(t)
	for code, rules := range sites {
		if got := refusalRules[code]; !slices.Equal(got, rules) {
			t.Errorf("%s is refused in code with rules %v, the inventory says %v", code, rules, got)
		}
	}
	for code := range refusalRules {
		if _, ok := sites[code]; !ok {
			t.Errorf("the inventory lists %s, which no refusal site in booking/ or booking/chatdoor/ gives", code)
		}
	}
	var out strings.Builder
	printRefusals(&out, config.Demo(), "the built-in demo")
	printed := out.String()
	codes := catalogue.Codes()
	for _, code := range codes {
		if !strings.Contains(printed, "| `"+code+"` |") {
			t.Errorf("the inventory does not print %s, which the catalogue words", code)
		}
		if _, ok := refusalRules[code]; !ok {
			t.Errorf("the catalogue words %s but the inventory gives it no rule", code)
		}
	}
	for code := range sites {
		if !slices.Contains(codes, code) {
			t.Errorf("%s is refused in code but the catalogue has no sentence for it", code)
		}
	}
	for _, row := range refusalRows(config.Demo()) {
		if strings.Contains(row.sentence, "%[") {
			t.Errorf("%s is printed with an unfilled placeholder: %s", row.code, row.sentence)
		}
	}
}

// TestRefusalsCommand prints the inventory of the demo as markdown.
func TestRefusalsCommand(t *testing.T) {
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
}

// TestRefusalInventoryDocIsCurrent: docs/refusals.md is the demo's
// inventory as `frontdesk refusals` prints it now. Regenerate it with
// go run ./cmd/frontdesk refusals > docs/refusals.md.
func TestRefusalInventoryDocIsCurrent(t *testing.T) {
	var out strings.Builder
	printRefusals(&out, config.Demo(), "the built-in demo")
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "refusals.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != out.String() {
		t.Fatal("docs/refusals.md differs from what frontdesk refusals prints; regenerate it: go run ./cmd/frontdesk refusals > docs/refusals.md")
	}
}

var regenRefusals = flag.Bool("regen-refusals", false, "rewrite usp_refusals.txt from the usp sources")

// uspRefusalSites reads every refusal the usp package words in its source
// (fail(Code…, "…") and &Error{Code: Code…, Message: "…"}), as the lines
// of usp_refusals.txt: code, a tab, the message (a fmt template where it
// takes values), sorted.
func uspRefusalSites(t *testing.T) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "usp", "*.go"))
	codes := map[string]string{}
	constant := regexp.MustCompile(`(Code[A-Za-z]+)\s+Code = "([a-z_]+)"`)
	site := regexp.MustCompile(`(?:fail\((Code[A-Za-z]+), |&Error\{Code: (Code[A-Za-z]+), Message: )("(?:[^"\\]|\\.)*")`)
	var sources []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range constant.FindAllStringSubmatch(string(b), -1) {
			codes[m[1]] = m[2]
		}
		sources = append(sources, string(b))
	}
	var lines []string
	for _, src := range sources {
		for _, m := range site.FindAllStringSubmatch(src, -1) {
			name := m[1] + m[2]
			msg, err := strconv.Unquote(m[3])
			if err != nil || codes[name] == "" {
				t.Fatalf("refusal site %s %s: %v", name, m[3], err)
			}
			line := codes[name] + "\t" + msg
			if !slices.Contains(lines, line) {
				lines = append(lines, line)
			}
		}
	}
	if len(lines) < 20 {
		t.Fatalf("found %d USP refusal sites; the pattern no longer matches the source", len(lines))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// TestUSPRefusalsAreInTheInventory: usp_refusals.txt, which the inventory
// prints, is exactly the refusals worded in usp/. Rewrite it with
// go test ./cmd/frontdesk -run TestUSPRefusalsAreInTheInventory -regen-refusals.
func TestUSPRefusalsAreInTheInventory(t *testing.T) {
	want := uspRefusalSites(t)
	if *regenRefusals {
		if err := os.WriteFile("usp_refusals.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if uspRefusalsText != want {
		t.Fatal("usp_refusals.txt differs from the refusals in usp/; rewrite it with -regen-refusals and regenerate docs/refusals.md")
	}
	var out strings.Builder
	printRefusals(&out, config.Demo(), "the built-in demo")
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		code, msg, _ := strings.Cut(line, "\t")
		if !strings.Contains(out.String(), "| usp | `"+code+"` | - | "+strings.ReplaceAll(msg, "|", `\|`)+" |") {
			t.Errorf("the inventory lacks USP refusal %s: %s", code, msg)
		}
	}
}
