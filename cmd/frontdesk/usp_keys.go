package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"frontdesk/internal/clock"
	"frontdesk/usp"
	"frontdesk/usp/keyset"
)

// keysRefreshEvery is how often serve re-reads the stored signing keys
// into the profile, so a rotation made by `frontdesk usp keys rotate` (or
// another instance) is published well within the key lead time.
const keysRefreshEvery = time.Minute

// keySet is the business's webhook signing keys on the opened store.
func (m *Main) keySet() keyset.Set {
	lead := time.Duration(m.Config.USP.KeyLeadMinutes) * time.Minute
	if m.Config.USP.KeyLeadMinutes == 0 {
		lead = time.Hour
	}
	return keyset.Set{
		Records: m.store, Rand: m.Rand, Lead: lead,
		Grace: time.Duration(m.Config.USP.KeyGraceDays) * 24 * time.Hour, // below 7 days keyset uses MinGrace
	}
}

// publishKeys makes sure the business has a signing key and publishes the
// keys valid now, and at a split hub its locations' keys beside them.
func (m *Main) publishKeys(ctx context.Context) error {
	if m.usp == nil {
		return nil
	}
	ks := m.keySet()
	now := m.Clock.Now()
	if err := ks.Ensure(ctx, now); err != nil {
		return fmt.Errorf("usp signing keys: %w", err)
	}
	pub, err := ks.Published(ctx, now)
	if err != nil {
		return fmt.Errorf("usp signing keys: %w", err)
	}
	keys, err := usp.SigningKeysOf(pub)
	if err != nil {
		return err
	}
	m.usp.SetKeys(usp.WithProfileKeys(keys, m.proxy.USPProfiles(ctx)))
	return nil
}

// refreshKeysJob re-publishes the stored keys every keysRefreshEvery; a
// failed read keeps the keys published before.
func (m *Main) refreshKeysJob() job {
	return job{name: "usp signing keys refresh", every: keysRefreshEvery, run: m.publishKeys}
}

// runUSP is `frontdesk usp`: the business's USP signing keys and the
// pinned platform profiles, on the same store as serve.
func runUSP(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "platform" {
		return runUSPPlatform(ctx, clk, args[1:], stdout, stderr)
	}
	if len(args) < 2 || args[0] != "keys" || (args[1] != "rotate" && args[1] != "list") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(stdout, "Usage: frontdesk usp %s\n\n%s\n", commands["usp"].args, commands["usp"].about)
			return nil
		}
		fmt.Fprintf(stderr, "Usage: frontdesk usp %s\n", commands["usp"].args)
		return errors.New("usp: give \"keys rotate\", \"keys list\" or \"platform add|list|remove\"")
	}
	cmd := "usp keys " + args[1]
	m, err := newMain(clk, cmd, args[2:], stdout, stderr)
	if err != nil {
		return ignoreHelp(err)
	}
	if !m.Config.USP.Enabled {
		return fmt.Errorf("%s: USP is not enabled in the config ([usp] enabled = true)", cmd)
	}
	if err := m.open(ctx, ""); err != nil {
		return err
	}
	defer closing(&err, m)
	ks := m.keySet()
	now := m.Clock.Now()
	if args[1] == "rotate" {
		id, err := ks.Rotate(ctx, now)
		if err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		fmt.Fprintf(stdout, "added signing key %s: published now, signing from %s; the key it replaces keeps verifying for %d days after that\n",
			id, now.Add(ks.Lead).UTC().Format(time.RFC3339), int(max(ks.Grace, keyset.MinGrace)/(24*time.Hour)))
	}
	return ks.Print(ctx, now, stdout)
}
