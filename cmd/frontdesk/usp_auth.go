package main

import (
	"context"

	"frontdesk/usp"
	"frontdesk/usp/uspmcp"
)

// uspAuth puts the trust mechanisms in front of the authenticators opts
// already has (usp.Trust.Install).
func (m *Main) uspAuth(ctx context.Context, opts *usp.Options) error {
	creds, err := usp.Trust{Store: m.store, Rand: m.Rand, Clock: m.Clock, RequireProofNonce: m.Config.USP.RequireProofNonce,
		Profiles: func() (*usp.Profiles, error) {
			return usp.ConfiguredProfiles(opts.Config.Profiles, opts.Config.AllowPrivate, m.Clock, opts.ProfileRootCAs, m.store)
		}}.Install(ctx, opts)
	if err != nil {
		return err
	}
	m.uspCredentials = creds
	// The MCP binding learns which platform each session acts for, to
	// offer it its webhooks as notifications, the locations' too at a hub.
	m.uspWebhooks = uspmcp.NewWebhooks()
	opts.Observe = m.uspWebhooks.Observe
	m.split.ServeUSPNotify(m.uspWebhooks.Notify)
	return nil
}
