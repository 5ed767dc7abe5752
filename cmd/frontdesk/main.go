// Command frontdesk opens a small business to AI agents: it serves the
// business's MCP tools, pages and probes from one process on SQLite or
// PostgreSQL.
//
// This is the only package that wires adapters to domain packages: it
// reads the config and flags, opens the store and mounts every route.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // location zones must load on hosts without zoneinfo

	"frontdesk/config"
)

const usage = `frontdesk opens a small business to AI agents.

Usage:
  frontdesk serve [--config F] [--addr HOST:PORT] [--data DIR | --database URL]
  frontdesk mcp [--config F] [--data DIR | --database URL]
  frontdesk init [--demo]
  frontdesk check-config FILE
  frontdesk sweep [--config F] [--data DIR | --database URL]
  frontdesk staff confirm|decline|cancel|complete|move REFERENCE | list …
  frontdesk staff add-user --username U [--password-file F] [--location SLUG…] [--role owner|clerk]
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "frontdesk:", err)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "serve":
		m, err := newMain(cmd, args, stdout, stderr)
		if err != nil {
			return err
		}
		return m.Run(ctx)
	case "mcp":
		m, err := newMain(cmd, args, stdout, stderr)
		if err != nil {
			return err
		}
		return m.RunStdio(ctx, stdin, stdout)
	case "init":
		fs := flag.NewFlagSet("init", flag.ContinueOnError)
		fs.SetOutput(stderr)
		demo := fs.Bool("demo", false, "print the demo business instead of the commented example")
		if err := fs.Parse(args); err != nil {
			return err
		}
		if *demo {
			_, err := stdout.Write(config.DemoTOML)
			return err
		}
		_, err := stdout.Write(config.ExampleTOML)
		return err
	case "sweep":
		m, err := newMain(cmd, args, stdout, stderr)
		if err != nil {
			return err
		}
		return m.RunSweep(ctx, stdout)
	case "staff":
		if len(args) > 0 && args[0] == "add-user" {
			return runStaffAddUser(ctx, args[1:], stdin, stdout, stderr)
		}
		return runStaff(ctx, args, stdout, stderr)
	case "check-config":
		if len(args) != 1 {
			return errors.New("usage: frontdesk check-config FILE")
		}
		c, err := loadConfig(args[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: valid (%d locations)\n", args[0], len(c.Locations))
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// loadConfig reads and validates a config file; every problem is reported,
// one per line.
func loadConfig(path string) (config.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return config.Config{}, err
	}
	c, err := config.Parse(data)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		return config.Config{}, fmt.Errorf("%s is not valid:\n%w", path, err)
	}
	return c, nil
}
