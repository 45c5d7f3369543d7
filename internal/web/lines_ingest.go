package web

import (
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/ingest"
)

// linesIngest stores a batch of lines: POST /api/v1/launches/{key}/lines
// with a text/plain, application/x-ndjson or application/json body.
func (h *handler) linesIngest(c echo.Context, rec *ingestRecord) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	attrs, err := launchAttrs(q)
	if err != nil {
		return err
	}
	firstSeq, err := intParam(q, "seq", 0, 1, math.MaxInt64)
	if err != nil {
		return err
	}
	req := c.Request()
	format, err := ingest.FormatOf(req.Header.Get(echo.HeaderContentType))
	if err != nil {
		return err
	}
	body, err := ingest.ReadBody(req.Body, req.Header.Get(echo.HeaderContentEncoding), h.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	rec.bodyBytes = len(body)
	ctx, err := rec.enter()
	if err != nil {
		return err
	}
	var lines []ingest.Line
	switch {
	case format != ingest.FormatText && q.Has("seq"):
		return badParam("seq is a parameter of text/plain batches; NDJSON objects carry their own \"seq\", and so do JSON arrays")
	case format == ingest.FormatNDJSON:
		lines, err = ingest.DecodeNDJSON(body, h.cfg.MaxLineBytes)
	case format == ingest.FormatJSON:
		lines, err = ingest.DecodeJSON(body, h.cfg.MaxLineBytes)
	default:
		lines, err = ingest.DecodeText(body, firstSeq, h.cfg.MaxLineBytes)
	}
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
