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
	attrs, err := launchAttrs(q)
	if err != nil {
		return err
	}
	firstSeq, err := decode.SeqParam(q)
	if err != nil {
		return err
	}
	req := c.Request()
	format, err := decode.FormatOf(req.Header.Get(echo.HeaderContentType))
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
	var lines []decode.Line
	switch {
	case format != decode.FormatText && q.Has("seq"):
		return badParam("seq is a parameter of text/plain batches; NDJSON objects carry their own \"seq\", and so do JSON arrays")
	case format == decode.FormatNDJSON:
		lines, err = decode.NDJSON(body, h.cfg.MaxLineBytes)
	case format == decode.FormatJSON:
		lines, err = decode.JSON(body, h.cfg.MaxLineBytes)
	default:
		lines, err = decode.Text(body, firstSeq, h.cfg.MaxLineBytes)
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
