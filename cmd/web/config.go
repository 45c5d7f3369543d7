package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"launchwatch/internal/auth"
	"launchwatch/internal/cliflag"
	"launchwatch/internal/decode"
	"launchwatch/internal/pipeline"
)

// config is every setting of cmd/web. Each has a flag and an environment
// variable; the flag wins. Secrets may come from a file named by the
// variable's _FILE variant (DATABASE_URL_FILE), as container platforms do.
type config struct {
	Addr        string
	DataDir     string
	DatabaseURL string
	// DatabaseOwnerURL is the role that owns the schema and migrates it;
	// DatabaseURL's role then serves requests with only the grants it
	// needs (store.GrantApp). Empty: DatabaseURL's role does both.
	DatabaseOwnerURL string
	// DatabaseReadURL is a streaming standby of DatabaseURL that serves
	// the page reads (store.WithReplica); empty: the primary serves all.
	DatabaseReadURL string
	MaxBodyBytes    int64
	LogLevel        string
	LogFormat       string
	Migrate         bool
	ShutdownTimeout time.Duration
	SilentAfter     time.Duration
	SettleAfter     time.Duration
	LokiLaunchLabel string
	PublicURL       string
	// Accounts and tokens (docs/api.md, "Accounts and tokens").
	BootstrapToken       string
	AuthProxyHeader      string
	AuthProxyTrusted     string
	AuthProxyDefaultRole string
	SessionTTL           time.Duration
	MetricsAddr          string
	// Retention: launches with nothing new for this long are deleted
	// (store.ApplyRetention); 0 keeps everything.
	Retention               time.Duration
	MaxNewLaunchesPerMinute int64
	// WebhookAllowPrivate lets webhooks go to loopback, link-local,
	// private and metadata addresses (notify.RefusedAddr).
	WebhookAllowPrivate bool
}

const usageHeader = `Usage: web [flags]

Launchwatch's web server: ingest API, and (later) the review UI.
With no database URL it runs a private PostgreSQL cluster in the data
directory (initdb on first start, stopped when this process stops).

Every flag can also be set with the environment variable in brackets;
a flag given on the command line wins.

Flags:
`

// parseConfig reads flags from args with defaults from the environment.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, usageHeader)
		cliflag.PrintDefaults(out, fs, "database-url", "database-owner-url", "database-read-url", "bootstrap-token") // their defaults are secrets
	}
	envOr := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	dbURL, err := secretEnv(getenv, "DATABASE_URL")
	if err != nil {
		return c, err
	}
	ownerURL, err := secretEnv(getenv, "DATABASE_OWNER_URL")
	if err != nil {
		return c, err
	}
	readURL, err := secretEnv(getenv, "DATABASE_READ_URL")
	if err != nil {
		return c, err
	}
	maxBody, err := envInt(getenv, "LAUNCHWATCH_MAX_BODY_BYTES", decode.DefaultMaxBodyBytes)
	if err != nil {
		return c, err
	}
	migrate, err := envBool(getenv, "LAUNCHWATCH_MIGRATE", true)
	if err != nil {
		return c, err
	}
	shutdown, err := envDuration(getenv, "LAUNCHWATCH_SHUTDOWN_TIMEOUT", 10*time.Second)
	if err != nil {
		return c, err
	}
	silent, err := envDuration(getenv, "LAUNCHWATCH_SILENT_AFTER", 2*time.Minute)
	if err != nil {
		return c, err
	}
	settle, err := envDuration(getenv, "LAUNCHWATCH_SETTLE_AFTER", pipeline.DefaultSettleAfter)
	if err != nil {
		return c, err
	}
	bootstrap, err := secretEnv(getenv, "LAUNCHWATCH_BOOTSTRAP_TOKEN")
	if err != nil {
		return c, err
	}
	sessionTTL, err := envDuration(getenv, "LAUNCHWATCH_SESSION_TTL", 7*24*time.Hour)
	if err != nil {
		return c, err
	}
	fs.StringVar(&c.Addr, "addr", envOr("LAUNCHWATCH_ADDR", "127.0.0.1:8080"), "listen `address` (host:port; port 0 picks a free one) [LAUNCHWATCH_ADDR]")
	fs.StringVar(&c.DataDir, "data-dir", envOr("LAUNCHWATCH_DATA_DIR", "./.data"), "`directory` of the private PostgreSQL cluster, used when no database URL is set [LAUNCHWATCH_DATA_DIR]")
	fs.StringVar(&c.DatabaseURL, "database-url", dbURL, "PostgreSQL connection `URL`; empty runs the private cluster in the data directory [DATABASE_URL or DATABASE_URL_FILE]")
	fs.StringVar(&c.DatabaseOwnerURL, "database-owner-url", ownerURL, "PostgreSQL connection `URL` of the role that owns the schema: migrations run as it, and it grants the --database-url role only what serving needs (no UPDATE, DELETE or TRUNCATE of the audit log); empty: the --database-url role does both [DATABASE_OWNER_URL or DATABASE_OWNER_URL_FILE]")
	fs.StringVar(&c.DatabaseReadURL, "database-read-url", readURL, "PostgreSQL connection `URL` of a streaming standby of the database: the launch list, launch, log, search and compare pages read from it, except a person's or token's own writes (read from the primary until the standby replayed them); empty reads everything from the primary [DATABASE_READ_URL or DATABASE_READ_URL_FILE]")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", maxBody, "largest ingest request body in `bytes`, after decompression; larger bodies get 413 [LAUNCHWATCH_MAX_BODY_BYTES]")
	fs.StringVar(&c.LogLevel, "log-level", envOr("LAUNCHWATCH_LOG_LEVEL", "info"), "log `level`: debug, info, warn or error [LAUNCHWATCH_LOG_LEVEL]")
	fs.StringVar(&c.LogFormat, "log-format", envOr("LAUNCHWATCH_LOG_FORMAT", "text"), "log `format`: text or json [LAUNCHWATCH_LOG_FORMAT]")
	fs.BoolVar(&c.Migrate, "migrate", migrate, "apply pending database migrations at start [LAUNCHWATCH_MIGRATE]")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", shutdown, "how long to let in-flight requests finish on SIGINT/SIGTERM [LAUNCHWATCH_SHUTDOWN_TIMEOUT]")
	fs.DurationVar(&c.SilentAfter, "silent-after", silent, "a starting or loading launch with no line and no heartbeat for this `duration` is shown as silent [LAUNCHWATCH_SILENT_AFTER]")
	fs.DurationVar(&c.SettleAfter, "settle-after", settle, "a fatal alarm whose event could still change (a retry line may withdraw it) counts for the status and `wait` this `duration` after the launch's last line at the latest [LAUNCHWATCH_SETTLE_AFTER]")
	fs.StringVar(&c.LokiLaunchLabel, "loki-launch-label", envOr("LAUNCHWATCH_LOKI_LAUNCH_LABEL", decode.DefaultLokiLaunchLabel), "Loki stream `label` that names the launch (else service_name, else job) [LAUNCHWATCH_LOKI_LAUNCH_LABEL]")
	fs.StringVar(&c.PublicURL, "public-url", envOr("LAUNCHWATCH_PUBLIC_URL", ""), "`URL` people and shippers reach the server at (https://launchwatch.example.com): other Host headers get 421, and only this origin may post forms or open websockets; empty accepts the loopback names when --addr is a loopback address, and any host (with a warning) on all interfaces [LAUNCHWATCH_PUBLIC_URL]")
	fs.StringVar(&c.BootstrapToken, "bootstrap-token", bootstrap, "make sure an admin-scoped API token with exactly this `secret` exists at start (compose, CI, scripts); a changed secret revokes the old one [LAUNCHWATCH_BOOTSTRAP_TOKEN or LAUNCHWATCH_BOOTSTRAP_TOKEN_FILE]")
	fs.StringVar(&c.AuthProxyHeader, "auth-proxy-header", envOr("LAUNCHWATCH_AUTH_PROXY_HEADER", ""), "`header` a reverse proxy sets to the signed-in user's e-mail (X-Forwarded-Email for oauth2-proxy); honoured only from --auth-proxy-trusted [LAUNCHWATCH_AUTH_PROXY_HEADER]")
	fs.StringVar(&c.AuthProxyTrusted, "auth-proxy-trusted", envOr("LAUNCHWATCH_AUTH_PROXY_TRUSTED", ""), "comma-separated `CIDRs` the reverse proxy connects from, e.g. 10.0.0.0/8,127.0.0.1/32 [LAUNCHWATCH_AUTH_PROXY_TRUSTED]")
	fs.StringVar(&c.AuthProxyDefaultRole, "auth-proxy-default-role", envOr("LAUNCHWATCH_AUTH_PROXY_DEFAULT_ROLE", "viewer"), "`role` of a user the proxy names for the first time: viewer, reviewer or admin [LAUNCHWATCH_AUTH_PROXY_DEFAULT_ROLE]")
	fs.DurationVar(&c.SessionTTL, "session-ttl", sessionTTL, "how long a browser sign-in lasts [LAUNCHWATCH_SESSION_TTL]")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", envOr("LAUNCHWATCH_METRICS_ADDR", ""), "serve /metrics without authentication on this separate listen `address` (host:port); on the main address it needs a read token [LAUNCHWATCH_METRICS_ADDR]")
	retention := envOr("LAUNCHWATCH_RETENTION", "0")
	fs.StringVar(&retention, "retention", retention, "delete launches with no line, heartbeat or change for this `duration` (720h or 30d), dropping whole line partitions where it can; pinned launches and those of an unresolved incident stay; 0 keeps everything [LAUNCHWATCH_RETENTION]")
	maxNew, err := envInt(getenv, "LAUNCHWATCH_MAX_NEW_LAUNCHES_PER_MINUTE", 600)
	if err != nil {
		return c, err
	}
	fs.Int64Var(&c.MaxNewLaunchesPerMinute, "max-new-launches-per-minute", maxNew, "at most `n` new launches a minute per API token (or person) in each web process; more get 429 with Retry-After; 0 means no limit [LAUNCHWATCH_MAX_NEW_LAUNCHES_PER_MINUTE]")
	allowPrivate, err := envBool(getenv, "LAUNCHWATCH_WEBHOOK_ALLOW_PRIVATE", false)
	if err != nil {
		return c, err
	}
	fs.BoolVar(&c.WebhookAllowPrivate, "webhook-allow-private", allowPrivate, "let webhook targets be loopback, link-local, private or metadata addresses (127.0.0.1, 10.x, 169.254.169.254, fd00::/8, ...); off, they are refused when saved and when sent [LAUNCHWATCH_WEBHOOK_ALLOW_PRIVATE]")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.Retention, err = parseRetention(retention); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	return c, c.validate()
}

func (c config) validate() error {
	var errs []error
	if c.Addr == "" {
		errs = append(errs, errors.New("--addr must not be empty"))
	}
	if c.DatabaseURL == "" && c.DataDir == "" {
		errs = append(errs, errors.New("set --database-url or --data-dir"))
	}
	if c.DatabaseOwnerURL != "" && c.DatabaseURL == "" {
		errs = append(errs, errors.New("--database-owner-url needs --database-url (the role that serves requests); the private PostgreSQL makes both roles itself"))
	}
	if c.DatabaseReadURL != "" && c.DatabaseURL == "" {
		errs = append(errs, errors.New("--database-read-url is a standby of --database-url: set both (the private PostgreSQL has no standby)"))
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, fmt.Errorf("--max-body-bytes must be at least 1024, got %d", c.MaxBodyBytes))
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format must be text or json, got %q", c.LogFormat))
	}
	if c.SilentAfter <= 0 {
		errs = append(errs, fmt.Errorf("--silent-after must be positive, got %s", c.SilentAfter))
	}
	if c.SettleAfter <= 0 || c.SettleAfter > time.Minute {
		errs = append(errs, fmt.Errorf("--settle-after must be positive and at most 1m, got %s", c.SettleAfter))
	}
	if !lokiLabelPattern.MatchString(c.LokiLaunchLabel) {
		errs = append(errs, fmt.Errorf("--loki-launch-label must be a Loki label name, got %q", c.LokiLaunchLabel))
	}
	if _, err := c.publicURL(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.proxyTrusted(); err != nil {
		errs = append(errs, err)
	}
	if c.AuthProxyHeader != "" && c.AuthProxyTrusted == "" {
		errs = append(errs, errors.New("--auth-proxy-header needs --auth-proxy-trusted: the header is honoured only from the proxy's addresses"))
	}
	if c.AuthProxyHeader != "" && !headerNamePattern.MatchString(c.AuthProxyHeader) {
		errs = append(errs, fmt.Errorf("--auth-proxy-header must be a header name, got %q", c.AuthProxyHeader))
	}
	if _, err := auth.ParseRole(c.AuthProxyDefaultRole); err != nil {
		errs = append(errs, fmt.Errorf("--auth-proxy-default-role: %w", err))
	}
	if c.SessionTTL < time.Minute {
		errs = append(errs, fmt.Errorf("--session-ttl must be at least 1m, got %s", c.SessionTTL))
	}
	if c.BootstrapToken != "" && !auth.LooksLikeSecret(c.BootstrapToken) {
		errs = append(errs, errors.New("--bootstrap-token must be one word of at most 512 characters"))
	}
	if c.MaxNewLaunchesPerMinute < 0 {
		errs = append(errs, fmt.Errorf("--max-new-launches-per-minute must be 0 (no limit) or more, got %d", c.MaxNewLaunchesPerMinute))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--shutdown-timeout must be positive, got %s", c.ShutdownTimeout))
	}
	return errors.Join(errs...)
}

// publicURL parses --public-url: nil when unset, else an http or https
// URL with a host and nothing after it but an optional "/".
func (c config) publicURL() (*url.URL, error) {
	if c.PublicURL == "" {
		return nil, nil
	}
	u, err := url.Parse(c.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("--public-url must be an http or https URL such as https://launchwatch.example.com (no path), got %q", c.PublicURL)
	}
	return u, nil
}

// proxyTrusted parses --auth-proxy-trusted: CIDRs, or single addresses.
func (c config) proxyTrusted() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(c.AuthProxyTrusted, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("--auth-proxy-trusted: %q is not a CIDR or an address", s)
		}
		out = append(out, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
	}
	return out, nil
}

// headerNamePattern is an HTTP header name (RFC 9110 token).
var headerNamePattern = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")

// lokiLabelPattern is a valid Loki (Prometheus) label name.
var lokiLabelPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("--log-level must be debug, info, warn or error, got %q", s)
	}
	return l, nil
}

// secretEnv reads NAME, or the file named by NAME_FILE.
func secretEnv(getenv func(string) string, name string) (string, error) {
	if v := getenv(name); v != "" {
		return v, nil
	}
	path := getenv(name + "_FILE")
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func envInt(getenv func(string) string, name string, def int64) (int64, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s must be an integer, got %q", name, v)
	}
	return n, nil
}

func envBool(getenv func(string) string, name string, def bool) (bool, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false, got %q", name, v)
	}
	return b, nil
}

func envDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s must be a duration such as 10s, got %q", name, v)
	}
	return d, nil
}

// parseRetention reads --retention: a Go duration (720h) or whole days
// (30d); "" and 0 keep everything. Less than an hour is refused: a typo
// such as 30m must not delete a fleet's launches.
func parseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*365 {
			return 0, fmt.Errorf("--retention must be a duration such as 720h or 30d, got %q", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("--retention must be a duration such as 720h or 30d, got %q", s)
		}
	}
	if d != 0 && d < time.Hour {
		return 0, fmt.Errorf("--retention must be 0 (keep everything) or at least 1h, got %q", s)
	}
	return d, nil
}
