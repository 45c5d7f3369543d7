// Package metrics is Launchwatch's Prometheus instrumentation: ingest
// counters and latency by protocol, kept by the handlers, and gauges read
// at scrape time (alarms by kind and state, rule hits, websocket clients,
// the database pool).
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"launchwatch/internal/store"
)

// Source is what the scrape-time gauges read.
type Source interface {
	AlarmCounts(ctx context.Context) ([]store.AlarmCount, error)
	RuleHits(ctx context.Context) ([]store.RuleHit, error)
	Pool() *pgxpool.Pool
}

// Metrics holds one registry per server, so tests can run many side by side.
type Metrics struct {
	reg        *prometheus.Registry
	lines      *prometheus.CounterVec
	duplicates *prometheus.CounterVec
	bytes      *prometheus.CounterVec
	batches    *prometheus.CounterVec
	rejections *prometheus.CounterVec
	latency    *prometheus.HistogramVec
}

// New returns the metrics of a server reading gauges from src; clients
// reports the number of live (websocket) clients.
func New(src Source, clients func() int, log *slog.Logger) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		lines: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "launchwatch_ingest_lines_total",
			Help: "Log lines stored, by ingest protocol."}, []string{"protocol"}),
		duplicates: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "launchwatch_ingest_duplicate_lines_total",
			Help: "Lines received again (a retried batch) and not stored twice, by ingest protocol."}, []string{"protocol"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "launchwatch_ingest_bytes_total",
			Help: "Request body bytes accepted (after decompression), by ingest protocol."}, []string{"protocol"}),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "launchwatch_ingest_batches_total",
			Help: "Ingest requests stored, by protocol."}, []string{"protocol"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "launchwatch_ingest_rejections_total",
			Help: "Ingest requests refused, by protocol and reason (invalid, too_large, unsupported, overloaded, slow, unavailable, error)."},
			[]string{"protocol", "reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "launchwatch_ingest_duration_seconds",
			Help:    "Time to answer an ingest request, by protocol.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}, []string{"protocol"}),
	}
	m.reg.MustRegister(m.lines, m.duplicates, m.bytes, m.batches, m.rejections, m.latency,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "launchwatch_live_clients",
			Help: "Live clients (websocket tails of launches) connected to this process."},
			func() float64 { return float64(clients()) }),
		&storeCollector{src: src, log: log},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Stored counts an ingest request whose lines were stored.
func (m *Metrics) Stored(protocol string, took time.Duration, bodyBytes, lines, duplicates int) {
	m.batches.WithLabelValues(protocol).Inc()
	m.lines.WithLabelValues(protocol).Add(float64(lines))
	m.duplicates.WithLabelValues(protocol).Add(float64(duplicates))
	m.bytes.WithLabelValues(protocol).Add(float64(bodyBytes))
	m.latency.WithLabelValues(protocol).Observe(took.Seconds())
}

// Rejected counts an ingest request that was refused.
func (m *Metrics) Rejected(protocol, reason string, took time.Duration) {
	m.rejections.WithLabelValues(protocol, reason).Inc()
	m.latency.WithLabelValues(protocol).Observe(took.Seconds())
}

// storeCollector reads the gauges that live in the database at scrape time.
type storeCollector struct {
	src Source
	log *slog.Logger
}

var (
	alarmsDesc = prometheus.NewDesc("launchwatch_alarms", "Alarms (withdrawn ones left out), by kind and review state.",
		[]string{"kind", "state"}, nil)
	ruleHitsDesc = prometheus.NewDesc("launchwatch_rule_hits_total", "Alarms a suppression rule has hidden, by rule id.",
		[]string{"rule"}, nil)
	poolAcquired = prometheus.NewDesc("launchwatch_db_pool_acquired_connections", "Database connections in use.", nil, nil)
	poolIdle     = prometheus.NewDesc("launchwatch_db_pool_idle_connections", "Idle database connections.", nil, nil)
	poolTotal    = prometheus.NewDesc("launchwatch_db_pool_total_connections", "Database connections open.", nil, nil)
	poolMax      = prometheus.NewDesc("launchwatch_db_pool_max_connections", "The most database connections the pool opens.", nil, nil)
	poolAcquires = prometheus.NewDesc("launchwatch_db_pool_acquires_total", "Connections taken from the pool.", nil, nil)
	poolWaited   = prometheus.NewDesc("launchwatch_db_pool_acquire_wait_seconds_total",
		"Time spent waiting for a free database connection.", nil, nil)
)

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{alarmsDesc, ruleHitsDesc, poolAcquired, poolIdle, poolTotal, poolMax, poolAcquires, poolWaited} {
		ch <- d
	}
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Pool().Stat()
	ch <- prometheus.MustNewConstMetric(poolAcquired, prometheus.GaugeValue, float64(st.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(st.IdleConns()))
	ch <- prometheus.MustNewConstMetric(poolTotal, prometheus.GaugeValue, float64(st.TotalConns()))
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(st.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(st.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaited, prometheus.CounterValue, st.AcquireDuration().Seconds())

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	alarms, err := c.src.AlarmCounts(ctx)
	if err != nil {
		c.log.Warn("metrics: alarm counts", slog.String("error", err.Error()))
		ch <- prometheus.NewInvalidMetric(alarmsDesc, err)
	}
	for _, a := range alarms {
		ch <- prometheus.MustNewConstMetric(alarmsDesc, prometheus.GaugeValue, float64(a.Count), a.Kind, a.State)
	}
	hits, err := c.src.RuleHits(ctx)
	if err != nil {
		c.log.Warn("metrics: rule hits", slog.String("error", err.Error()))
		ch <- prometheus.NewInvalidMetric(ruleHitsDesc, err)
	}
	for _, h := range hits {
		ch <- prometheus.MustNewConstMetric(ruleHitsDesc, prometheus.CounterValue, float64(h.Hits), strconv.FormatInt(h.ID, 10))
	}
}
