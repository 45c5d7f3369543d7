package web

import (
	"encoding/hex"
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// auditChainRowJSON is an audit row as its hash covers it: what
// `launchwatch audit verify` computes the hash from (internal/auditchain).
type auditChainRowJSON struct {
	Seq     int64  `json:"seq"`
	ID      int64  `json:"id"`
	AtMicro int64  `json:"at_us"` // unix microseconds, as hashed
	At      string `json:"at"`
	Actor   string `json:"actor"`
	Action  string `json:"action"`
	Subject string `json:"subject"`
	Detail  string `json:"detail"` // the jsonb as PostgreSQL writes it, a string: the bytes hashed
	Hash    string `json:"hash"`   // hex
}

type auditChainHeadJSON struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// maxAuditChainPage bounds one page of the chain.
const maxAuditChainPage = 1000

// apiAuditChain answers GET /api/v1/audit/chain?after=N&through=M&limit=L:
// the chain's head, and its rows after place N up to place M (the head's
// place when absent: a client that pages passes the first page's head, so
// rows chained meanwhile do not look missing), in chain order.
func (h *handler) apiAuditChain(c echo.Context) error {
	q := c.QueryParams()
	after, err := decode.IntParam(q, "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	through, err := decode.IntParam(q, "through", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := decode.IntParam(q, "limit", maxAuditChainPage, 1, maxAuditChainPage)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	head, err := h.store.AuditChainHead(ctx)
	if err != nil {
		return err
	}
	if !q.Has("through") {
		through = head.Seq
	}
	rows, err := h.store.AuditChain(ctx, after, through, int(limit))
	if err != nil {
		return err
	}
	out := make([]auditChainRowJSON, 0, len(rows))
	for _, r := range rows {
		out = append(out, auditChainRowJSON{Seq: r.Seq, ID: r.ID, AtMicro: r.At.UnixMicro(), At: r.At.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
			Actor: r.Actor, Action: r.Action, Subject: r.Subject, Detail: r.Detail, Hash: hex.EncodeToString(r.Hash)})
	}
	return c.JSON(http.StatusOK, map[string]any{"head": auditChainHeadJSON{Seq: head.Seq, Hash: hex.EncodeToString(head.Hash)},
		"through": through, "rows": out})
}
