package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// An admin's webhook target must not make the server a probe of its own
// network: the delivery worker would POST to whatever the URL names, from
// inside it. So no webhook is sent to a loopback, link-local (the cloud
// metadata services: 169.254.169.254, fd00:ec2::254), private, shared or
// otherwise non-public address, unless the server runs with
// --webhook-allow-private. The check is made twice: when a target is saved
// (its host resolved, a 422 naming the address), and at send time on the
// address actually dialled (net.Dialer.Control), so a name that resolves
// elsewhere later (DNS rebinding) or a redirect cannot get round it.

// refusedRanges are the addresses no webhook goes to, with why.
var refusedRanges = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified (this-network) address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address, private to a provider's network"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (cloud metadata services live there)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "a reserved (IETF protocol) address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a reserved (benchmarking) address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local NAT64 address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique local (private) address (cloud metadata services live there too)"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local (private) address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

// nat64 is the well-known NAT64 prefix: its addresses reach the IPv4
// address in their last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// RefusedAddr says why no webhook may be sent to ip ("" when one may).
func RefusedAddr(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	if nat64.Contains(ip) {
		b := ip.As16()
		if why := RefusedAddr(netip.AddrFrom4([4]byte(b[12:]))); why != "" {
			return why + " (through NAT64)"
		}
		return ""
	}
	for _, r := range refusedRanges {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	return ""
}

// RefusedError is a webhook refused for the address it would reach.
type RefusedError struct {
	Host string     // the URL's host ("" when the address is the host)
	Addr netip.Addr // the address refused
	Why  string     // what RefusedAddr said
}

func (e *RefusedError) Error() string {
	s := e.Addr.String() + " is " + e.Why
	if e.Host != "" && e.Host != e.Addr.String() {
		s = e.Host + " resolves to " + e.Addr.String() + ", " + e.Why
	}
	return s + ": webhooks are not sent to loopback, link-local, private or metadata addresses (the server's --webhook-allow-private allows them)"
}

// errNoAddr is a dial to something that is no IP address and port.
var errNoAddr = errors.New("webhook: dialled an address that is not IP:port")

// dialControl refuses, just before it connects, a webhook connection to
// an address RefusedAddr names: the address resolved and dialled, so a
// name cannot change its answer between a check and the connection.
func dialControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errNoAddr
	}
	if why := RefusedAddr(ap.Addr()); why != "" {
		return &RefusedError{Addr: ap.Addr().Unmap().WithZone(""), Why: why}
	}
	return nil
}

// NewClient returns the client webhooks are sent with: timeout bounds an
// attempt; redirects are not followed (a target answers, it does not send
// the server elsewhere) and no proxy from the environment is used (the
// proxy would dial, unchecked); and unless allowPrivate every connection
// is refused to the addresses RefusedAddr names.
func NewClient(timeout time.Duration, allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = dialControl
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// Resolver is what CheckDestination looks names up with (*net.Resolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// resolveTimeout bounds the lookup of a target's host when it is saved.
const resolveTimeout = 3 * time.Second

// CheckDestination says what is wrong with where rawURL (a URL Validate
// accepted) would send webhooks ("" when nothing is): an address
// RefusedAddr names, given as the host or one that the host resolves to
// now. A name that does not resolve is let through (it may be made later;
// the check at send time stands guard), except localhost's names.
func CheckDestination(ctx context.Context, r Resolver, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "is not a URL"
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if why := RefusedAddr(ip); why != "" {
			return (&RefusedError{Addr: ip.Unmap().WithZone(""), Why: why}).Error()
		}
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	ips, err := r.LookupNetIP(ctx, "ip", host)
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if err != nil && (name == "localhost" || strings.HasSuffix(name, ".localhost")) {
		return fmt.Sprintf("%s is a loopback name: webhooks are not sent to loopback, link-local, private or metadata addresses (the server's --webhook-allow-private allows them)", host)
	}
	for _, ip := range ips {
		if why := RefusedAddr(ip); why != "" {
			return (&RefusedError{Host: host, Addr: ip.Unmap().WithZone(""), Why: why}).Error()
		}
	}
	return ""
}
