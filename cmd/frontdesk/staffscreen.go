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
	logins := staff.NewLazy(func() (*staff.Service, error) {
		return staff.New(m.store, m.Config.Portfolio, staff.Options{Clock: m.Clock, Random: m.Rand})
	})
	screen := &web.StaffScreen{Config: webConfig(m.Config), Core: m.office, Logger: m.Logger.With("component", "staffscreen"), Partners: partners,
		Logins: logins, Admin: logins.Admin(), Clock: m.Clock, Channels: m.channels, ChannelRule: m.Config.OutboundRule(), Payments: m.payments}
	if m.referrals != nil {
		screen.Referrals = m.referrals
	}
	return screen
}
