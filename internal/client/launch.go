package client

import (
	"context"
	"errors"
	"launchwatch/internal/api"
	"net/http"
	"net/url"
)

// The launch's shapes are the server's own (package api): the client
// decodes what the server encodes, field for field.
type (
	// Launch is what the server says about a launch.
	Launch = api.Launch
	// Progress is the progress within the current phase, e.g. 12 of 64 shards.
	Progress = api.Progress
	// SuppressedFatal is a fatal-looking alarm suppressed by a rule.
	SuppressedFatal = api.SuppressedFatal
	// Alarm is an error event of a launch.
	Alarm = api.Alarm
)

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
