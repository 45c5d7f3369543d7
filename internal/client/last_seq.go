package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
)

// LastSeq is the highest seq the server holds for the launch, 0 when it
// does not know the launch. It answers at once (?wait=0): a shipper asks
// it to learn what the server lacks, not for a verdict.
func (c *Client) LastSeq(ctx context.Context, key string) (int64, error) {
	var l struct {
		LastSeq int64 `json:"last_seq"`
	}
	err := c.do(ctx, http.MethodGet, "/api/v1/launches/"+url.PathEscape(key), url.Values{"wait": {"0"}}, "", nil, &l)
	var ae *APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return 0, nil
	}
	return l.LastSeq, err
}
