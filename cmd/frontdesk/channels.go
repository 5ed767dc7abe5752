package main

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"frontdesk/channel"
)

// channelPassEvery is how often serve looks for channel feeds that are
// due; each feed is fetched every channels.every_minutes (15), jittered.
const channelPassEvery = time.Minute

// openChannels builds the channel sync on the desk. Its fetches obey the
// outbound address rule of every other outbound fetch (config.Config.OutboundRule).
func (m *Main) openChannels() {
	c := m.Config.Channels
	feeds := make([]channel.Feed, 0, len(c.Feeds))
	for _, f := range c.Feeds {
		feeds = append(feeds, channel.Feed{Name: f.Name, URL: f.URL, Location: f.Location, Unit: f.Unit, Listing: f.Listing})
	}
	conflicts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "frontdesk_channel_conflicts_total",
		Help: "Blocks imported from a channel's iCalendar feed that found no unit left on some night (a double booking to resolve), by feed.",
	}, []string{"feed"})
	m.metrics.Registry.MustRegister(conflicts)
	m.channels = channel.New(m.store, m.bookings.Desk(), m.Config.Locations, feeds, m.Clock, m.Rand, channel.Options{
		Every:      time.Duration(c.EveryMinutes) * time.Minute,
		Fetcher:    channel.NewFetcher(m.Config.OutboundRule(), c.MaxBytes, time.Duration(c.TimeoutSeconds)*time.Second),
		Mail:       m.mailer,
		From:       m.Config.Mail.From,
		Staff:      m.Config.Mail.Staff,
		Conflicted: func(feed string) { conflicts.WithLabelValues(feed).Inc() },
		Logger:     m.Logger,
	})
}

// channelsJob fetches the channel feeds that are due.
func (m *Main) channelsJob() job {
	return job{name: "channel sync", every: channelPassEvery, atStart: true, run: func(ctx context.Context) error {
		_, err := m.channels.Pass(ctx)
		return err
	}}
}
