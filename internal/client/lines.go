package client

import (
	"context"
	"launchwatch/internal/api"
	"net/http"
	"net/url"
	"strconv"
)

// PostText sends one batch of plain-text lines, "\n"-separated, numbered
// from firstSeq: how a replay of a log file (`launchwatch eval --url`,
// score_api.py) sends it. attrs are the launch's attributes as query
// parameters.
func (c *Client) PostText(ctx context.Context, key string, attrs url.Values, firstSeq int64, body []byte) (Ack, error) {
	q := url.Values{}
	for k, v := range attrs {
		q[k] = v
	}
	q.Set("seq", strconv.FormatInt(firstSeq, 10))
	var ack Ack
	err := c.do(ctx, http.MethodPost, "/api/v1/launches/"+url.PathEscape(key)+"/lines", q, "text/plain", body, &ack)
	return ack, err
}

type (
	// StoredLine is one stored line of a launch with its verdict.
	StoredLine = api.Line
	// LinesPage is one page of a launch's stored lines.
	LinesPage = api.LinesPage
)

// Lines reads up to limit stored lines of a launch after seq after.
func (c *Client) Lines(ctx context.Context, key string, after int64, limit int) (LinesPage, error) {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}, "limit": {strconv.Itoa(limit)}}
	var page LinesPage
	err := c.do(ctx, http.MethodGet, "/api/v1/launches/"+url.PathEscape(key)+"/lines", q, "", nil, &page)
	return page, err
}

// AllLines reads every stored line of a launch, page by page.
func (c *Client) AllLines(ctx context.Context, key string) ([]StoredLine, error) {
	var out []StoredLine
	var after int64
	for {
		page, err := c.Lines(ctx, key, after, 10000)
		if err != nil {
			return out, err
		}
		out = append(out, page.Lines...)
		if page.NextAfter == nil || len(page.Lines) == 0 {
			return out, nil
		}
		after = *page.NextAfter
	}
}
