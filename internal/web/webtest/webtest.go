// Package webtest starts a real Launchwatch server for tests: the web
// handlers on an httptest server, a fresh migrated database of its own, and
// a live hub fed by PostgreSQL LISTEN, as cmd/web wires them.
package webtest

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"launchwatch/internal/auth"
	"launchwatch/internal/clock"
	"launchwatch/internal/live"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
)

// Server is a running test server.
type Server struct {
	URL     string // http://127.0.0.1:port
	DBURL   string // its database, for other processes to share
	Store   *store.Store
	Hub     *live.Hub
	Handler *httptest.Server
	Clock   clock.Clock // the server's clock: a *clock.Fake given WithClock, else the wall clock
	// Token is an admin-scoped API token of the server (AdminToken), as
	// cmd/web makes from --bootstrap-token.
	Token string
}

// AdminToken is the secret of every test server's admin token.
const AdminToken = "lw_test-admin-token-for-every-test-server"

// AdminName and AdminSession are every test server's admin user and the
// secret of a session it has: browser tests send it as the session cookie
// (cookies do not tell ports apart, so one cookie serves every test
// server on 127.0.0.1).
const (
	AdminName     = "ada"
	AdminSession  = "lw_test-admin-session-for-every-test-server"
	AdminPassword = "admin-password"
)

// NewToken makes an API token with scope ("ingest", "read", "review",
// "admin") and returns its secret.
func (s *Server) NewToken(t testing.TB, scope string) string {
	t.Helper()
	secret := auth.NewSecret()
	_, err := s.Store.CreateToken(context.Background(), store.Token{Name: scope + "-" + secret[3:9], Scope: scope,
		CreatedBy: "test", CreatedAt: time.Now()}, auth.HashSecret(secret))
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// NewUser makes a user with role ("viewer", "reviewer", "admin") and
// password, and returns it.
func (s *Server) NewUser(t testing.TB, name, role, password string) store.User {
	t.Helper()
	hash, err := auth.Hasher{Cost: bcrypt.MinCost}.Hash(password)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Store.CreateUser(context.Background(), store.User{Name: name, Role: role, PasswordHash: hash}, "test")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Session signs a new user with role in (as the sign-in page does after
// checking the password) and returns the session cookie's value, for
// browser tests that are not about signing in.
func (s *Server) Session(t testing.TB, name, role string) string {
	t.Helper()
	u := s.NewUser(t, name, role, "password-of-"+name)
	secret := auth.NewSecret()
	now := time.Now()
	if err := s.Store.CreateSession(context.Background(), auth.HashSecret(secret), u.ID, now, now.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	return secret
}

// Option configures a test server.
type Option func(*options)

type options struct {
	pipe       []pipeline.Option
	noAccounts bool
	tracer     pgx.QueryTracer
	primary    string
	replica    string
}

// WithDatabases runs the server on database primary instead of a fresh
// one, with page reads from replica when it is not empty (a streaming
// standby of primary: storetest.NewPair).
func WithDatabases(primary, replica string) Option {
	return func(o *options) { o.primary, o.replica = primary, replica }
}

// WithTracer traces every statement of the server's pool with tr (a test
// that counts what the server reads).
func WithTracer(tr pgx.QueryTracer) Option {
	return func(o *options) { o.tracer = tr }
}

// WithoutAccounts starts a server with no user and no token, as a fresh
// installation is before its first admin.
func WithoutAccounts() Option {
	return func(o *options) { o.noAccounts = true }
}

// WithClock runs the server (its ingest and its settler) on c, so a test
// moves time by hand instead of sleeping.
func WithClock(c clock.Clock) Option {
	return func(o *options) { o.pipe = append(o.pipe, pipeline.WithClock(c)) }
}

// WithSettleAfter sets the server's settle bound (--settle-after).
func WithSettleAfter(d time.Duration) Option {
	return func(o *options) { o.pipe = append(o.pipe, pipeline.WithSettleAfter(d)) }
}

// Start runs a server with cfg for the rest of the test, with a settler as
// cmd/web runs one. The package's TestMain must call storetest.Main.
func Start(t testing.TB, cfg web.Config, opts ...Option) *Server {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var pool *pgxpool.Pool
	var dbURL string
	if o.primary == "" {
		pool, dbURL = storetest.NewDB(t)
	} else {
		dbURL = o.primary
	}
	if o.tracer != nil || o.primary != "" {
		cfg, err := pgxpool.ParseConfig(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.Tracer = o.tracer
		if pool, err = pgxpool.NewWithConfig(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
	}
	var stOpts []store.Option
	if o.replica != "" {
		replica, err := pgxpool.New(context.Background(), o.replica)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(replica.Close)
		stOpts = append(stOpts, store.WithReplica(replica))
	}
	st := store.New(pool, stOpts...)
	log := slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	hub := live.NewHub()
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		live.Listen(ctx, pool, store.NotifyChannel, hub, log)
	}()
	clk := clock.Clock(clock.Real{})
	pipe := pipeline.New(st, log, append([]pipeline.Option{pipeline.WithClock(clk)}, o.pipe...)...)
	settling := make(chan struct{})
	go func() {
		defer close(settling)
		pipe.RunSettler(ctx)
	}()
	// Rules expire by the expiry worker, as in cmd/web, on the same clock.
	expiring := make(chan struct{})
	go func() {
		defer close(expiring)
		review.RunExpiry(ctx, st, pipe.Clock(), log)
	}()
	cfg.Hub = hub
	// Listen first, so the server knows its address and checks the Host
	// header as cmd/web does on a loopback address.
	srv := httptest.NewUnstartedServer(nil)
	if cfg.ListenAddr == "" {
		cfg.ListenAddr = srv.Listener.Addr().String()
	}
	if cfg.Auth.PasswordCost == 0 {
		cfg.Auth.PasswordCost = bcrypt.MinCost // tests make many users
	}
	srv.Config.Handler = web.New(cfg, st, pipe, log)
	s := &Server{URL: srv.URL, DBURL: dbURL, Store: st, Hub: hub, Handler: srv, Clock: pipe.Clock()}
	if !o.noAccounts {
		s.Token = AdminToken
		if _, err := st.EnsureBootstrapToken(context.Background(), auth.HashSecret(AdminToken), time.Now()); err != nil {
			t.Fatal(err)
		}
		u := s.NewUser(t, AdminName, "admin", AdminPassword)
		// The session outlives any fake clock a test moves forward.
		now := time.Now()
		if err := st.CreateSession(context.Background(), auth.HashSecret(AdminSession), u.ID, now, now.AddDate(100, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	srv.Start()
	s.URL = srv.URL
	t.Cleanup(func() {
		hub.Close()
		srv.Close()
		cancel()
		<-listening
		<-settling
		<-expiring
	})
	return s
}

// logWriter sends the server's log to t.Log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// AuthorizeDefaultClient makes the requests of http.DefaultClient (and
// http.Get, http.Post) act as AdminToken when they carry no Authorization
// of their own: for test binaries whose tests are not about access
// (command-line tests read launches with plain http.Get).
func AuthorizeDefaultClient() {
	http.DefaultTransport = adminTransport{http.DefaultTransport}
}

type adminTransport struct{ next http.RoundTripper }

func (a adminTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+AdminToken)
	}
	return a.next.RoundTrip(r)
}
