package main

import (
	"context"

	"frontdesk/staff"
	"frontdesk/web"
)

// staffScreen builds the staff screen on this process's store, clock and
// booking core.
func (m *Main) staffScreen() *web.StaffScreen {
	var partners web.PartnerOffers
	if m.orp != nil {
		h := m.orp.host
		partners = web.ORPPartners{Host: h, Party: func(ctx context.Context) (string, error) { return m.businessParty(ctx, h) },
			List: func(ctx context.Context, bps int) error { return m.listReferral(ctx, h, bps) }}
	}
	opts, at := staff.Options{Clock: m.Clock, Random: m.Rand}, ""
	if m.split != nil && m.split.Backend == nil { // a split location (the hub relays through its Backend): its sessions and sign-in forms name it, for the hub
		opts.Location, at = &m.Config.Locations[0], m.Config.Locations[0].Slug
	}
	logins := staff.NewLazy(func() (*staff.Service, error) { return staff.New(m.store, m.Config.Portfolio, opts) })
	screen := &web.StaffScreen{Config: webConfig(m.Config), Core: m.office, Logger: m.Logger.With("component", "staffscreen"), Partners: partners,
		Logins: logins, Admin: logins.Admin(), Clock: m.Clock, Channels: m.channels, ChannelRule: m.Config.OutboundRule(), Payments: m.payments, SplitLocation: at}
	if m.referrals != nil {
		screen.Referrals = m.referrals
	}
	return screen
}
