// Command web is Launchwatch's server: the ingest API and the review UI,
// on a PostgreSQL database that it runs itself when none is configured.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/clock"
	"launchwatch/internal/live"
	"launchwatch/internal/metrics"
	"launchwatch/internal/notify"
	"launchwatch/internal/pgserver"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/upkeep"
	"launchwatch/internal/web"
)

// privateDatabase is the database cmd/web uses in its private cluster.
const privateDatabase = "launchwatch"

// defaultPoolConns is the connection pool size unless the database URL sets
// pool_max_conns.
const defaultPoolConns = 16

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "web:", err)
		os.Exit(1)
	}
}

// run starts everything, serves until ctx is done, then shuts down in
// order: stop accepting and drain HTTP requests, close the pool, stop the
// private PostgreSQL last.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)

	dbURL, ownerURL := cfg.DatabaseURL, cfg.DatabaseOwnerURL
	if dbURL == "" {
		pg, err := pgserver.Start(ctx, pgserver.Config{DataDir: cfg.DataDir, Logger: log})
		if err != nil {
			return err
		}
		defer func() {
			if err := pg.Stop(); err != nil {
				log.Error("stopping PostgreSQL", slog.String("error", err.Error()))
			} else {
				log.Info("PostgreSQL stopped")
			}
		}()
		if err := store.EnsureDatabase(ctx, pg.ConnString("postgres"), privateDatabase); err != nil {
			return err
		}
		// The server does not serve as the superuser: migrations run as
		// an owner role, requests as an app role that cannot change the
		// audit log (README "Database roles").
		if err := store.PrepareRoles(ctx, pg.ConnString(privateDatabase), store.PrivateOwnerRole, store.PrivateAppRole); err != nil {
			return err
		}
		dbURL = pg.ConnStringAs(store.PrivateAppRole, privateDatabase)
		ownerURL = pg.ConnStringAs(store.PrivateOwnerRole, privateDatabase)
	}

	pool, err := newPool(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	defer pool.Close()
	var storeOpts []store.Option
	if cfg.DatabaseReadURL != "" {
		// Not pinged: a replica that is down leaves the page reads to the
		// primary (internal/web/read_replica.go).
		replica, err := newPool(ctx, cfg.DatabaseReadURL)
		if err != nil {
			return fmt.Errorf("database read URL: %w", err)
		}
		defer replica.Close()
		storeOpts = append(storeOpts, store.WithReplica(replica))
	}
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("connecting to the database: %w", err)
	}
	if err := prepareSchema(ctx, cfg, pool, ownerURL, log); err != nil {
		return err
	}

	// Live updates: every process LISTENs, so a line stored through any
	// web process reaches the live clients of all of them.
	hub := live.NewHub()
	listenCtx, stopListening := context.WithCancel(context.WithoutCancel(ctx))
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		live.Listen(listenCtx, pool, store.NotifyChannel, hub, log)
	}()
	defer func() { stopListening(); <-listening }() // before the pool closes

	st := store.New(pool, storeOpts...)
	// Expired suppression rules give back the alarms they held even when
	// nobody opens a page (the pages do it too, at once).
	expiring := make(chan struct{})
	go func() {
		defer close(expiring)
		review.RunExpiry(listenCtx, st, clock.Real{}, log)
	}()
	defer func() { stopListening(); <-expiring }()

	if cfg.Retention > 0 {
		// Old launches go, whole line partitions at a time where possible.
		retaining := make(chan struct{})
		go func() {
			defer close(retaining)
			upkeep.RunRetention(listenCtx, st, clock.Real{}, cfg.Retention, upkeep.DefaultRetentionEvery, log)
		}()
		defer func() { stopListening(); <-retaining }()
	}

	// Lines at rest are compacted into compressed blocks (migration 00020).
	compacting := make(chan struct{})
	go func() {
		defer close(compacting)
		upkeep.RunCompaction(listenCtx, st, clock.Real{}, upkeep.CompactEvery, log)
	}()
	defer func() { stopListening(); <-compacting }()

	// A launch whose verdict waits for its stream's end (a trailing ERROR
	// run) is settled a settle bound before it would be shown silent, so it
	// is shown alarm, not "cannot see" (WithStreamEndAfter keeps the
	// default if the difference is not positive).
	pipe := pipeline.New(st, log, pipeline.WithSettleAfter(cfg.SettleAfter),
		pipeline.WithStreamEndAfter(cfg.SilentAfter-cfg.SettleAfter))
	// Fatal alarms that no line settled settle by time: one settler per
	// process, safe beside those of other processes (row locks).
	settling := make(chan struct{})
	go func() {
		defer close(settling)
		pipe.RunSettler(listenCtx)
	}()
	defer func() { stopListening(); <-settling }()

	if err := ensureBootstrapToken(ctx, st, cfg.BootstrapToken, time.Now(), log); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	publicURL, _ := cfg.publicURL()  // validated by parseConfig
	trusted, _ := cfg.proxyTrusted() // validated by parseConfig
	mets := metrics.New(st, hub.Subscribers, log)
	wcfg := web.Config{MaxBodyBytes: cfg.MaxBodyBytes, SilentAfter: cfg.SilentAfter, Hub: hub,
		LokiLaunchLabel: cfg.LokiLaunchLabel, PublicURL: publicURL, ListenAddr: ln.Addr().String(), Metrics: mets,
		MaxNewLaunchesPerMinute: newLaunchLimit(cfg.MaxNewLaunchesPerMinute), WebhookAllowPrivate: cfg.WebhookAllowPrivate,
		Auth: web.AuthConfig{SessionTTL: cfg.SessionTTL, ProxyHeader: cfg.AuthProxyHeader, ProxyTrusted: trusted,
			ProxyDefaultRole: cfg.AuthProxyDefaultRole}}
	if !wcfg.ChecksHosts() {
		log.Warn("no --public-url: any Host header is answered, so a web page can reach this server through DNS rebinding; set --public-url (LAUNCHWATCH_PUBLIC_URL) to the URL people use",
			slog.String("addr", ln.Addr().String()))
	}
	e := web.New(wcfg, st, pipe, log)
	// Webhooks: every process routes and sends; a row lock makes each
	// delivery one process's.
	notifier := notify.New(st, notify.Config{PublicURL: baseURL(publicURL, ln.Addr().String()),
		SilentAfter: cfg.SilentAfter, Log: log, Pool: pool, AllowPrivate: cfg.WebhookAllowPrivate})
	notifying := make(chan struct{})
	go func() {
		defer close(notifying)
		notifier.Run(listenCtx)
	}()
	defer func() { stopListening(); <-notifying }()
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute, // a 16 MiB batch over a slow link
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Shutdown does not close hijacked (websocket) connections: the hub
	// tells its clients to go, and they reconnect to another process.
	srv.RegisterOnShutdown(hub.Close)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	shownURL := "http://" + ln.Addr().String()
	if publicURL != nil {
		shownURL = publicURL.String()
	}
	log.Info("listening", slog.String("addr", ln.Addr().String()), slog.String("url", shownURL))
	// A stop signal during start must not turn into a failed exit here.
	if err := printSetupLink(context.WithoutCancel(ctx), st, baseURL(publicURL, ln.Addr().String()), time.Now(), stdout, log); err != nil {
		log.Error("making the first-start setup link", slog.String("error", err.Error()))
	}
	if cfg.MetricsAddr != "" {
		stopMetrics, err := serveMetrics(cfg.MetricsAddr, mets, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests", slog.Duration("timeout", cfg.ShutdownTimeout))
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Warn("requests still running at shutdown timeout", slog.String("error", err.Error()))
	}
	return nil
}

// newPool is a pool on dbURL with Launchwatch's connection deadlines and
// pool size unless the URL sets its own.
func newPool(ctx context.Context, dbURL string) (*pgxpool.Pool, error) {
	poolCfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(dbURL, "pool_max_conns") {
		// pgx's default (4 on a 2-core machine) would queue concurrent
		// ingest batches of different launches behind each other.
		poolCfg.MaxConns = defaultPoolConns
	}
	store.ConfigurePool(poolCfg) // connection deadlines
	return pgxpool.NewWithConfig(ctx, poolCfg)
}

func newLogger(cfg config, w io.Writer) *slog.Logger {
	level, _ := parseLevel(cfg.LogLevel) // validated by parseConfig
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// newLaunchLimit is web.Config's form of --max-new-launches-per-minute,
// whose 0 means no limit.
func newLaunchLimit(n int64) int {
	if n == 0 {
		return -1
	}
	return int(min(n, 1<<30))
}

// prepareSchema migrates the schema (unless --migrate=false) and, with an
// owner role, as it, and then grants the serving role (pool's) what it
// needs. Without one the serving role owns the schema, and could change
// the audit log: that is said at start.
func prepareSchema(ctx context.Context, cfg config, pool *pgxpool.Pool, ownerURL string, log *slog.Logger) error {
	if ownerURL == "" {
		if cfg.Migrate {
			if err := store.Migrate(ctx, pool, log); err != nil {
				return err
			}
		}
		if may, err := store.MayChangeAuditLog(ctx, pool); err != nil {
			return err
		} else if may {
			log.Warn("the database role that serves requests owns the audit log and could change it (only its hash chain, launchwatch audit verify, would show an edit): set --database-owner-url (DATABASE_OWNER_URL) to the role that owns the schema, and --database-url to a role of its own (README \"Database roles\")")
		}
		return nil
	}
	ownerCfg, err := pgxpool.ParseConfig(ownerURL)
	if err != nil {
		return fmt.Errorf("database owner URL: %w", err)
	}
	ownerCfg.MaxConns = 2
	store.ConfigurePool(ownerCfg)
	owner, err := pgxpool.NewWithConfig(ctx, ownerCfg)
	if err != nil {
		return fmt.Errorf("database owner URL: %w", err)
	}
	defer owner.Close()
	ownerRole, err := store.CurrentRole(ctx, owner)
	if err != nil {
		return fmt.Errorf("connecting to the database as its owner: %w", err)
	}
	appRole, err := store.CurrentRole(ctx, pool)
	if err != nil {
		return err
	}
	if ownerRole == appRole {
		return fmt.Errorf("--database-url and --database-owner-url are both role %q: requests need a role of their own, which cannot change the audit log", appRole)
	}
	if cfg.Migrate {
		if err := store.Migrate(ctx, owner, log); err != nil {
			return err
		}
	}
	if err := store.GrantApp(ctx, owner, appRole); err != nil {
		return err
	}
	log.Debug("serving as a role of its own", slog.String("role", appRole), slog.String("owner", ownerRole))
	return nil
}
