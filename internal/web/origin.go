package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// hostPolicy is the server's notion of its own origin: which Host headers
// it answers and which browser Origins may use its forms and websockets.
// A request naming another host is answered 421, so a DNS name an attacker
// points at 127.0.0.1 (DNS rebinding) reaches nothing.
type hostPolicy struct {
	// public is the configured public URL's scheme and host (lower case,
	// with an explicit port only when it is not the scheme's default);
	// nil when none is configured.
	public *url.URL
	// loopbackPort is set when no public URL is configured and the server
	// listens on a loopback address: then exactly the loopback names with
	// this port are ours.
	loopbackPort string
	// listenHost:listenPort is ours when the server listens on one
	// non-loopback address and no public URL is configured.
	listenHost, listenPort string
}

// newHostPolicy builds the policy from the public URL (may be nil) and the
// address the server listens on (host:port, port resolved). With neither
// a public URL nor a specific listen address (all interfaces, or unknown)
// hosts are not checked: check reports false then.
func newHostPolicy(public *url.URL, listenAddr string) (p hostPolicy, check bool) {
	if public != nil {
		u := &url.URL{Scheme: strings.ToLower(public.Scheme), Host: canonicalHost(public.Scheme, public.Host)}
		return hostPolicy{public: u}, true
	}
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil || port == "" || port == "0" {
		return hostPolicy{}, false
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case err != nil && strings.EqualFold(host, "localhost"):
		return hostPolicy{loopbackPort: port}, true
	case err != nil:
		return hostPolicy{}, false
	case ip.IsUnspecified():
		return hostPolicy{}, false
	case ip.IsLoopback():
		return hostPolicy{loopbackPort: port}, true
	}
	return hostPolicy{listenHost: ip.Unmap().String(), listenPort: port}, true
}

// canonicalHost lower-cases host and drops the port when it is the
// default of scheme, so "Example.com:443" and "example.com" compare equal
// over https.
func canonicalHost(scheme, host string) string {
	host = strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return host
	}
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// allowsHost reports whether a request's Host header names this server.
func (p hostPolicy) allowsHost(host string) bool {
	switch {
	case p.public != nil:
		return canonicalHost(p.public.Scheme, host) == p.public.Host
	case p.loopbackPort != "":
		name, port := splitHostPort(host, "80")
		return port == p.loopbackPort && isLoopbackName(name)
	case p.listenHost != "":
		name, port := splitHostPort(host, "80")
		ip, err := netip.ParseAddr(name)
		return err == nil && port == p.listenPort && ip.Unmap().String() == p.listenHost
	}
	return true
}

// allowsOrigin reports whether a browser Origin header is this server's
// own: the public URL's origin when one is configured, else an http(s)
// origin whose host is the request's (already checked) Host.
func (p hostPolicy) allowsOrigin(origin, requestHost string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if p.public != nil {
		return strings.EqualFold(u.Scheme, p.public.Scheme) && canonicalHost(u.Scheme, u.Host) == p.public.Host
	}
	return strings.EqualFold(u.Host, requestHost) && p.allowsHost(u.Host)
}

// splitHostPort splits a Host header; a host without a port has def. IPv6
// brackets are removed.
func splitHostPort(host, def string) (name, port string) {
	if h, p, err := net.SplitHostPort(host); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), def
}

// isLoopbackName reports whether name is localhost or a loopback address
// (127.0.0.0/8, ::1).
func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// checkHost answers 421 Misdirected Request to a request for another
// host. The health probes are exempt: orchestrators address the container
// by its IP, and the probes read nothing and change nothing.
func (h *handler) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if p := r.URL.Path; p == "/healthz" || p == "/readyz" || h.hosts.allowsHost(r.Host) {
			return next(c)
		}
		return echo.NewHTTPError(http.StatusMisdirectedRequest,
			fmt.Sprintf("this server does not answer for host %q (see --public-url)", r.Host))
	}
}

// sameOriginWebsocket is the websocket upgrader's CheckOrigin: clients
// that send no Origin (command-line tools) and pages of this very server.
func (h *handler) sameOriginWebsocket(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	return origin == "" || h.hosts.allowsOrigin(origin, r.Host)
}
