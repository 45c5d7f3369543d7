package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// linesIngest stores a batch of lines: POST /api/v1/launches/{key}/lines
// with a text/plain, application/x-ndjson or application/json body.
func (h *handler) linesIngest(c echo.Context, rec *ingestRecord) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	attrs, err := decode.LaunchAttrs(q)
	if err != nil {
		return err
	}
	req := c.Request()
	batch, err := decode.NativeBatchOf(q, req.Header.Get(echo.HeaderContentType))
	if err != nil {
		return err
	}
	body, err := decode.ReadBody(req.Body, req.Header.Get(echo.HeaderContentEncoding), req.ContentLength, h.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	rec.bodyBytes = len(body)
	ctx, err := rec.enter()
	if err != nil {
		return err
	}
	lines, err := decode.Native(body, batch, h.cfg.MaxLineBytes)
	if err != nil {
		return err
	}
	ack, err := h.pipe.Ingest(ctx, key, attrs, lines)
	if err != nil {
		return storeError(ctx, err)
	}
	rec.lines, rec.duplicates = ack.Accepted, ack.Duplicates
	return c.JSON(http.StatusOK, ack)
}
