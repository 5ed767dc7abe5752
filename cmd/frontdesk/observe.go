package main

import (
	"context"
	"errors"
	"net"
	"runtime"
	"time"

	"frontdesk/direct"
	"frontdesk/internal/metrics"
	"frontdesk/internal/requestid"
	"frontdesk/reservation"
	"frontdesk/usp/webhook"
	"frontdesk/web"
)

// queueReadTimeout bounds the store reads of one scrape.
const queueReadTimeout = 2 * time.Second

// newMetrics builds the registry with the build's description and the
// queues read at each scrape.
func (m *Main) newMetrics() *metrics.Metrics {
	version, revision := buildVersion()
	reg := metrics.NewBuild(metrics.Build{Version: version, Revision: revision, GoVersion: runtime.Version()})
	reg.Queues(m.queues)
	return reg
}

// queues reads the mail and webhook delivery queues from the store.
func (m *Main) queues() ([]metrics.Queue, error) {
	ctx, cancel := context.WithTimeout(context.Background(), queueReadTimeout)
	defer cancel()
	now := m.Clock.Now()
	mail, err := direct.MailQueue(ctx, m.store, now)
	if err != nil {
		return nil, err
	}
	if m.usp == nil {
		return []metrics.Queue{mail}, nil
	}
	hooks, err := webhook.Depth(ctx, m.store, now)
	if err != nil {
		return nil, err
	}
	return []metrics.Queue{mail, hooks}, nil
}

// countedForms is the booking form's core, counting each request it
// saved or refused in the metrics (door "form").
type countedForms struct {
	web.Forms
	metrics *metrics.Metrics
}

func (c countedForms) Submit(ctx context.Context, req reservation.FormRequest) (reservation.FormResult, error) {
	res, err := c.Forms.Submit(ctx, req)
	var problems reservation.FormProblems
	var limited *reservation.FormLimited
	switch {
	case err == nil:
		requestid.SetReference(ctx, res.Reference)
		c.metrics.Booked("form")
	case errors.As(err, &problems):
		c.metrics.Refused("form", "invalid")
	case errors.As(err, &limited):
		c.metrics.Refused("form", "limited")
	default:
		c.metrics.Refused("form", "fault")
	}
	return res, err
}

// metricsTokenRequired answers /metrics on the main listener without its
// token: a direct connection from this machine cannot be told apart from
// a proxy that adds no forwarding header, so nothing there is open.
const metricsTokenRequired = "Unauthorized: /metrics needs the token named by server.metrics_token_env or metrics_token_file, sent as Authorization: Bearer; or give it a listener of its own with server.metrics_addr."

// logStart writes the line an operator looks for first: what runs, where
// it listens, on which store and from which config.
func (m *Main) logStart(listeners []net.Listener) {
	version, revision := buildVersion()
	addrs := make([]string, len(listeners))
	for i, ln := range listeners {
		addrs[i] = ln.Addr().String()
	}
	engine := "sqlite"
	if m.Config.Store.Database != "" {
		engine = "postgres"
	}
	config := m.ConfigFile
	if config == "" {
		config = "(built-in demo)"
	}
	m.Logger.Info("frontdesk started", "version", version, "revision", revision, "listen", addrs,
		"public_url", m.Config.Deployment.PublicURL, "metrics_url", m.MetricsURL, "engine", engine,
		"store", m.Config.Store.Banner(), "config", config)
	_ = m.logLines.Flush() // the first line says the server is up: at once
}
