package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"frontdesk/internal/clock"
	"frontdesk/usp"
)

// runUSPPlatform is `frontdesk usp platform add|list|remove`: the
// platform profiles pinned in the store, which calls naming their URI are
// verified against without a fetch.
func runUSPPlatform(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	if len(args) == 0 || (args[0] != "add" && args[0] != "list" && args[0] != "remove") {
		fmt.Fprintf(stderr, "Usage: frontdesk usp %s\n", commands["usp"].args)
		return errors.New(`usp platform: give "add [--file PATH] <profile URI>", "list" or "remove <profile URI>"`)
	}
	cmd := "usp platform " + args[0]
	var file *string
	m, fs, err := newMainWith(clk, cmd, args[1:], stdout, stderr, func(fs *flag.FlagSet) {
		if args[0] == "add" {
			file = fs.String("file", "", "read the profile document from this file instead of fetching it once from the URI")
		}
	})
	if err != nil {
		return ignoreHelp(err)
	}
	want := 1
	if args[0] == "list" {
		want = 0
	}
	if fs.NArg() != want {
		return fmt.Errorf("%s: give %s (see frontdesk usp --help)", cmd, map[int]string{0: "no argument", 1: "the profile URI"}[want])
	}
	if !m.Config.USP.Enabled {
		return fmt.Errorf("%s: USP is not enabled in the config ([usp] enabled = true)", cmd)
	}
	if err := m.open(ctx, ""); err != nil {
		return err
	}
	defer closing(&err, m)
	switch args[0] {
	case "add":
		uri := fs.Arg(0)
		doc, source, err := m.profileDocument(ctx, uri, *file)
		if err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		if err := usp.PinProfile(ctx, m.store, uri, doc, source, m.Clock.Now()); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		fmt.Fprintf(stdout, "pinned the profile %s (%s): calls naming it are verified against it without a fetch\n", uri, source)
	case "remove":
		ok, err := usp.UnpinProfile(ctx, m.store, fs.Arg(0))
		if err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		if !ok {
			return fmt.Errorf("%s: %s is not pinned", cmd, fs.Arg(0))
		}
		fmt.Fprintf(stdout, "unpinned %s: it is fetched again when a call names it\n", fs.Arg(0))
	}
	return usp.PrintPinnedProfiles(ctx, m.store, stdout)
}

// profileDocument is the document to pin for uri: the file's when one is
// named, else the profile fetched once now under the [usp] fetch rules.
func (m *Main) profileDocument(ctx context.Context, uri, file string) ([]byte, string, error) {
	if file != "" {
		doc, err := os.ReadFile(file)
		return doc, "file", err
	}
	profiles, err := usp.ConfiguredProfiles(uspProfileFetch(m.Config.USP), m.Config.AllowPrivate(), m.Clock, m.USPRootCAs, nil)
	if err != nil {
		return nil, "", err
	}
	doc, err := profiles.Fetch(ctx, uri)
	return doc, "fetched", err
}
