package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/direct/directmcp"
	"frontdesk/internal/clock"
)

// registrySchema is the server.json schema the MCP Registry takes.
const registrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// registryMeta is the key the official registry keeps a publisher's own
// metadata under.
const registryMeta = "io.modelcontextprotocol.registry/publisher-provided"

// serverJSON is the MCP Registry's description of a remote server.
type serverJSON struct {
	Schema      string         `json:"$schema"`
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Version     string         `json:"version"`
	WebsiteURL  string         `json:"websiteUrl,omitempty"`
	Remotes     []remote       `json:"remotes"`
	Meta        map[string]any `json:"_meta"`
}

type remote struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type listedTool struct {
	Name        string               `json:"name"`
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description"`
	Annotations *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

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
	doc, err := m.serverJSON(ctx, *name, *version)
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

// serverJSON lists the hub's tools over an in-memory session, as a
// client sees them, and describes the hub's public endpoint.
func (m *Main) serverJSON(ctx context.Context, name, version string) (serverJSON, error) {
	base := m.Config.Deployment.PublicURL
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return serverJSON{}, fmt.Errorf("registry-json: deployment.public_url %q names no host", base)
	}
	if u.Scheme != "https" {
		return serverJSON{}, fmt.Errorf("registry-json: deployment.public_url is %s; the registry lists public https endpoints only (set deployment.public_url = \"https://…\")", base)
	}
	if name == "" {
		labels := strings.Split(u.Hostname(), ".")
		slices.Reverse(labels)
		name = strings.Join(labels, ".") + "/frontdesk"
	}
	if strings.Count(name, "/") != 1 {
		return serverJSON{}, fmt.Errorf("registry-json: --name %q must be NAMESPACE/NAME with one slash", name)
	}
	if version == "" {
		version = moduleVersion()
	}
	if version == "dev" || version == "(devel)" || strings.ContainsAny(version, "^~*x ") {
		return serverJSON{}, errors.New("registry-json: this binary has no release version; pass --version X.Y.Z or build with the Makefile from a release tag")
	}
	tools, err := m.hubTools(ctx)
	if err != nil {
		return serverJSON{}, err
	}
	description := "Find, quote and book stays at " + m.Config.Business.Name
	if len(description) > 100 {
		description = description[:97] + "..."
	}
	return serverJSON{
		Schema: registrySchema, Name: name, Title: m.Config.Business.Name, Description: description,
		Version: strings.TrimPrefix(version, "v"), WebsiteURL: base + "/",
		Remotes: []remote{{Type: "streamable-http", URL: base + "/mcp"}},
		Meta:    map[string]any{registryMeta: map[string]any{"tools": tools, "policy": base + "/policy", "privacy": base + "/privacy"}},
	}, nil
}

// hubTools is the hub's tools/list answer.
func (m *Main) hubTools(ctx context.Context) (_ []listedTool, err error) {
	server := directmcp.NewHub(m.hub, m.bookings, m.mcpOptions())
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer closing(&err, ss)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "registry-json", Version: moduleVersion()}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer closing(&err, cs)
	var out []listedTool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, listedTool{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations})
	}
	return out, nil
}
