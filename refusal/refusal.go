package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"frontdesk/booking/chatdoor/catalogue"
	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/pricing"
)

// doorFieldCodes are the codes the chat door itself refuses, for fields
// it checks before the core runs; it gives them rule P (the phone). The
// core's codes take their rule from the catalogue. The test
// TestRefusalInventoryMatchesCode reads the refusal sites of booking/ and
// booking/chatdoor/ and fails when this list and they disagree.
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

// refusalRow is one line of the inventory.
type refusalRow struct {
	door, code, rules, sentence string
	form, phone                 bool
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

// refusalRows are every refusal sentence the config can produce: the chat
// door's catalogue, filled with the config's phone and values, the quote
// refusals' fixed first lines, and the sentences serve itself answers
// with.
func refusalRows(c config.Config) []refusalRow {
	phone := c.Business.Phone
	values := refusalValues(c)
	var rows []refusalRow
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
		rows = append(rows, refusalRow{door: "chat", code: code, rules: rule, sentence: sentence, form: form, phone: callable})
	}
	headers := pricing.RefusalHeaders()
	kinds := make([]string, 0, len(headers))
	for k := range headers {
		kinds = append(kinds, string(k))
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		rows = append(rows, refusalRow{door: "chat, quote", code: "quote_" + k, rules: "PL",
			sentence: headers[pricing.RefusalKind(k)] + " (then the request's own values)", form: true, phone: true})
	}
	for _, line := range strings.Split(strings.TrimSpace(refusalSitesText), "\n") {
		parts := strings.SplitN(line, "\t", 3)
		sentence := siteSentence(parts[2])
		rows = append(rows, refusalRow{door: parts[0], code: parts[1], rules: "-", sentence: sentence,
			phone: strings.Contains(sentence, "call {value}")})
	}
	rows = append(rows,
		refusalRow{door: "http", code: "plain_credentials", rules: "-", sentence: plainCredentialsRefusal},
		refusalRow{door: "http", code: "metrics_token_required", rules: "-", sentence: metricsTokenRequired},
	)
	return rows
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
func refusalValues(c config.Config) map[string][]string {
	var slugs, prefixes, rooms []string
	for _, l := range c.Locations {
		slugs = append(slugs, l.Slug)
		prefixes = append(prefixes, l.Prefix)
		for _, u := range l.Units {
			if !slices.Contains(rooms, u.Type) {
				rooms = append(rooms, u.Type)
			}
		}
	}
	guests := strconv.Itoa(c.Limits.MaxGuests)
	context := c.Deployment.Context
	return map[string][]string{
		"bad_guests": {guests}, "guest_range": {guests}, "no_property": {strings.Join(slugs, ", ")},
		"bad_roomtype": {strings.Join(rooms, ", ")}, "bad_reference": {strings.Join(prefixes, ", ")},
		"deploy_draft": {context}, "deploy_stale": {context}, "deploy_not_custom": {context},
	}
}

// printRefusals writes the inventory as markdown.
func printRefusals(w io.Writer, c config.Config, source string) {
	fmt.Fprintf(w, "# Refusal inventory\n\nEvery refusal sentence %s can produce, generated by `frontdesk refusals` from %s.\n", c.Business.Name, source)
	fmt.Fprintf(w, "Rules (direct-booking.md §12): P adds the phone, F the booking form or else the phone, L the form link, PL the phone then the link, - nothing; a start call turns P into PL and - into L when the request is known.\n\n")
	fmt.Fprintln(w, "| door | code | rule | sentence | form | phone |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	yes := map[bool]string{true: "yes", false: "no"}
	for _, r := range refusalRows(c) {
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s |\n", r.door, r.code, r.rules,
			strings.ReplaceAll(strings.ReplaceAll(r.sentence, "|", `\|`), "\n", " "), yes[r.form], yes[r.phone])
	}
}

// runRefusals prints the inventory of the config serve would run.
func runRefusals(_ context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	m, err := newMain(clk, "refusals", args, stdout, stderr)
	if err != nil {
		return ignoreHelp(err)
	}
	source := "the built-in demo"
	if m.ConfigFile != "" {
		source = m.ConfigFile
	}
	printRefusals(stdout, m.Config, source)
	return nil
}
