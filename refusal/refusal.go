// Package refusal is the refusal inventory: every refusal sentence a
// business's configuration can produce, by door and code, with the
// assembly rule the chat door gives it, as `frontdesk refusals` prints it.
package refusal

import (
	_ "embed"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"frontdesk/direct/chatdoor/catalogue"
	"frontdesk/pricing"
)

// Business is what of a configuration the sentences name.
type Business struct {
	Name, Phone string
	Context     string   // deployment.context
	MaxGuests   int      // limits.max_guests
	Slugs       []string // the locations' slugs
	Prefixes    []string // the locations' reference prefixes
	Rooms       []string // the unit types, each once
	// Extra are refusals serve answers with itself, outside the doors.
	Extra []Row
}

// doorFieldCodes are the codes the chat door itself refuses, for fields
// it checks before the core runs; it gives them rule P (the phone). The
// core's codes take their rule from the catalogue. The test
// TestRefusalInventoryMatchesCode reads the refusal sites of direct/ and
// direct/chatdoor/ and fails when this list and they disagree.
var doorFieldCodes = []string{
	"bad_booking_id", "bad_cancel_id", "bad_checkin", "bad_checkout", "bad_code", "bad_email", "bad_guests",
	"bad_last4", "bad_name", "bad_notes", "bad_phone", "bad_property", "bad_reference", "bad_roomtype",
	"cancel_fields", "guest_range", "no_property", "not_object", "resend_only", "unknown_field",
}

// refusalRule is the assembly rule the chat door gives code, "-" for
// none.
func refusalRule(code string) string {
	r := catalogue.Rule(code, false)
	if slices.Contains(doorFieldCodes, code) {
		r = "P"
	}
	if r == "" {
		return "-"
	}
	return r
}

// Row is one line of the inventory.
type Row struct {
	Door, Code, Rules, Sentence string
	Form, Phone                 bool
}

// refusalSitesText lists the refusals worded inline in the source (the
// USP binding's, the reservation desk's that staff commands show, the
// booking form's), one "door<TAB>code<TAB>message"
// line each; a message is a fmt template where it takes values.
// TestInlineRefusalsAreInTheInventory rebuilds it from the source.
//
//go:embed refusal_sites.txt
var refusalSitesText string

var placeholder = regexp.MustCompile(`%\[(\d+)\]s`)

// rows are every refusal sentence the business can produce: the chat
// door's catalogue, filled with the config's phone and values, the quote
// refusals' fixed first lines, and the sentences serve itself answers
// with.
func rows(b Business) []Row {
	phone := b.Phone
	values := refusalValues(b)
	var rows []Row
	for _, code := range catalogue.Codes() {
		sentence, _ := catalogue.Sentence(code)
		sentence = placeholder.ReplaceAllStringFunc(sentence, func(p string) string {
			n, _ := strconv.Atoi(placeholder.FindStringSubmatch(p)[1])
			if n == 1 {
				return phone
			}
			if v, ok := values[code]; ok && n-2 < len(v) {
				return v[n-2]
			}
			return fmt.Sprintf("{value %d}", n-1)
		})
		rule := refusalRule(code)
		form := strings.Contains(rule, "F") || strings.Contains(rule, "L")
		callable := strings.Contains(sentence, phone) || strings.Contains(rule, "P") || strings.Contains(rule, "F")
		rows = append(rows, Row{Door: "chat", Code: code, Rules: rule, Sentence: sentence, Form: form, Phone: callable})
	}
	headers := pricing.RefusalHeaders()
	kinds := make([]string, 0, len(headers))
	for k := range headers {
		kinds = append(kinds, string(k))
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		rows = append(rows, Row{Door: "chat, quote", Code: "quote_" + k, Rules: "PL",
			Sentence: headers[pricing.RefusalKind(k)] + " (then the request's own values)", Form: true, Phone: true})
	}
	for _, line := range strings.Split(strings.TrimSpace(refusalSitesText), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		sentence := siteSentence(parts[2])
		rules, phone := inlineRule(parts[0]), strings.Contains(sentence, "call {value}")
		rows = append(rows, Row{Door: parts[0], Code: parts[1], Rules: rules, Sentence: sentence, Phone: phone || rules == "P"})
	}
	return append(rows, b.Extra...)
}

// inlineRule is the assembly rule of a door's inline refusals: the relay's
// location layer adds the phone (rule P of §12); the others add nothing.
func inlineRule(door string) string {
	if door == "relay" {
		return "P"
	}
	return "-"
}

// siteSentence shows a message read from the source as the inventory
// prints it: the values a message appends after its text appear as
// {value}.
func siteSentence(msg string) string {
	if strings.HasSuffix(msg, " ") {
		return msg + "{value}"
	}
	return msg
}

// refusalValues are the config's values that the catalogue's sentences
// name, by code.
func refusalValues(b Business) map[string][]string {
	guests := strconv.Itoa(b.MaxGuests)
	context := b.Context
	return map[string][]string{
		"bad_guests": {guests}, "guest_range": {guests}, "no_property": {strings.Join(b.Slugs, ", ")},
		"bad_roomtype": {strings.Join(b.Rooms, ", ")}, "bad_reference": {strings.Join(b.Prefixes, ", ")},
		"deploy_draft": {context}, "deploy_stale": {context}, "deploy_not_custom": {context},
	}
}

// Print writes the inventory of b as markdown; source names where its
// configuration came from.
func Print(w io.Writer, b Business, source string) {
	fmt.Fprintf(w, "# Refusal inventory\n\nEvery refusal sentence %s can produce, generated by `frontdesk refusals` from %s.\n", b.Name, source)
	fmt.Fprintf(w, "Rules (direct-booking.md §12): P adds the phone, F the booking form or else the phone, L the form link, PL the phone then the link, - nothing; a start call turns P into PL and - into L when the request is known.\n\n")
	fmt.Fprintln(w, "| door | code | rule | sentence | form | phone |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	yes := map[bool]string{true: "yes", false: "no"}
	for _, r := range rows(b) {
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s |\n", r.Door, r.Code, r.Rules,
			strings.ReplaceAll(strings.ReplaceAll(r.Sentence, "|", `\|`), "\n", " "), yes[r.Form], yes[r.Phone])
	}
}
