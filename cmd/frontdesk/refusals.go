package main

import (
	"context"
	"io"
	"slices"

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/tlsfront"
	"frontdesk/refusal"
)

// refusalBusiness is what of c the refusal inventory names, with the
// refusals serve answers with itself.
func refusalBusiness(c config.Config) refusal.Business {
	b := refusal.Business{Name: c.Business.Name, Phone: c.Business.Phone, Context: c.Deployment.Context, MaxGuests: c.Limits.MaxGuests,
		Extra: []refusal.Row{
			{Door: "http", Code: "plain_credentials", Rules: "-", Sentence: tlsfront.PlainCredentialsRefusal},
			{Door: "http", Code: "metrics_token_required", Rules: "-", Sentence: metricsTokenRequired},
		}}
	for _, l := range c.Locations {
		b.Slugs = append(b.Slugs, l.Slug)
		b.Prefixes = append(b.Prefixes, l.Prefix)
		for _, u := range l.Units {
			if !slices.Contains(b.Rooms, u.Type) {
				b.Rooms = append(b.Rooms, u.Type)
			}
		}
	}
	return b
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
	refusal.Print(stdout, refusalBusiness(m.Config), source)
	return nil
}
