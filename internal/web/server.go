// Package web is Launchwatch's HTTP surface: the route table, thin echo
// handlers (one file per route) and the single place errors become
// responses.
package web

import (
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"launchwatch/internal/auth"
	"launchwatch/internal/decode"
	"launchwatch/internal/live"
	"launchwatch/internal/metrics"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
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
	// "" means decode.DefaultLokiLaunchLabel ("launch").
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
	// Auth is how people and tokens sign in (auth.go).
	Auth AuthConfig
	// Metrics are the server's Prometheus metrics, for cmd/web to serve
	// on a separate listener too (--metrics-addr); nil makes its own.
	Metrics *metrics.Metrics
	// IngestBodyGrace and IngestBodyMinRate (bytes a second) bound how long
	// an ingest body may take to arrive: the grace, plus a second per
	// MinRate bytes read; a slower body is answered 408. 0 means
	// DefaultIngestBodyGrace and DefaultIngestBodyMinRate.
	IngestBodyGrace   time.Duration
	IngestBodyMinRate int64
	// MaxIngestBodiesPerCredential is how many ingest bodies one API token
	// (or person) may be sending at once; more are answered 429 before
	// their body is read (ingest_credential.go). 0 means a quarter of the
	// body slots (bodyReadersPerSlot × MaxConcurrentIngest: 64 of 256).
	MaxIngestBodiesPerCredential int
	// DatabaseProbeAfter is how long ingest waits on the database before
	// it asks whether the database answers at all (ingest_route.go); 0
	// means DefaultDatabaseProbeAfter.
	DatabaseProbeAfter time.Duration
	// MaxNewLaunchesPerMinute is how many launches one token or person may
	// create a minute, per process (launch_limit.go); more get 429. 0 means
	// DefaultMaxNewLaunchesPerMinute, a negative number no limit.
	MaxNewLaunchesPerMinute int
	// BacktestBudget and BacktestLimit bound a signature's preview: the
	// most recent BacktestLimit launches in its scope, read for at most
	// BacktestBudget; 0 means pipeline.DefaultBacktestBudget and
	// DefaultBacktestLimit.
	BacktestBudget time.Duration
	BacktestLimit  int
	// WebhookAllowPrivate is --webhook-allow-private: webhook targets may
	// be loopback, link-local, private and metadata addresses. Off, such a
	// target is refused with 422 (notify.CheckDestination), and the
	// delivery worker refuses to connect to one (notify.NewClient).
	WebhookAllowPrivate bool
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
	pipe  *pipeline.Pipeline
	hub   *live.Hub
	// feeds read each followed launch once for all its live clients
	// (launch_live.go).
	feeds *live.Feeds
	log   *slog.Logger
	// metrics and ingestSlots serve the ingest routes (ingest_route.go).
	metrics     *metrics.Metrics
	ingestSlots chan struct{}
	bodySlots   chan struct{}      // ingest bodies being read (ingest_route.go)
	credSlots   *credentialSlots   // of which each credential holds at most a share (ingest_credential.go)
	gaps        *timeline.GapCache // the timeline's gaps of unchanged launches, kept per process
	// hosts and crossOrigin are the server's notion of its own origin
	// (origin.go).
	hosts       hostPolicy
	checkHosts  bool
	crossOrigin *http.CrossOriginProtection
	upgrader    websocket.Upgrader
	// policies is what each route needs, by "METHOD /path" (auth.go).
	policies map[string]routePolicy
	authState
	logins *auth.LoginLimiter
	hasher auth.Hasher
	// launches limits the launches each principal creates (launch_limit.go).
	launches *launchLimiter
	// history is the database's history identity the answers report (history.go).
	history historyCache
	// readAfter routes page reads between a replica and the primary
	// (read_replica.go).
	readAfter readAfter
}

// router registers each route with its access policy, so no route exists
// without one.
type router struct {
	e *echo.Echo
	h *handler
}

func (r router) add(method, path string, need auth.Level, fn echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.h.policies[method+" "+path] = routePolicy{need: need}
	r.e.Add(method, path, fn, mw...)
}

// anyone registers a route that serves everyone alike, without looking
// up who asks.
func (r router) anyone(method, path string, fn echo.HandlerFunc) {
	r.h.policies[method+" "+path] = routePolicy{need: auth.Public, nobody: true}
	r.e.Add(method, path, fn)
}

// static serves files, to anyone.
func (r router) static(prefix string, fsys fs.FS) {
	before := map[string]bool{}
	for _, rt := range r.e.Routes() {
		before[rt.Method+" "+rt.Path] = true
	}
	r.e.StaticFS(prefix, fsys)
	for _, rt := range r.e.Routes() {
		if k := rt.Method + " " + rt.Path; !before[k] {
			r.h.policies[k] = routePolicy{need: auth.Public, nobody: true}
		}
	}
}

// mustCoverAll panics at start when a route was registered without a
// policy: a route nobody thought about must not be open.
func (r router) mustCoverAll() {
	for _, rt := range r.e.Routes() {
		if _, ok := r.h.policies[rt.Method+" "+rt.Path]; !ok {
			panic("web: route " + rt.Method + " " + rt.Path + " has no access policy")
		}
	}
}

// addForm registers a browser form route: the form is read under its size
// limit, then its CSRF token checked.
func (r router) addForm(method, path string, need auth.Level, fn echo.HandlerFunc) {
	r.h.policies[method+" "+path] = routePolicy{need: need, form: true}
	r.e.Add(method, path, fn, readForm, r.h.checkCSRFForm)
}

// now is the server's time (injected in tests).
func (h *handler) now() time.Time { return h.pipe.Clock().Now() }

// New returns the echo instance serving all routes.
func New(cfg Config, st *store.Store, pipe *pipeline.Pipeline, log *slog.Logger) *echo.Echo {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = decode.DefaultMaxBodyBytes
	}
	if cfg.SilentAfter <= 0 {
		cfg.SilentAfter = DefaultSilentAfter
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = decode.DefaultMaxLineBytes
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
	h := &handler{cfg: cfg, store: st, pipe: pipe, hub: cfg.Hub, log: log, gaps: timeline.NewGapCache(),
		policies: map[string]routePolicy{}, logins: auth.NewLoginLimiter(loginBurst, loginEvery),
		hasher: auth.Hasher{Cost: cfg.Auth.PasswordCost}}
	h.touched = map[int64]time.Time{}
	if cfg.MaxNewLaunchesPerMinute == 0 {
		cfg.MaxNewLaunchesPerMinute = DefaultMaxNewLaunchesPerMinute
	}
	h.launches = newLaunchLimiter(cfg.MaxNewLaunchesPerMinute)
	h.metrics = cfg.Metrics
	if h.metrics == nil {
		h.metrics = metrics.New(st, cfg.Hub.Subscribers, log)
	}
	h.ingestSlots = make(chan struct{}, cfg.MaxConcurrentIngest)
	h.bodySlots = make(chan struct{}, bodyReadersPerSlot*cfg.MaxConcurrentIngest)
	if cfg.MaxIngestBodiesPerCredential <= 0 {
		cfg.MaxIngestBodiesPerCredential = defaultIngestBodiesPerCredential(cap(h.bodySlots))
	}
	h.credSlots = newCredentialSlots(cfg.MaxIngestBodiesPerCredential)
	h.hosts, h.checkHosts = newHostPolicy(cfg.PublicURL, cfg.ListenAddr)
	h.crossOrigin = http.NewCrossOriginProtection()
	h.upgrader = websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 32 << 10, WriteBufferPool: &liveWriteBuffers,
		CheckOrigin: h.sameOriginWebsocket}
	h.feeds = live.NewFeeds(cfg.Hub, h.newLaunchSource, log)

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
	e.Use(h.authenticate)
	e.Use(h.noteWrites)
	e.Use(h.reportHistory)
	e.Use(h.limitNewLaunches)

	r := router{e: e, h: h}
	r.anyone("GET", "/healthz", h.healthz)
	r.anyone("GET", "/readyz", h.readyz)
	r.static("/static", static.FS)
	r.add("GET", "/login", auth.Public, h.loginShow)
	r.add("POST", "/login", auth.Public, h.loginCreate, readForm)
	r.addForm("POST", "/logout", auth.Read, h.logout)
	r.add("GET", "/setup", auth.Public, h.setupShow)
	r.add("POST", "/setup", auth.Public, h.setupCreate, readForm)

	r.add("GET", "/", auth.Read, h.launchesIndex, h.pageReads)
	r.add("GET", "/launches/:key", auth.Read, h.timelineShow, h.pageReads)
	r.add("GET", "/launches/:key/tail", auth.Read, h.launchTail)
	r.add("GET", "/launches/:key/alarms/:no/context", auth.Read, h.alarmContext, h.pageReads)
	r.add("GET", "/launches/:key/alarms", auth.Read, h.launchAlarms, h.pageReads)
	r.add("GET", "/launches/:key/config", auth.Read, h.launchConfig, h.pageReads)
	r.add("GET", "/launches/:key/volume", auth.Read, h.launchVolume, h.pageReads)
	r.addForm("POST", "/launches/:key/alarms/:no/decide", auth.Review, h.alarmDecide)
	r.addForm("POST", "/launches/:key/annotations", auth.Review, h.annotationCreate)
	r.addForm("POST", "/launches/:key/pin", auth.Review, h.launchPinForm)
	r.addForm("POST", "/launches/:key/delete", auth.Admin, h.launchDeleteForm)
	r.add("GET", "/rules", auth.Read, h.rulesIndex)
	r.add("GET", "/rules/new", auth.Review, h.ruleNew)
	r.add("GET", "/rules/preview", auth.Review, h.rulePreview)
	r.addForm("POST", "/rules", auth.Review, h.ruleCreate)
	r.addForm("POST", "/rules/:id/toggle", auth.Review, h.ruleToggle)
	r.add("GET", "/rules/:id/edit", auth.Review, h.ruleEdit)
	r.addForm("POST", "/rules/:id", auth.Review, h.ruleUpdate)
	r.add("GET", "/signatures", auth.Read, h.signaturesIndex)
	r.add("GET", "/signatures/new", auth.Review, h.signatureNew)
	r.add("GET", "/signatures/preview", auth.Review, h.signaturePreview)
	r.addForm("POST", "/signatures", auth.Review, h.signatureCreate)
	r.addForm("POST", "/signatures/:id/toggle", auth.Review, h.signatureToggle)
	r.add("GET", "/launches/:key/reclassify", auth.Review, h.reclassifyShow)
	r.addForm("POST", "/launches/:key/reclassify", auth.Review, h.reclassifyApply)
	r.add("GET", "/review", auth.Read, h.reviewIndex)
	r.addForm("POST", "/review/decide", auth.Review, h.reviewDecide)
	r.add("GET", "/compare", auth.Read, h.compareShow, h.pageReads)

	r.add("GET", "/admin/users", auth.Admin, h.usersIndex)
	r.addForm("POST", "/admin/users", auth.Admin, h.userCreate)
	r.addForm("POST", "/admin/users/:id", auth.Admin, h.userUpdate)
	r.add("GET", "/admin/tokens", auth.Admin, h.tokensIndex)
	r.addForm("POST", "/admin/tokens", auth.Admin, h.tokenCreateForm)
	r.addForm("POST", "/admin/tokens/:id/revoke", auth.Admin, h.tokenRevokeForm)
	r.add("GET", "/audit", auth.Admin, h.auditIndex)
	r.add("GET", "/api/v1/audit/chain", auth.Admin, h.apiAuditChain)
	r.add("GET", "/admin/webhooks", auth.Admin, h.webhooksIndex)
	r.addForm("POST", "/admin/webhooks", auth.Admin, h.webhookCreateForm)
	r.addForm("POST", "/admin/webhooks/:id/test", auth.Admin, h.webhookTestForm)
	r.addForm("POST", "/admin/webhooks/:id/delete", auth.Admin, h.webhookDeleteForm)
	r.add("GET", "/api/v1/webhooks", auth.Admin, h.apiWebhooksList)
	r.add("POST", "/api/v1/webhooks", auth.Admin, h.apiWebhookCreate)
	r.add("DELETE", "/api/v1/webhooks/:id", auth.Admin, h.apiWebhookDelete)
	r.add("POST", "/api/v1/webhooks/:id/test", auth.Admin, h.apiWebhookTest)
	r.add("GET", "/api/v1/webhooks/:id/deliveries", auth.Admin, h.apiWebhookDeliveries)

	r.add("POST", "/api/v1/launches/:key/lines", auth.Ingest, h.ingestRoute("native", h.linesIngest))
	r.add("POST", "/api/v1/launches/:key/heartbeat", auth.Ingest, h.launchHeartbeat)
	r.add("POST", "/api/v1/launches/:key/health", auth.Ingest, h.launchHealth)
	r.add("POST", "/api/v1/launches/:key/exit", auth.Ingest, h.launchExit)
	r.add("GET", "/api/v1/launches/:key/lines", auth.Read, h.linesList, h.pageReads)
	r.add("GET", "/api/v1/launches", auth.Read, h.launchesList, h.pageReads)
	r.add("GET", "/api/v1/launches/:key", auth.LaunchStatus, h.launchShow, h.pageReads)
	r.add("GET", "/api/v1/launches/:key/live", auth.LaunchStatus, h.launchLive)
	r.add("GET", "/api/v1/launches/:key/seqs", auth.LaunchStatus, h.launchSeqs)
	r.add("DELETE", "/api/v1/launches/:key", auth.Admin, h.launchDeleteAPI)
	r.add("POST", "/api/v1/launches/:key/pin", auth.Review, h.launchPinAPI(true))
	r.add("POST", "/api/v1/launches/:key/unpin", auth.Review, h.launchPinAPI(false))
	r.add("GET", "/api/v1/live", auth.Read, h.launchesLive)
	r.add("POST", "/api/v1/launches/:key/alarms/:no/decision", auth.Review, h.apiDecision)
	r.add("POST", "/api/v1/launches/:key/reclassify", auth.Review, h.apiLaunchReclassify)
	r.add("GET", "/api/v1/rules", auth.Read, h.apiRulesList)
	r.add("POST", "/api/v1/rules", auth.Review, h.apiRuleCreate)
	r.add("PATCH", "/api/v1/rules/:id", auth.Review, h.apiRuleUpdate)
	r.add("GET", "/api/v1/signatures", auth.Read, h.apiSignaturesList)
	r.add("POST", "/api/v1/signatures", auth.Review, h.apiSignatureCreate)
	r.add("PATCH", "/api/v1/signatures/:id", auth.Review, h.apiSignatureUpdate)
	r.add("GET", "/api/v1/signatures/pack", auth.Read, h.apiSignaturePackExport)
	r.add("POST", "/api/v1/signatures/pack", auth.Review, h.apiSignaturePackImport)
	r.add("GET", "/api/v1/tokens", auth.Admin, h.apiTokensList)
	r.add("POST", "/api/v1/tokens", auth.Admin, h.apiTokenCreate)
	r.add("DELETE", "/api/v1/tokens/:id", auth.Admin, h.apiTokenRevoke)

	r.add("GET", "/incidents", auth.Read, h.incidentsIndex)
	r.add("GET", "/incidents/new", auth.Read, h.incidentNew)
	r.addForm("POST", "/incidents", auth.Review, h.incidentCreate)
	r.add("GET", "/incidents/:id", auth.Read, h.incidentShow)
	r.addForm("POST", "/incidents/:id", auth.Review, h.incidentUpdate)
	r.addForm("POST", "/incidents/:id/launches", auth.Review, h.incidentLaunches)
	r.addForm("POST", "/incidents/:id/notes", auth.Review, h.incidentNoteCreate)
	r.addForm("POST", "/incidents/:id/notes/:note", auth.Review, h.incidentNoteEdit)
	r.addForm("POST", "/incidents/:id/actions", auth.Review, h.incidentActionCreate)
	r.addForm("POST", "/incidents/:id/actions/:item", auth.Review, h.incidentActionUpdate)
	r.add("GET", "/incidents/:id/postmortem", auth.Read, h.postmortemShow)
	r.add("GET", "/incidents/:id/postmortem.md", auth.Read, h.postmortemMarkdown)
	r.add("POST", "/api/v1/incidents", auth.Review, h.incidentAPICreate)
	r.add("GET", "/api/v1/incidents", auth.Read, h.incidentAPIList)
	r.add("GET", "/api/v1/incidents/:id", auth.Read, h.incidentAPIShow)
	r.add("PATCH", "/api/v1/incidents/:id", auth.Review, h.incidentAPIUpdate)
	r.add("POST", "/api/v1/incidents/:id/notes", auth.Review, h.incidentAPINoteCreate)

	r.add("GET", "/quality", auth.Read, h.qualityIndex)
	r.add("GET", "/problems", auth.Read, h.problemsIndex)
	r.add("GET", "/problems/:fp", auth.Read, h.problemShow)
	r.addForm("POST", "/problems/:fp/decide", auth.Review, h.problemDecide)
	r.add("GET", "/api/v1/export/alarms.jsonl", auth.Read, h.exportAlarms)

	// Shipper protocols: Grafana Loki's push API and OTLP/HTTP logs.
	r.add("POST", "/loki/api/v1/push", auth.Ingest, h.ingestRoute("loki", h.lokiPush))
	r.add("POST", "/v1/logs", auth.Ingest, h.ingestRoute("otlp", h.otlpLogs))
	r.add("POST", "/otlp/v1/logs", auth.Ingest, h.ingestRoute("otlp", h.otlpLogs))
	r.add("GET", "/metrics", auth.Read, echo.WrapHandler(h.metrics.Handler()))
	r.mustCoverAll()
	return e
}
