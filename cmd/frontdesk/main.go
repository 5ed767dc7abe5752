// Command frontdesk opens a small business to AI agents: it serves the
// business's MCP tools, pages and probes from one process on SQLite or
// PostgreSQL.
//
// This is the only package that wires adapters to domain packages: it
// reads the config and flags, opens the store and mounts every route.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	_ "time/tzdata" // location zones must load on hosts without zoneinfo

	"frontdesk/config"
	"frontdesk/internal/clock"
	"frontdesk/internal/failpoint"
	"frontdesk/internal/memplan"
)

const usage = `frontdesk opens a small business to AI agents.

Usage:
  frontdesk serve [--config F] [--addr HOST:PORT] [--data DIR | --database URL]
  frontdesk mcp [--config F] [--data DIR | --database URL]
  frontdesk hub --config F | location --slug S --config F   (a split deployment)
  frontdesk init [--demo | --split DIR]
  frontdesk check-config FILE
  frontdesk sweep [--config F] [--data DIR | --database URL]
  frontdesk staff confirm|decline|cancel|complete|move REFERENCE | list …
  frontdesk staff add-user --username U [--password-file F] [--location SLUG…] [--role owner|clerk]
  frontdesk usp keys rotate|list [--config F] [--data DIR | --database URL]
  frontdesk orp keys rotate|list [--config F] [--data DIR | --database URL]
  frontdesk outbox list | retry CONSUMER POSITION [--config F] [--data DIR | --database URL]
  frontdesk backup FILE [--config F] [--data DIR]
  frontdesk restore FILE [--config F] [--data DIR]
  frontdesk refusals [--config F]
  frontdesk registry-json [--config F] [--name NS/NAME] [--version X.Y.Z] [--out FILE]
  frontdesk forget --email ADDRESS [--dry-run] [--config F] [--data DIR | --database URL]
  frontdesk secrets rotate | status [--config F] [--data DIR | --database URL]
  frontdesk version

Every command answers --help; "frontdesk help COMMAND" shows the same.
`

// commands describes each subcommand for its --help: what it does and its
// arguments. The flags are listed from the command's own flag set.
var commands = map[string]struct{ args, about string }{
	"serve":                {"[flags]", "Serves the MCP tools, pages and probes over HTTP until interrupted. Without --config it runs the\nbuilt-in demo business on SQLite under ./frontdesk-data, with the dev mailbox, and prints its URLs."},
	"mcp":                  {"[flags]", "Serves the hub's MCP tools over stdin and stdout, on the same store as serve. Links in answers\nstart with deployment.public_url (or --public-url); without one, with http://127.0.0.1:8080."},
	"init":                 {"[--demo | --split DIR]", "Prints a commented config file that serves on localhost as it is; with --demo, the demo business;\nwith --split DIR, writes the demo as DIR/hub.toml and a file per location, with a shared secret."},
	"hub":                  {"--config F [flags]", "Serves the hub of a split deployment: the MCP endpoint, whose calls go over the relay to the\nlocation that owns them; every other door (pages, forms, USP, the staff screen, ORP, payment events) proxied to its location,\nbut the staff screen of the hub's own logins, assembled from every location they may see."},
	"location":             {"--slug S --config F [flags]", "Serves location S of a split deployment alone, on its own store: its doors and the relay endpoint."},
	"check-config":         {"FILE", "Checks a config file and lists every problem in it, each with the setting's path\n(and its line where the file is plainly written)."},
	"sweep":                {"[flags]", "Runs one pass of the scheduled work and exits, for an external scheduler; serve also sweeps on its own."},
	"version":              {"", "Prints the module version and the VCS revision the binary was built from."},
	"staff":                {"ACTION …", "Staff work on the same store as serve: add-user, users, remove-user, reset-password, list, book,\nconfirm, decline, cancel, complete, move. Each action answers --help."},
	"staff users":          {"[flags]", "Lists the staff logins with their role, locations and whether they are disabled."},
	"staff remove-user":    {"USERNAME [flags]", "Removes a staff login; its sessions end. The only enabled owner cannot be removed."},
	"staff reset-password": {"USERNAME [--password-file F] [flags]", "Sets a new password for a staff login and ends its sessions. The password is read as add-user reads it."},
	"staff add-user":       {"--username U [--password-file F] [--location SLUG…] [--role owner|clerk] [flags]", "Creates a staff login on the same store as serve. Without --password-file the password is asked for\n(without echo on a terminal; one line of standard input otherwise). A clerk works only at the\nlocations given; an owner sees every location."},
	"staff list":           {"[--location SLUG] [--from DATE --to DATE] [--state S[,S…]] [flags]", "Lists reservations by arrival, with their state, source and what needs attention."},
	"staff confirm":        {"REFERENCE [--by NAME] [--note TEXT] [flags]", "Confirms a reservation; a form request takes its unit then. The guest is mailed."},
	"staff decline":        {"REFERENCE [--by NAME] [--note TEXT] [flags]", "Declines a reservation awaiting staff and frees what it holds. The guest is mailed."},
	"staff cancel":         {"REFERENCE [--by NAME] [--note TEXT] [flags]", "Cancels a reservation and frees its unit. The guest is mailed."},
	"staff complete":       {"REFERENCE [--by NAME] [--note TEXT] [flags]", "Marks a stay or appointment as having taken place."},
	"usp":                  {"keys rotate|list [flags] | platform add [flags] [--file PATH] <profile URI> | platform list [flags] | platform remove [flags] <profile URI>", "The business's USP webhook signing keys, on the same store as serve. rotate adds a key that the\nprofile publishes at once and that signs after usp.key_lead_minutes; the key it replaces keeps\nverifying for usp.key_grace_days. list shows the published keys.\nplatform add pins a platform profile: fetched once now (or read from --file), it is what calls\nnaming that URI are verified against, with no fetch, whether or not the platform's host is up.\nplatform list shows the pins; platform remove drops one."},
	"usp keys rotate":      {"[flags]", "Adds a new USP signing key; the old one keeps verifying through the grace period."},
	"usp keys list":        {"[flags]", "Lists the USP signing keys the business profile publishes."},
	"staff move":           {"REFERENCE [--by NAME] [--note TEXT] [flags]", "Marks a reservation as moved to another and frees its unit."},
	"staff book":           {"--location SLUG --unit TYPE (--checkin DATE --checkout DATE | --start \"DATE HH:MM\") --name NAME (--email E | --phone P) [--guests N] [--notes TEXT] [--by NAME] [flags]", "Books a stay, or a start of a timed unit such as the shuttle, for a guest on the phone or at the desk:\na confirmed reservation from source staff, its room or places held like every other door's."},
	"backup":               {"FILE [flags]", "Writes a consistent copy of the SQLite store to FILE, a new file, while serve goes on serving.\nOn PostgreSQL use pg_dump (docs/operating.md)."},
	"restore":              {"FILE [flags]", "Replaces the SQLite store with the backup FILE, after checking it whole. Refused while serve, mcp,\nsweep or a staff command has the store open; the replaced database is kept beside it."},
	"refusals":             {"[flags]", "Prints, as markdown, every refusal sentence the config can produce, with its assembly rule and\nwhether it offers the booking form and the phone."},
	"forget":               {"--email ADDRESS [--dry-run] [flags]", "Removes one guest's records: their past reservations keep dates and totals but lose name, address,\nphone and notes; intents, receipts, mail, cancellations, lookups and kept USP answers naming the\naddress are deleted. Refused while the guest has a stay still to happen. --dry-run lists and changes nothing."},
	"registry-json":        {"[--name NS/NAME] [--version X.Y.Z] [--out FILE] [flags]", "Writes server.json for the MCP Registry: the hub at deployment.public_url (https) with the tools it\nlists, under the publisher-provided metadata. docs/listing.md says how to publish it."},
	"orp":                  {"keys rotate|list [flags]", "The ORP host's Ed25519 signing keys, on the same store as serve. rotate adds a key that signs from\nthe next start of serve; every key stays published in the discovery document's keys, so what the\nolder keys signed still verifies. list shows the keys."},
	"orp keys rotate":      {"[flags]", "Adds a new ORP host signing key; serve signs with it from its next start."},
	"orp keys list":        {"[flags]", "Lists the ORP host's signing keys, newest first."},
	"outbox":               {"list | retry CONSUMER POSITION [flags]", "The reservation outbox's events set aside, on the same store as serve: an event its consumer (the\nreferral ledger) failed on at five offers, a while apart, is set aside so the events after it go on.\nlist shows them; retry offers one to its consumer again."},
	"secrets":              {"rotate | status [flags]", "The versions of the operational secret that booking proofs and keyed email hashes derive from, on\nthe same store as serve. rotate adds a version that keys every new value; the sweep's re-key pass\nthen rewrites the reservations' keys under it, and the older versions retire when it finishes.\nstatus shows the versions and the pass's progress."},
	"outbox list":          {"[flags]", "Lists the events set aside: consumer, position, reference, the change, attempts, when they failed\nfirst and last, and the consumer's error."},
	"outbox retry":         {"CONSUMER POSITION [flags]", "Offers a set-aside event to its consumer again. Delivered, it is no longer set aside; failing, it\nstays, with the attempt counted, and the error is shown."},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, clock.System{}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "frontdesk:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, clk clock.Clock, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "help", "-h", "--help":
		if len(args) == 0 {
			fmt.Fprint(stdout, usage)
			return nil
		}
		if _, ok := commands[strings.Join(args, " ")]; !ok {
			return fmt.Errorf("unknown command %q", strings.Join(args, " "))
		}
		return run(ctx, clk, append(args, "--help"), stdin, stdout, stderr)
	case "version", "--version", "-version":
		if _, err := parseFlags("version", args, stdout, nil); err != nil {
			return ignoreHelp(err)
		}
		fmt.Fprintln(stdout, versionLine())
		return nil
	case "serve", "mcp", "sweep", "hub", "location":
		m, err := newMain(clk, cmd, args, stdout, stderr)
		if err != nil {
			return ignoreHelp(err)
		}
		switch cmd {
		case "serve", "hub", "location":
			fp, err := failpoint.Parse(os.Getenv(failpoint.Env))
			if err != nil {
				return err
			}
			m.WrapStore, m.WrapJournalFile = fp.Store, fp.JournalFile
			m.memory = memplan.Plan(len(m.Config.Locations), os.Getenv)
			m.ready = make(chan struct{})
			go func() {
				select {
				case <-m.ready:
					// What loading the config and building the servers left
					// behind would otherwise sit in the heap until it grew
					// fourfold.
					debug.FreeOSMemory()
				case <-ctx.Done():
				}
			}()
			err = m.Run(ctx)
			_ = m.logLines.Flush() // nowhere left to say it failed
			return err
		case "mcp":
			return m.RunStdio(ctx, stdin, stdout)
		}
		return m.RunSweep(ctx, stdout)
	case "init":
		var demo *bool
		var split *string
		if _, err := parseFlags(cmd, args, stdout, func(fs *flag.FlagSet) {
			demo = fs.Bool("demo", false, "print the demo business instead of the commented example")
			split = fs.String("split", "", "write the demo as a split deployment into this directory")
		}); err != nil {
			return ignoreHelp(err)
		}
		if *split != "" { // the demo as a split deployment, a file a process
			names, err := config.WriteDemoSplit(*split, rand.Reader)
			fmt.Fprint(stdout, strings.Join(append(names, ""), "\n"))
			return err
		}
		_, err := stdout.Write(map[bool][]byte{false: config.ExampleTOML, true: config.DemoTOML}[*demo])
		return err
	case "staff":
		return runStaff(ctx, clk, args, stdin, stdout, stderr)
	case "usp":
		return runUSP(ctx, clk, args, stdout, stderr)
	case "orp":
		return runORP(ctx, clk, args, stdout, stderr)
	case "outbox":
		return runOutbox(ctx, clk, args, stdout, stderr)
	case "secrets":
		m, fs, err := newMainWith(clk, cmd, args, stdout, stderr, nil)
		if err == nil {
			if err = m.open(ctx, ""); err == nil {
				err = errors.Join(m.bookings.SecretsCommand(ctx, fs.Args(), stdout), m.Close())
			}
		}
		return ignoreHelp(err)
	case "backup":
		return runBackup(ctx, clk, args, stdout, stderr)
	case "restore":
		return runRestore(ctx, clk, args, stdout, stderr)
	case "refusals":
		return runRefusals(ctx, clk, args, stdout, stderr)
	case "forget":
		return runForget(ctx, clk, args, stdout, stderr)
	case "registry-json":
		return runRegistryJSON(ctx, clk, args, stdout, stderr)
	case "check-config":
		fs, err := parseFlags(cmd, args, stdout, nil)
		if err != nil {
			return ignoreHelp(err)
		}
		if fs.NArg() != 1 {
			return errors.New("usage: frontdesk check-config FILE")
		}
		c, err := loadConfig(fs.Arg(0))
		if err != nil {
			return err
		}
		locations := "locations"
		if len(c.Locations) == 1 {
			locations = "location"
		}
		fmt.Fprintf(stdout, "%s: valid (%d %s%s)\n", fs.Arg(0), len(c.Locations), locations, map[string]string{"hub": ", the hub of a split deployment", "location": ", a location of a split deployment"}[c.Split.Role])
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// parseFlags parses the flags define adds (nil for none). --help and -h
// print the command's help to stdout and return flag.ErrHelp; a bad flag
// returns an error that names it and how to get the help.
func parseFlags(cmd string, args []string, stdout io.Writer, define func(*flag.FlagSet)) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if define != nil {
		define(fs)
	}
	// Flags may stand before or after the arguments, as in
	// "staff confirm REF --by ann": parse again after each argument.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(stdout, cmd, fs)
				return nil, err
			}
			return nil, fmt.Errorf("%s: %v (see frontdesk %s --help)", cmd, err, cmd)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if err := fs.Parse(append([]string{"--"}, positional...)); err != nil {
		return nil, err
	}
	return fs, nil
}

func printHelp(w io.Writer, cmd string, fs *flag.FlagSet) {
	c := commands[cmd]
	fmt.Fprintf(w, "Usage: frontdesk %s %s\n\n%s\n", cmd, c.args, c.about)
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if b.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", b.String())
	}
}

// ignoreHelp turns the help request into success: the help is printed.
func ignoreHelp(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// loadConfig reads and validates a config file; every problem is reported,
// one per line.
func loadConfig(path string) (config.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return config.Config{}, err
	}
	c, err := config.Load(data)
	if err != nil {
		return config.Config{}, fmt.Errorf("%s is not valid:\n%w", path, err)
	}
	return c, nil
}
