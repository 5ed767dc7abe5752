// Package metrics defines the Prometheus series the server exports, on a
// registry the server owns rather than the global one. It imports only the
// Prometheus client.
package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics holds every series.
type Metrics struct {
	Registry      *prometheus.Registry
	ToolCalls     *prometheus.CounterVec   // server, tool, outcome
	ToolSeconds   *prometheus.HistogramVec // server, tool
	HTTPResponses *prometheus.CounterVec   // route, code
	BookingErrors *prometheus.CounterVec   // code, internal
	// ConnectionsRefused counts connections closed at once because their
	// address already held as many as it may.
	ConnectionsRefused prometheus.Counter

	responses sync.Map // responseKey → prometheus.Counter
}

type responseKey struct {
	route string
	code  int
}

// Response counts one HTTP response. The counter of each route and code
// is looked up once: resolving label values cost a busy route more than
// the increment.
func (m *Metrics) Response(route string, code int) {
	k := responseKey{route, code}
	c, ok := m.responses.Load(k)
	if !ok {
		c, _ = m.responses.LoadOrStore(k, m.HTTPResponses.WithLabelValues(route, strconv.Itoa(code)))
	}
	c.(prometheus.Counter).Inc()
}

// New registers the series on a fresh registry.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		ToolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_mcp_tool_calls_total",
			Help: "MCP tool calls by server, tool and outcome (ok, refused, error).",
		}, []string{"server", "tool", "outcome"}),
		ToolSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "frontdesk_mcp_tool_call_seconds",
			Help:    "MCP tool call latency.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"server", "tool"}),
		HTTPResponses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_http_responses_total",
			Help: "HTTP responses by route pattern and status code.",
		}, []string{"route", "code"}),
		BookingErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_booking_errors_total",
			Help: "Booking answers that were not a success, by code, and whether an internal cause (such as a storage outage) was behind them.",
		}, []string{"code", "internal"}),
	}
	m.ConnectionsRefused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "frontdesk_http_connections_refused_total",
		Help: "Connections closed on arrival because their address held server.connections_per_address already.",
	})
	m.Registry.MustRegister(m.ToolCalls, m.ToolSeconds, m.HTTPResponses, m.ConnectionsRefused, m.BookingErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
