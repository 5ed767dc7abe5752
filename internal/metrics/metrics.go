// Package metrics defines the Prometheus series the server exports, on a
// registry the server owns rather than the global one: HTTP and MCP
// traffic, bookings and refusals by door, the scheduled jobs, the
// delivery queues, the outbox's set-aside events and the build. It imports only the Prometheus client.
package metrics

import (
	"time"

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
	// Bookings and Refusals count what each door (chat, usp, form) answered
	// a request for a reservation.
	Bookings *prometheus.CounterVec // door
	Refusals *prometheus.CounterVec // door, code
	// Jobs are the scheduled passes (booking sweep, USP deadlines…).
	jobSeconds     *prometheus.GaugeVec   // job
	jobLastSuccess *prometheus.GaugeVec   // job
	jobFailures    *prometheus.CounterVec // job
	// DeadLetters counts messages given up on after every retry, by
	// queue (mail, webhook).
	DeadLetters *prometheus.CounterVec
	// OutboxSetAside counts reservation outbox events set aside after
	// their consumer failed on them at every offer, by consumer.
	OutboxSetAside *prometheus.CounterVec

	responses sync.Map // responseKey → prometheus.Counter
	tools     sync.Map // toolKey → toolSeries
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

type toolKey struct{ server, tool, outcome string }

type toolSeries struct {
	calls   prometheus.Counter
	seconds prometheus.Observer
}

// ToolCall counts one MCP tool call and its duration. Each series is
// looked up by its labels once and kept, as Response does: hashing the
// labels on every call cost the hot tools more than counting. A nil
// Metrics counts nothing.
func (m *Metrics) ToolCall(server, tool, outcome string, seconds float64) {
	if m == nil {
		return
	}
	k := toolKey{server, tool, outcome}
	s, ok := m.tools.Load(k)
	if !ok {
		s, _ = m.tools.LoadOrStore(k, toolSeries{m.ToolCalls.WithLabelValues(server, tool, outcome), m.ToolSeconds.WithLabelValues(server, tool)})
	}
	s.(toolSeries).calls.Inc()
	s.(toolSeries).seconds.Observe(seconds)
}

// Booked counts a reservation a door made. A nil Metrics counts nothing,
// so doors built without metrics (in tests) need no check.
func (m *Metrics) Booked(door string) {
	if m != nil {
		m.Bookings.WithLabelValues(door).Inc()
	}
}

// Refused counts a door's refusal of a booking request by its code.
func (m *Metrics) Refused(door, code string) {
	if m != nil {
		m.Refusals.WithLabelValues(door, code).Inc()
	}
}

// Job records one pass of a scheduled job: how long it took, and when it
// last succeeded (unix seconds) or that it failed.
func (m *Metrics) Job(name string, seconds float64, ok bool, unix float64) {
	m.jobSeconds.WithLabelValues(name).Set(seconds)
	if ok {
		m.jobLastSuccess.WithLabelValues(name).Set(unix)
	} else {
		m.jobFailures.WithLabelValues(name).Inc()
	}
}

// SetAside counts an outbox event set aside for consumer. A nil Metrics
// counts nothing.
func (m *Metrics) SetAside(consumer string) {
	if m != nil {
		m.OutboxSetAside.WithLabelValues(consumer).Inc()
	}
}

// Build describes the running binary for frontdesk_build_info.
type Build struct {
	Version, Revision, GoVersion string
}

// New registers the series on a fresh registry.
func New() *Metrics { return NewBuild(Build{}) }

// NewBuild is New with the build described in frontdesk_build_info.
func NewBuild(b Build) *Metrics {
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
		Bookings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_bookings_total",
			Help: "Reservations made, by the door that took them (chat, usp, form).",
		}, []string{"door"}),
		Refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_booking_refusals_total",
			Help: "Booking requests a door refused, by door and refusal code.",
		}, []string{"door", "code"}),
		jobSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "frontdesk_job_duration_seconds",
			Help: "How long the last pass of each scheduled job took.",
		}, []string{"job"}),
		jobLastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "frontdesk_job_last_success_timestamp_seconds",
			Help: "When each scheduled job last finished a pass without error (unix seconds).",
		}, []string{"job"}),
		jobFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_job_failures_total",
			Help: "Passes of each scheduled job that ended in an error.",
		}, []string{"job"}),
		DeadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_dead_letters_total",
			Help: "Messages given up on after every retry, by queue (mail: notices exhausted; webhook: USP events moved to the dead letters).",
		}, []string{"queue"}),
		OutboxSetAside: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_outbox_set_aside_total",
			Help: "Reservation outbox events set aside after their consumer (such as the referral ledger) failed on them at every offer, by consumer; frontdesk outbox list shows them.",
		}, []string{"consumer"}),
	}
	m.ConnectionsRefused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "frontdesk_http_connections_refused_total",
		Help: "Connections closed on arrival because their address held server.connections_per_address already.",
	})
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "frontdesk_build_info",
		Help:        "The running binary: its version, VCS revision and Go version (always 1).",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion},
	})
	build.Set(1)
	m.Registry.MustRegister(m.ToolCalls, m.ToolSeconds, m.HTTPResponses, m.ConnectionsRefused, m.BookingErrors,
		m.Bookings, m.Refusals, m.jobSeconds, m.jobLastSuccess, m.jobFailures, m.DeadLetters, m.OutboxSetAside, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Queue is one delivery queue as a scrape reads it.
type Queue struct {
	Name          string  // mail, webhook
	Depth         int     // messages waiting, at most the reader's cap
	OldestSeconds float64 // age of the oldest waiting message; 0 when empty
	Dead          int     // messages given up on and kept for staff; -1 when the queue keeps no count
}

// Age is the age at now of a queue's oldest message, written at oldest;
// 0 for an empty queue (oldest zero).
func Age(now, oldest time.Time) float64 {
	if oldest.IsZero() {
		return 0
	}
	return max(now.Sub(oldest).Seconds(), 0)
}

// Queues exports the queues read returns, read at each scrape, as
// frontdesk_queue_depth, frontdesk_queue_oldest_seconds and
// frontdesk_queue_dead. A failed read exports nothing for that scrape.
func (m *Metrics) Queues(read func() ([]Queue, error)) {
	m.Registry.MustRegister(queueCollector{read})
}

var (
	queueDepth  = prometheus.NewDesc("frontdesk_queue_depth", "Messages waiting in each delivery queue (mail notices, USP webhook events), counted up to 1000.", []string{"queue"}, nil)
	queueOldest = prometheus.NewDesc("frontdesk_queue_oldest_seconds", "Age of the oldest message waiting in each delivery queue.", []string{"queue"}, nil)
	queueDead   = prometheus.NewDesc("frontdesk_queue_dead", "Messages of each queue given up on after every retry and kept for staff.", []string{"queue"}, nil)
)

type queueCollector struct{ read func() ([]Queue, error) }

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepth
	ch <- queueOldest
	ch <- queueDead
}

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	qs, err := c.read()
	if err != nil {
		return
	}
	for _, q := range qs {
		ch <- prometheus.MustNewConstMetric(queueDepth, prometheus.GaugeValue, float64(q.Depth), q.Name)
		ch <- prometheus.MustNewConstMetric(queueOldest, prometheus.GaugeValue, q.OldestSeconds, q.Name)
		if q.Dead >= 0 {
			ch <- prometheus.MustNewConstMetric(queueDead, prometheus.GaugeValue, float64(q.Dead), q.Name)
		}
	}
}

// Backlog exports f, read at each scrape, as the gauge name.
func (m *Metrics) Backlog(name, help string, f func() float64) {
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}
