package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ExportAlarms copies one page of GET /api/v1/export/alarms.jsonl (query q:
// since, server, state, cursor, limit) into w, as the server streams it,
// and returns the cursor of the next page: "" on the last one.
func (c *Client) ExportAlarms(ctx context.Context, q url.Values, w io.Writer) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/api/v1/export/alarms.jsonl", q), nil)
	if err != nil {
		return "", err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("User-Agent", "launchwatch-cli")
	// The page streams: no overall timeout, the context bounds it.
	hc := *c.http
	hc.Timeout = 0
	res, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &UnreachableError{URL: c.base.String(), Err: err}
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		ae := &APIError{Status: res.StatusCode, Message: strings.TrimSpace(string(data))}
		var body struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &body) == nil && body.Error != "" {
			ae.Message = body.Error
		}
		return "", ae
	}
	if _, err := io.Copy(w, res.Body); err != nil {
		return "", &UnreachableError{URL: c.base.String(), Err: err}
	}
	return res.Header.Get("X-Next-Cursor"), nil
}
