package refusal

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"frontdesk/direct/chatdoor/catalogue"
)

// sample is a business as the demo configures it.
var sample = Business{Name: "Sample Stays", Phone: "+1 303 555 0100", Context: "production", MaxGuests: 4,
	Slugs: []string{"riverside-inn"}, Prefixes: []string{"RIV"}, Rooms: []string{"double"}}

// refusalSites reads the refusal sites of the booking core and of the
// chat door from their source: the codes each refuses with.
func refusalSites(t *testing.T) (core, door []string) {
	t.Helper()
	constant := regexp.MustCompile(`(Code\w+)\s+fault\.Code = "([a-z0-9_]+)"`)
	coreSite := regexp.MustCompile(`refuse\((Code\w+), `)
	// The door's sites, and the identifiers proof reads (booking_id,
	// cancel_id) with the code that refuses each.
	doorSite := regexp.MustCompile(`(?:refuse|field)\((Code\w+)[,)]|proof\(args, "[a-z_]+", (Code\w+),`)
	add := func(list *[]string, code string) {
		if !slices.Contains(*list, code) {
			*list = append(*list, code)
		}
	}
	for _, dir := range []string{"direct", "direct/chatdoor"} {
		files, _ := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no source in %s", dir)
		}
		consts := map[string]string{}
		var sources []string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range constant.FindAllStringSubmatch(string(src), -1) {
				consts[m[1]] = m[2]
			}
			sources = append(sources, string(src))
		}
		for _, src := range sources {
			if dir == "direct" {
				for _, m := range coreSite.FindAllStringSubmatch(src, -1) {
					add(&core, consts[m[1]])
				}
				continue
			}
			for _, m := range doorSite.FindAllStringSubmatch(src, -1) {
				add(&door, consts[m[1]+m[2]])
			}
		}
	}
	slices.Sort(core)
	slices.Sort(door)
	return core, door
}

// TestRefusalInventoryMatchesCode: the chat door's own field codes are
// exactly those its source refuses with, every code the core or the door
// refuses with has a catalogue sentence, every catalogue code is refused
// somewhere, and the inventory prints each with the rule the door gives
// it.
func TestRefusalInventoryMatchesCode(t *testing.T) {
	t.Parallel()
	core, door := refusalSites(t)
	if want := slices.Sorted(slices.Values(doorFieldCodes)); !slices.Equal(door, want) {
		t.Errorf("the chat door refuses with %v, the inventory's field codes are %v", door, want)
	}
	codes := catalogue.Codes()
	for _, code := range append(core, door...) {
		if !slices.Contains(codes, code) {
			t.Errorf("%s is refused in code but the catalogue has no sentence for it", code)
		}
	}
	var out strings.Builder
	Print(&out, sample, "the built-in demo")
	printed := out.String()
	for _, code := range codes {
		if !slices.Contains(core, code) && !slices.Contains(door, code) {
			t.Errorf("the catalogue words %s, which no refusal site in direct/ or direct/chatdoor/ gives", code)
		}
		rule := refusalRule(code) // the catalogue's, or P for the door's own fields
		if !strings.Contains(printed, "| chat | `"+code+"` | "+rule+" | ") {
			t.Errorf("the inventory does not print %s with rule %s", code, rule)
		}
	}
	for _, row := range rows(sample) {
		if strings.Contains(row.Sentence, "%[") {
			t.Errorf("%s is printed with an unfilled placeholder: %s", row.Code, row.Sentence)
		}
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
	// The reservation desk's public messages, which the staff commands
	// show: its sentinel errors by code, and its refusals of a transition.
	{"staff", "reservation/*.go", regexp.MustCompile(`&Error\{Code: (Code[A-Za-z]+), Message: ()("(?:[^"\\]|\\.)*")`),
		func(m []string, consts map[string]string) string { return consts[m[1]] }},
	{"staff", "reservation/*.go", regexp.MustCompile(`illegal\([^,()]+, [^,()]+, (?:fmt\.Sprintf\()?()()("(?:[^"\\]|\\.)*")`),
		func([]string, map[string]string) string { return "illegal_transition" }},
	// The location layer's answers to a relayed call: refuse(Code…,
	// "…"), by the code's value.
	{"relay", "relay/*.go", regexp.MustCompile(`refuse\((Code[A-Za-z]+), ()("(?:[^"\\]|\\.)*")`),
		func(m []string, consts map[string]string) string { return consts[m[1]] }},
	// The booking form's field problems, by field.
	{"form", "reservation/formrequest.go", regexp.MustCompile(`problems\["([a-z_]+)"\] = (?:fmt\.Sprintf\()?()("(?:[^"\\]|\\.)*")`),
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
	constant := regexp.MustCompile(`(Code[A-Za-z]+)\s+(?:fault\.)?Code = "([a-z_]+)"`)
	var lines []string
	for _, rule := range siteRules {
		files, _ := filepath.Glob(filepath.Join("..", rule.glob))
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
// reservation desk, the booking form's checks and the form page. Rewrite it with
// go test ./refusal -run TestInlineRefusalsAreInTheInventory -regen-refusals.
func TestInlineRefusalsAreInTheInventory(t *testing.T) {
	t.Parallel()
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
	Print(&out, sample, "the built-in demo")
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		if !strings.Contains(out.String(), "| "+parts[0]+" | `"+parts[1]+"` | "+inlineRule(parts[0])+" | "+strings.ReplaceAll(siteSentence(parts[2]), "|", `\|`)+" |") {
			t.Errorf("the inventory lacks the %s refusal %s: %s", parts[0], parts[1], parts[2])
		}
	}
}
