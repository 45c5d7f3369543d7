// Package web is Launchwatch's HTTP surface: the route table, thin echo
// handlers (one file per route) and the single place errors become
// responses.
package web

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"launchwatch/internal/ingest"
	"launchwatch/internal/live"
	"launchwatch/internal/metrics"
	"launchwatch/internal/store"
	"launchwatch/static"
)

// Config holds the HTTP-level settings.
type Config struct {
	MaxBodyBytes int64 // largest accepted request body, after decompression
	MaxLineBytes int   // longest line stored whole
	// Hub wakes live clients when launches change; cmd/web feeds it from
	// PostgreSQL LISTEN. Nil gives a hub of its own that nothing feeds.
	Hub *live.Hub
	// SilentAfter is how long a starting or loading launch may go without a
	// line or heartbeat before it is shown as silent; 0 means DefaultSilentAfter.
	SilentAfter time.Duration
	// LokiLaunchLabel is the Loki stream label that names the launch;
	// "" means ingest.DefaultLokiLaunchLabel ("launch").
	LokiLaunchLabel string
	// MaxConcurrentIngest is how many ingest requests are served at once;
	// more are answered 429 with Retry-After. 0 means DefaultMaxConcurrentIngest.
	MaxConcurrentIngest int
	// PublicURL is the URL people and shippers reach the server at
	// (--public-url): only its host is answered (421 for others) and only
	// its origin may post forms or open websockets from a browser. Nil
	// derives the policy from ListenAddr.
	PublicURL *url.URL
	// ListenAddr is the address the server listens on, its port resolved.
	// Without PublicURL: a loopback address accepts exactly the loopback
	// names (localhost, 127.x, [::1]) with its port; one specific address
	// accepts itself; all interfaces (0.0.0.0, ::) or "" checks no host.
	ListenAddr string
	// IngestBodyGrace and IngestBodyMinRate (bytes a second) bound how long
	// an ingest body may take to arrive: the grace, plus a second per
	// MinRate bytes read; a slower body is answered 408. 0 means
	// DefaultIngestBodyGrace and DefaultIngestBodyMinRate.
	IngestBodyGrace   time.Duration
	IngestBodyMinRate int64
	// DatabaseProbeAfter is how long ingest waits on the database before
	// it asks whether the database answers at all (ingest_route.go); 0
	// means DefaultDatabaseProbeAfter.
	DatabaseProbeAfter time.Duration
}

// ChecksHosts reports whether a server with cfg checks the Host header;
// cmd/web warns when it does not.
func (cfg Config) ChecksHosts() bool {
	_, check := newHostPolicy(cfg.PublicURL, cfg.ListenAddr)
	return check
}

// DefaultSilentAfter is the silence threshold when none is configured.
const DefaultSilentAfter = 2 * time.Minute

// handler holds what every route needs.
type handler struct {
	cfg   Config
	store *store.Store
	pipe  *ingest.Pipeline
	hub   *live.Hub
	log   *slog.Logger
	// metrics and ingestSlots serve the ingest routes (ingest_route.go).
	metrics     *metrics.Metrics
	ingestSlots chan struct{}
	bodySlots   chan struct{} // ingest bodies being read (ingest_route.go)
	gaps        *gapCache     // the timeline's gaps of unchanged launches (gap_cache.go)
	// hosts and crossOrigin are the server's notion of its own origin
	// (origin.go).
	hosts       hostPolicy
	checkHosts  bool
	crossOrigin *http.CrossOriginProtection
	upgrader    websocket.Upgrader
}

// New returns the echo instance serving all routes.
func New(cfg Config, st *store.Store, pipe *ingest.Pipeline, log *slog.Logger) *echo.Echo {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = ingest.DefaultMaxBodyBytes
	}
	if cfg.SilentAfter <= 0 {
		cfg.SilentAfter = DefaultSilentAfter
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = ingest.DefaultMaxLineBytes
	}
	if cfg.Hub == nil {
		cfg.Hub = live.NewHub()
	}
	if cfg.MaxConcurrentIngest <= 0 {
		cfg.MaxConcurrentIngest = DefaultMaxConcurrentIngest
	}
	if cfg.IngestBodyGrace <= 0 {
		cfg.IngestBodyGrace = DefaultIngestBodyGrace
	}
	if cfg.IngestBodyMinRate <= 0 {
		cfg.IngestBodyMinRate = DefaultIngestBodyMinRate
	}
	if cfg.DatabaseProbeAfter <= 0 {
		cfg.DatabaseProbeAfter = DefaultDatabaseProbeAfter
	}
	h := &handler{cfg: cfg, store: st, pipe: pipe, hub: cfg.Hub, log: log, gaps: newGapCache()}
	h.metrics = metrics.New(st, cfg.Hub.Subscribers, log)
	h.ingestSlots = make(chan struct{}, cfg.MaxConcurrentIngest)
	h.bodySlots = make(chan struct{}, bodyReadersPerSlot*cfg.MaxConcurrentIngest)
	h.hosts, h.checkHosts = newHostPolicy(cfg.PublicURL, cfg.ListenAddr)
	h.crossOrigin = http.NewCrossOriginProtection()
	h.upgrader = websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 32 << 10, CheckOrigin: h.sameOriginWebsocket}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = h.handleError
	e.Pre(securityHeaders)
	if h.checkHosts {
		e.Pre(h.checkHost)
	}
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisablePrintStack: true, LogErrorFunc: h.logPanic}))
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURIPath: true, LogStatus: true, LogLatency: true, HandleError: true,
		LogValuesFunc: h.logRequest,
	}))

	e.GET("/healthz", h.healthz)
	e.GET("/readyz", h.readyz)
	e.StaticFS("/static", static.FS)
	e.GET("/", h.launchesIndex)
	e.GET("/launches/:key", h.timelineShow)
	e.GET("/launches/:key/tail", h.launchTail)
	e.GET("/launches/:key/alarms/:no/context", h.alarmContext)
	e.GET("/launches/:key/config", h.launchConfig)
	// Browser forms change state: refuse cross-origin posts (CSRF), then
	// read the form under its size limit.
	uiForm := func(next echo.HandlerFunc) echo.HandlerFunc { return h.sameOriginForm(readForm(next)) }
	e.POST("/launches/:key/alarms/:no/decide", h.alarmDecide, uiForm)
	e.POST("/launches/:key/annotations", h.annotationCreate, uiForm)
	e.GET("/rules", h.rulesIndex)
	e.GET("/rules/new", h.ruleNew)
	e.GET("/rules/preview", h.rulePreview)
	e.POST("/rules", h.ruleCreate, uiForm)
	e.POST("/rules/:id/toggle", h.ruleToggle, uiForm)
	e.GET("/rules/:id/edit", h.ruleEdit)
	e.POST("/rules/:id", h.ruleUpdate, uiForm)
	e.GET("/review", h.reviewIndex)
	e.POST("/review/decide", h.reviewDecide, uiForm)
	e.GET("/compare", h.compareShow)

	api := e.Group("/api/v1")
	api.POST("/launches/:key/lines", h.ingestRoute("native", h.linesIngest))
	api.POST("/launches/:key/heartbeat", h.launchHeartbeat)
	api.POST("/launches/:key/health", h.launchHealth)
	api.POST("/launches/:key/exit", h.launchExit)
	api.GET("/launches/:key/lines", h.linesList)
	api.GET("/launches", h.launchesList)
	api.GET("/launches/:key", h.launchShow)
	api.GET("/launches/:key/live", h.launchLive)
	api.GET("/live", h.launchesLive)

	// Shipper protocols: Grafana Loki's push API and OTLP/HTTP logs.
	e.POST("/loki/api/v1/push", h.ingestRoute("loki", h.lokiPush))
	e.POST("/v1/logs", h.ingestRoute("otlp", h.otlpLogs))
	e.POST("/otlp/v1/logs", h.ingestRoute("otlp", h.otlpLogs))
	e.GET("/metrics", echo.WrapHandler(h.metrics.Handler()))
	return e
}
