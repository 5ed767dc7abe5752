package mcpfront

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// registrySchema is the server.json schema the MCP Registry takes.
const registrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// RegistryMeta is the key the official registry keeps a publisher's own
// metadata under.
const RegistryMeta = "io.modelcontextprotocol.registry/publisher-provided"

// ServerJSON is the MCP Registry's description of a remote server.
type ServerJSON struct {
	Schema      string         `json:"$schema"`
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Version     string         `json:"version"`
	WebsiteURL  string         `json:"websiteUrl,omitempty"`
	Remotes     []Remote       `json:"remotes"`
	Meta        map[string]any `json:"_meta"`
}

// Remote is one endpoint of a ServerJSON.
type Remote struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// ListedTool is a tool as a ServerJSON lists it.
type ListedTool struct {
	Name        string               `json:"name"`
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description"`
	Annotations *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// RegistryOptions describe the server's public endpoint for the registry.
type RegistryOptions struct {
	PublicURL string // deployment.public_url, https
	Name      string // NAMESPACE/NAME; "" for the public URL's host reversed, /frontdesk
	Version   string // the version to publish; "" for Built, which must then be a release
	Title     string // the business's name
	Built     string // this binary's version
}

// Registry lists server's tools over an in-memory session, as a client
// sees them, and describes its public endpoint as the MCP Registry's
// server.json.
func Registry(ctx context.Context, server *mcp.Server, o RegistryOptions) (ServerJSON, error) {
	base, name, version := o.PublicURL, o.Name, o.Version
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return ServerJSON{}, fmt.Errorf("registry-json: deployment.public_url %q names no host", base)
	}
	if u.Scheme != "https" {
		return ServerJSON{}, fmt.Errorf("registry-json: deployment.public_url is %s; the registry lists public https endpoints only (set deployment.public_url = \"https://…\")", base)
	}
	if name == "" {
		labels := strings.Split(u.Hostname(), ".")
		slices.Reverse(labels)
		name = strings.Join(labels, ".") + "/frontdesk"
	}
	if strings.Count(name, "/") != 1 {
		return ServerJSON{}, fmt.Errorf("registry-json: --name %q must be NAMESPACE/NAME with one slash", name)
	}
	if version == "" {
		version = o.Built
	}
	if version == "dev" || version == "(devel)" || strings.ContainsAny(version, "^~*x ") {
		return ServerJSON{}, errors.New("registry-json: this binary has no release version; pass --version X.Y.Z or build with the Makefile from a release tag")
	}
	tools, err := listTools(ctx, server, o.Built)
	if err != nil {
		return ServerJSON{}, err
	}
	description := "Find, quote and book stays at " + o.Title
	if len(description) > 100 {
		description = description[:97] + "..."
	}
	return ServerJSON{
		Schema: registrySchema, Name: name, Title: o.Title, Description: description,
		Version: strings.TrimPrefix(version, "v"), WebsiteURL: base + "/",
		Remotes: []Remote{{Type: "streamable-http", URL: base + "/mcp"}},
		Meta:    map[string]any{RegistryMeta: map[string]any{"tools": tools, "policy": base + "/policy", "privacy": base + "/privacy"}},
	}, nil
}

// listTools is server's tools/list answer.
func listTools(ctx context.Context, server *mcp.Server, version string) (_ []ListedTool, err error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, ss.Close()) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "registry-json", Version: version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, cs.Close()) }()
	var out []ListedTool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, ListedTool{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations})
	}
	return out, nil
}
