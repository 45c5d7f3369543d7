package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// Launch is what the server says about a launch.
type Launch struct {
	Key      string            `json:"key"`
	Name     string            `json:"name"`
	Server   string            `json:"server"`
	Host     string            `json:"host"`
	Status   string            `json:"status"`
	Settling bool              `json:"settling"` // a fatal alarm waits to settle: Status is not a verdict yet
	Phase    string            `json:"phase"`
	Progress *Progress         `json:"progress"`
	LastSeq  int64             `json:"last_seq"`
	ReadySeq *int64            `json:"ready_seq"`
	ExitCode *int              `json:"exit_code"`
	Signal   *string           `json:"exit_signal"`
	Config   map[string]string `json:"config"`
	// Endpoints are the addresses the server announced it listens on.
	Endpoints []string `json:"endpoints"`
	Alarms    []Alarm  `json:"alarms"`
	// SuppressedFatal are the fatal-looking alarms a suppression rule hides.
	SuppressedFatal []SuppressedFatal `json:"suppressed_fatal"`
	Times           struct {
		Created       time.Time  `json:"created"`
		FirstLine     *time.Time `json:"first_line"` // on the launch clock, as are LastLine, Ready and Ended
		LastLine      *time.Time `json:"last_line"`
		Ready         *time.Time `json:"ready"`
		Ended         *time.Time `json:"ended"`
		LastHeartbeat *time.Time `json:"last_heartbeat"`
	} `json:"times"`
}

// Progress is the progress within the current phase, e.g. 12 of 64 shards.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// SuppressedFatal is a fatal-looking alarm suppressed by a rule.
type SuppressedFatal struct {
	No       int    `json:"no"`
	RuleID   int64  `json:"rule_id"`
	Headline string `json:"headline"`
	Settled  bool   `json:"settled"` // the event can no longer change (or be withdrawn)
}

// Alarm is an error event of a launch.
type Alarm struct {
	No          int    `json:"no"`
	Kind        string `json:"kind"`
	Fatal       bool   `json:"fatal"`
	State       string `json:"state"`
	Headline    string `json:"headline"`
	HeadlineSeq int64  `json:"headline_seq"`
	FirstSeq    int64  `json:"first_seq"`
	LastSeq     int64  `json:"last_seq"`
	Ranks       int    `json:"ranks"`
	Fingerprint string `json:"fingerprint"`
	// Settled: the event can no longer change its verdict; its headline is
	// final (the final exception line of a traceback, not its first line).
	Settled bool `json:"settled"`
}

// Launch reads a launch; ErrNotFound if it does not exist.
func (c *Client) Launch(ctx context.Context, key string) (*Launch, error) {
	var l Launch
	err := c.do(ctx, http.MethodGet, "/api/v1/launches/"+url.PathEscape(key), nil, "", nil, &l)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// LaunchNow reads a launch as it stands, without waiting for a fatal
// alarm that settles (?wait=0); ErrNotFound if it does not exist.
func (c *Client) LaunchNow(ctx context.Context, key string) (*Launch, error) {
	var l Launch
	err := c.do(ctx, http.MethodGet, "/api/v1/launches/"+url.PathEscape(key), url.Values{"wait": {"0"}}, "", nil, &l)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// LaunchURL is the launch's page in the web UI.
func (c *Client) LaunchURL(key string) string {
	return c.endpoint("/launches/"+url.PathEscape(key), nil)
}
