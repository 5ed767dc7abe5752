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

var regenRefusals = flag.Bool("regen-refusals", false, "rewrite refusal_sites.txt from the sources")

// siteRule finds the refusals one door words inline in its source: each
// match gives the code (or the field) and the quoted message.
type siteRule struct {
	door, glob string
	pattern    *regexp.Regexp
	code       func(m []string, consts map[string]string) string
}

var siteRules = []siteRule{
	// USP: fail(Code…, "…") and &Error{Code: Code…, Message: "…"}, by the
	// code's value.
	{"usp", "usp/*.go", regexp.MustCompile(`(?:fail\((Code[A-Za-z]+), |&Error\{Code: (Code[A-Za-z]+), Message: )("(?:[^"\\]|\\.)*")`),
		func(m []string, consts map[string]string) string { return consts[m[1]+m[2]] }},
	// The booking form's field problems, by field.
	{"form", "booking/form.go", regexp.MustCompile(`problems\["([a-z_]+)"\] = (?:fmt\.Sprintf\()?()("(?:[^"\\]|\\.)*")`),
		func(m []string, _ map[string]string) string { return "form_" + m[1] }},
	// The form page's own answers: the first sentence, before the values
	// it appends.
	{"form", "web/form.go", regexp.MustCompile(`(?:p\.Limited = |http\.Error\(w, )()()("(?:[^"\\]|\\.)*")`),
		func([]string, map[string]string) string { return "form_page" }},
}

// refusalSiteLines reads every refusal the rules find, as the lines of
// refusal_sites.txt: door, code and message (a fmt template, or the text
// before appended values) separated by tabs, sorted.
func refusalSiteLines(t *testing.T) string {
	t.Helper()
	constant := regexp.MustCompile(`(Code[A-Za-z]+)\s+Code = "([a-z_]+)"`)
	var lines []string
	for _, rule := range siteRules {
		files, _ := filepath.Glob(filepath.Join("..", "..", rule.glob))
		consts := map[string]string{}
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
				consts[m[1]] = m[2]
			}
			sources = append(sources, string(b))
		}
		found := 0
		for _, src := range sources {
			for _, m := range rule.pattern.FindAllStringSubmatch(src, -1) {
				msg, err := strconv.Unquote(m[3])
				code := rule.code(m, consts)
				if err != nil || code == "" {
					t.Fatalf("%s refusal site %q: %v", rule.door, m[0], err)
				}
				line := rule.door + "\t" + code + "\t" + msg
				if !slices.Contains(lines, line) {
					lines = append(lines, line)
				}
				found++
			}
		}
		if found == 0 {
			t.Fatalf("no refusal sites in %s; the pattern no longer matches the source", rule.glob)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// TestInlineRefusalsAreInTheInventory: refusal_sites.txt, which the
// inventory prints, is exactly the refusals worded inline in usp/, the
// booking form's checks and the form page. Rewrite it with
// go test ./cmd/frontdesk -run TestInlineRefusalsAreInTheInventory -regen-refusals.
func TestInlineRefusalsAreInTheInventory(t *testing.T) {
	want := refusalSiteLines(t)
	if *regenRefusals {
		if err := os.WriteFile("refusal_sites.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if refusalSitesText != want {
		t.Fatal("refusal_sites.txt differs from the refusals in the source; rewrite it with -regen-refusals and regenerate docs/refusals.md")
	}
	var out strings.Builder
	printRefusals(&out, config.Demo(), "the built-in demo")
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		if !strings.Contains(out.String(), "| "+parts[0]+" | `"+parts[1]+"` | - | "+strings.ReplaceAll(siteSentence(parts[2]), "|", `\|`)+" |") {
			t.Errorf("the inventory lacks the %s refusal %s: %s", parts[0], parts[1], parts[2])
		}
	}
}
