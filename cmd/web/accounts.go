package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"launchwatch/internal/auth"
	"launchwatch/internal/metrics"
	"launchwatch/internal/store"
)

// setupLinkLife is how long the first-start setup link works.
const setupLinkLife = 24 * time.Hour

// minBootstrapTokenLen is the length below which the server warns that a
// configured bootstrap token is guessable.
const minBootstrapTokenLen = 20

// ensureBootstrapToken makes the configured admin token exist.
func ensureBootstrapToken(ctx context.Context, st *store.Store, secret string, now time.Time, log *slog.Logger) error {
	if secret == "" {
		return nil
	}
	if len(secret) < minBootstrapTokenLen {
		log.Warn("the bootstrap token is short: anyone who guesses it is admin; use a long random one (openssl rand -hex 32)",
			slog.Int("length", len(secret)))
	}
	changed, err := st.EnsureBootstrapToken(ctx, auth.HashSecret(secret), now)
	if err != nil {
		return fmt.Errorf("bootstrap token: %w", err)
	}
	if changed {
		log.Info("bootstrap admin token set from --bootstrap-token")
	}
	return nil
}

// printSetupLink prints, when nobody has an account yet, a one-time link
// that creates the first admin in the browser. Each start without users
// makes a new link and voids the old one.
func printSetupLink(ctx context.Context, st *store.Store, base string, now time.Time, out io.Writer, log *slog.Logger) error {
	secret := auth.NewSecret()
	made, err := st.ReplaceSetupLink(ctx, auth.HashSecret(secret), now.Add(setupLinkLife))
	if err != nil {
		return fmt.Errorf("setup link: %w", err)
	}
	if !made {
		log.Info("accounts exist: sign in at the login page", slog.String("url", base+"/login"))
		return nil
	}
	link := base + "/setup?token=" + url.QueryEscape(secret)
	fmt.Fprintf(out, "\n  No account exists yet. Open this link to create the first admin\n  (it works once, for %s):\n\n    %s\n\n", setupLinkLife, link)
	log.Info("first start: open the setup link printed above to create the first admin", slog.Time("expires", now.Add(setupLinkLife)))
	return nil
}

// baseURL is the URL printed links start with: the public URL, else the
// listen address (localhost when listening on all interfaces).
func baseURL(public *url.URL, listenAddr string) string {
	if public != nil {
		u := *public
		u.Path = ""
		return u.String()
	}
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return "http://" + listenAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// serveMetrics serves /metrics without authentication on its own address,
// for a Prometheus that scrapes over a private network; the returned func
// stops it.
func serveMetrics(addr string, m *metrics.Metrics, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("metrics listener", slog.String("error", err.Error()))
		}
	}()
	log.Info("serving /metrics without authentication", slog.String("addr", ln.Addr().String()))
	return func() { srv.Close() }, nil
}
