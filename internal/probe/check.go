package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Result is the answer of one target.
type Result struct {
	Target Target
	OK     bool   // a path answered 2xx or 3xx
	Detail string // "http://127.0.0.1:8000/health: HTTP 200", or why it failed
	// Answered: a path of the target decided (any status but the ones
	// that mean "no such path"); a failure with an answer says more than
	// a refused connection.
	Answered bool
	// NotHTTP: what listens there answered something that is not HTTP
	// (a gRPC, ZMQ or rendezvous port).
	NotHTTP bool
}

// Checker probes targets. It remembers, per target, the path that answered
// (the first of Paths that is not "no such path"), so later probes ask that
// path first; a target whose socket answered something other than HTTP is
// not probed again.
type Checker struct {
	client *http.Client

	mu      sync.Mutex
	decided map[string]string // target base → the path that answers
	notHTTP map[string]bool   // target base → answered something that is not HTTP
}

// NewChecker returns a Checker whose requests each take at most timeout.
// It follows no redirect (a redirect is an answer, as for Kubernetes'
// probes) and does not verify certificates: the server is this host's
// child, reached on an address its certificate does not name.
func NewChecker(timeout time.Duration) *Checker {
	tr := &http.Transport{
		Proxy:               nil, // never through HTTP_PROXY: the target is on this host
		DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // our own child on the loopback
		TLSHandshakeTimeout: timeout,
		DisableKeepAlives:   true, // a probe is one request; no idle connection held to the server
		MaxIdleConns:        -1,
	}
	return &Checker{
		client: &http.Client{
			Timeout:       timeout,
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		decided: map[string]string{},
		notHTTP: map[string]bool{},
	}
}

// NotHTTP reports whether t answered something that is not HTTP before.
func (c *Checker) NotHTTP(t Target) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.notHTTP[t.Base()]
}

// Forget drops what c learned of every target's paths (the family, and so
// the paths, changed).
func (c *Checker) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.decided)
}

// noSuchPath are the statuses that say the path is not served here: the
// next path is asked.
func noSuchPath(code int) bool {
	return code == http.StatusNotFound || code == http.StatusMethodNotAllowed || code == http.StatusNotImplemented
}

// Check probes t with paths in order: the path that answered before, if
// any, else each path until one answers anything but "no such path". 2xx
// and 3xx pass; any other answer fails without asking further paths (a 503
// on /health is the server saying it is not ready, which a 200 on / must
// not overrule).
func (c *Checker) Check(ctx context.Context, t Target, paths []string) Result {
	base := t.Base()
	c.mu.Lock()
	if p, ok := c.decided[base]; ok {
		paths = append([]string{p}, paths...) // it answered: ask it first (the rest are not asked)
	}
	c.mu.Unlock()
	res := Result{Target: t, Detail: base + ": no path answered"}
	var missing []string
	for i, p := range paths {
		if i > 0 && p == paths[0] {
			continue
		}
		url := base + p
		code, err := c.get(ctx, url)
		if err != nil {
			res.Detail = url + ": " + shortError(err)
			if isNotHTTP(err) {
				res.NotHTTP = true
				c.mu.Lock()
				c.notHTTP[base] = true
				c.mu.Unlock()
			}
			return res // the socket, not the path, failed: the other paths would too
		}
		if noSuchPath(code) {
			missing = append(missing, fmt.Sprintf("%s %d", p, code))
			continue
		}
		c.mu.Lock()
		c.decided[base] = p
		c.mu.Unlock()
		res.OK, res.Answered = code >= 200 && code < 400, true
		res.Detail = fmt.Sprintf("%s: HTTP %d", url, code)
		return res
	}
	if len(missing) > 0 {
		res.Detail = base + ": no health path (" + strings.Join(missing, ", ") + ")"
	}
	return res
}

func (c *Checker) get(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("User-Agent", "launchwatch-run-probe")
	res, err := c.client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) //nolint:errcheck // the status is the answer
	res.Body.Close()
	return res.StatusCode, nil
}

// isNotHTTP reports whether err says the peer spoke something other than
// HTTP, or closed the connection on an HTTP request without any answer
// (as opposed to refusing it, resetting it or not answering in time).
func isNotHTTP(err error) bool {
	if err == nil {
		return false
	}
	var re tls.RecordHeaderError
	if errors.As(err, &re) {
		return true // https asked of a plain-text port
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true // it read the request and hung up without an answer
	}
	s := err.Error()
	return strings.Contains(s, "malformed HTTP") || strings.Contains(s, "server gave HTTP response to HTTPS client") ||
		strings.Contains(s, "frame too large")
}

// shortError is err without the request's method and URL, which the
// detail names already.
func shortError(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			err = inner
		}
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": connect: "); i >= 0 {
		s = s[i+len(": connect: "):]
	}
	return s
}
