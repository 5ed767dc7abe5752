package main

import (
	"net/http"

	"frontdesk/inventory"
	"frontdesk/mcptools"
	"frontdesk/pricing"
	"frontdesk/usp"
	"frontdesk/usphttp"
)

// openUSP builds the business side of USP when the config enables it, on
// the opened store; origin is the public origin the profile names.
func (m *Main) openUSP(origin string) error {
	if !m.Config.USP.Enabled {
		return nil
	}
	if m.Config.Deployment.PublicOrigin != "" {
		origin = m.Config.Deployment.PublicOrigin
	}
	b, err := usp.New(usp.Options{
		Config: m.Config, Inventory: inventory.New(m.store), Pricer: pricing.New(m.Config, origin),
		Clock: m.Clock, Origin: origin, Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	m.usp = b
	return nil
}

// mountUSP mounts the profile, the MCP binding and the REST binding.
func (m *Main) mountUSP(mux *http.ServeMux) {
	if m.usp == nil {
		return
	}
	rest := (&usphttp.Handler{Business: m.usp, Logger: m.Logger}).Routes()
	mux.Handle("GET "+usp.ProfilePath, rest)
	mux.Handle(usp.RESTPath+"/", rest)
	httpOpts := mcptools.HTTPOptions{Hostnames: m.Config.Deployment.Hostnames, Logger: m.Logger}
	mux.Handle(usp.MCPPath, mcptools.Handler(mcptools.NewUSP(m.usp, m.mcpOptions()), httpOpts))
}
