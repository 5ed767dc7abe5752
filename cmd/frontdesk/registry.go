package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"frontdesk/direct/directmcp"
	"frontdesk/internal/clock"
	"frontdesk/mcpfront"
)

// runRegistryJSON writes server.json for the hub the config serves, with
// the tool list the hub answers tools/list with.
func runRegistryJSON(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	var name, version, out *string
	m, fs, err := newMainWith(clk, "registry-json", args, stdout, stderr, func(fs *flag.FlagSet) {
		name = fs.String("name", "", "the registry name, NAMESPACE/NAME (default: the public URL's host reversed, /frontdesk)")
		version = fs.String("version", "", "the version to publish (default: this binary's, which must then be a release)")
		out = fs.String("out", "", "write to this file instead of standard output")
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("registry-json: unexpected argument %q (see frontdesk registry-json --help)", fs.Arg(0))
	}
	if err := m.open(ctx, m.Addr); err != nil {
		return err
	}
	defer closing(&err, m)
	doc, err := mcpfront.Registry(ctx, directmcp.NewHub(m.hub, m.bookings, m.door, m.mcpOptions()), mcpfront.RegistryOptions{
		PublicURL: m.Config.Deployment.PublicURL, Name: *name, Version: *version, Title: m.Config.Business.Name, Built: moduleVersion(),
	})
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	b = append(b, '\n')
	if *out != "" {
		return os.WriteFile(*out, b, 0o644)
	}
	_, err = stdout.Write(b)
	return err
}
