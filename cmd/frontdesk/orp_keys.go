package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"frontdesk/internal/clock"
	"frontdesk/orp"
)

// runORP runs `frontdesk orp keys rotate|list`: the ORP host's Ed25519
// signing keys, on the same store as serve. A rotation signs with the
// new key from the next start of serve; every key stays published in
// the discovery document, so what the older ones signed still verifies.
func runORP(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	if len(args) < 2 || args[0] != "keys" || (args[1] != "rotate" && args[1] != "list") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(stdout, "Usage: frontdesk orp %s\n\n%s\n", commands["orp"].args, commands["orp"].about)
			return nil
		}
		fmt.Fprintf(stderr, "Usage: frontdesk orp %s\n", commands["orp"].args)
		return errors.New("orp: give \"keys rotate\" or \"keys list\"")
	}
	cmd := "orp keys " + args[1]
	m, err := newMain(clk, cmd, args[2:], stdout, stderr)
	if err != nil {
		return ignoreHelp(err)
	}
	if !m.Config.ORP.Enabled {
		return fmt.Errorf("%s: ORP is not enabled in the config ([orp] enabled = true)", cmd)
	}
	if err := m.open(ctx, ""); err != nil {
		return err
	}
	defer closing(&err, m)
	var s *orp.Signer
	if args[1] == "rotate" {
		s, err = orp.RotateSigner(ctx, m.store, m.Clock.Now(), m.random())
	} else {
		s, err = orp.OpenSigner(ctx, m.store, m.Clock.Now(), m.random())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	s.PrintKeys(stdout)
	return nil
}
