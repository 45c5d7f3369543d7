// Package client talks to a Launchwatch server for the command line: it
// posts lines and process reports, reads launches and follows them live.
// Errors say whether the server could not be reached (Unreachable), refused
// the request for good (an APIError with a 4xx), or asked to be retried.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client is a Launchwatch API client.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
	hist  history // the server's database history, from its answers
}

// New returns a client of the server at baseURL (http://host:port). token,
// if set, is sent as a bearer token.
func New(baseURL, token string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server URL %q must look like http://host:port", baseURL)
	}
	return &Client{base: u, token: token, http: &http.Client{Timeout: 60 * time.Second}}, nil
}

// BaseURL is the server's URL.
func (c *Client) BaseURL() string { return c.base.String() }

// APIError is an answer other than 2xx.
type APIError struct {
	Status     int
	Message    string
	RetryAfter time.Duration // from a Retry-After header, 0 if none
}

func (e *APIError) Error() string {
	return fmt.Sprintf("server answered %d: %s", e.Status, e.Message)
}

// Temporary reports whether the request may succeed if sent again later:
// 429 (too many requests) and 5xx.
func (e *APIError) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// UnreachableError means no HTTP answer came back at all.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the Launchwatch server at %s: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ErrNotFound is returned when the launch does not exist (yet).
var ErrNotFound = errors.New("launch not found")

// Retryable reports whether err is worth retrying: the server could not be
// reached, or asked to come back later.
func Retryable(err error) bool {
	var ue *UnreachableError
	var ae *APIError
	return errors.As(err, &ue) || errors.As(err, &ae) && ae.Temporary()
}

func (c *Client) endpoint(path string, q url.Values) string {
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	return u.String()
}

// do sends a request and decodes a 2xx JSON answer into out (if not nil).
func (c *Client) do(ctx context.Context, method, path string, q url.Values, contentType string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint(path, q), bytes.NewReader(body))
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("User-Agent", "launchwatch-cli")
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &UnreachableError{URL: c.base.String(), Err: err}
	}
	defer res.Body.Close()
	c.hist.note(res.Header.Get(HistoryHeader))
	data, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return &UnreachableError{URL: c.base.String(), Err: err}
	}
	if res.StatusCode/100 != 2 {
		ae := &APIError{Status: res.StatusCode, Message: strings.TrimSpace(string(data))}
		var body struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &body) == nil && body.Error != "" {
			ae.Message = body.Error
		}
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
			ae.RetryAfter = time.Duration(s) * time.Second
		}
		return ae
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("unexpected answer from %s: %v", c.base, err)
		}
	}
	return nil
}

// Line is one line to post.
type Line struct {
	Seq    int64     `json:"seq"`
	Text   string    `json:"line"`
	TS     time.Time `json:"ts"`
	Stream string    `json:"stream,omitempty"`
}

// Ack is the server's answer to a batch.
type Ack struct {
	Launch     string `json:"launch"`
	Accepted   int    `json:"accepted"`
	Duplicates int    `json:"duplicates"`
	LastSeq    int64  `json:"last_seq"`
	Status     string `json:"status"`
}

// EncodeLines renders lines as the NDJSON body of a batch.
func EncodeLines(lines []Line) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		enc.Encode(l) //nolint:errcheck // encoding these fields cannot fail
	}
	return buf.Bytes()
}

// PostLines sends one batch of numbered lines. attrs are the launch's
// attributes as query parameters (server, host, name, label.K).
func (c *Client) PostLines(ctx context.Context, key string, attrs url.Values, body []byte) (Ack, error) {
	var ack Ack
	err := c.do(ctx, http.MethodPost, "/api/v1/launches/"+url.PathEscape(key)+"/lines", attrs, "application/x-ndjson", body, &ack)
	return ack, err
}

// ProcessAck is the answer to a heartbeat, health or exit report.
type ProcessAck struct {
	Launch string `json:"launch"`
	Status string `json:"status"`
}

// Heartbeat tells the server the shipper is alive.
func (c *Client) Heartbeat(ctx context.Context, key string, attrs url.Values) (ProcessAck, error) {
	var ack ProcessAck
	err := c.do(ctx, http.MethodPost, "/api/v1/launches/"+url.PathEscape(key)+"/heartbeat", attrs, "", nil, &ack)
	return ack, err
}

// Health reports a health probe result.
// age is how long ago the probe ran (a result that waited to be sent).
func (c *Client) Health(ctx context.Context, key string, ok bool, detail string, age time.Duration) (ProcessAck, error) {
	m := map[string]any{"ok": ok, "detail": detail}
	if age > 0 {
		m["age"] = age.Seconds()
	}
	body, _ := json.Marshal(m)
	var ack ProcessAck
	err := c.do(ctx, http.MethodPost, "/api/v1/launches/"+url.PathEscape(key)+"/health", nil, "application/json", body, &ack)
	return ack, err
}

// Exit reports how the process ended: code, or the signal that killed it;
// requested says the operator asked it to stop (a deliberate shutdown).
func (c *Client) Exit(ctx context.Context, key string, code *int, signal string, requested bool) (ProcessAck, error) {
	m := map[string]any{"requested": requested}
	if code != nil {
		m["code"] = *code
	} else {
		m["signal"] = signal
	}
	body, _ := json.Marshal(m)
	var ack ProcessAck
	err := c.do(ctx, http.MethodPost, "/api/v1/launches/"+url.PathEscape(key)+"/exit", nil, "application/json", body, &ack)
	return ack, err
}
