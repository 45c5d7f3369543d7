package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// AuditChainRow is an audit row as its hash covers it.
type AuditChainRow struct {
	Seq     int64  `json:"seq"`
	ID      int64  `json:"id"`
	AtMicro int64  `json:"at_us"`
	At      string `json:"at"`
	Actor   string `json:"actor"`
	Action  string `json:"action"`
	Subject string `json:"subject"`
	Detail  string `json:"detail"`
	Hash    string `json:"hash"` // hex
}

// AuditChainPage is one page of GET /api/v1/audit/chain.
type AuditChainPage struct {
	Head struct {
		Seq  int64  `json:"seq"`
		Hash string `json:"hash"`
	} `json:"head"`
	Through int64           `json:"through"`
	Rows    []AuditChainRow `json:"rows"`
}

// AuditChain reads the audit chain's rows after place after, up to place
// through (0: up to the head the server reports), a page at a time.
func (c *Client) AuditChain(ctx context.Context, after, through int64) (AuditChainPage, error) {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}}
	if through > 0 {
		q.Set("through", strconv.FormatInt(through, 10))
	}
	var p AuditChainPage
	err := c.do(ctx, http.MethodGet, "/api/v1/audit/chain", q, "", nil, &p)
	return p, err
}
