package web

import (
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/ingest"
)

// linesIngest stores a batch of lines: POST /api/v1/launches/{key}/lines
// with a text/plain or application/x-ndjson body.
func (h *handler) linesIngest(c echo.Context) error {
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
	var lines []ingest.Line
	if format == ingest.FormatNDJSON {
		if q.Has("seq") {
			return badParam("seq is a parameter of text/plain batches; NDJSON objects carry their own \"seq\"")
		}
		lines, err = ingest.DecodeNDJSON(body, h.cfg.MaxLineBytes)
	} else {
		lines, err = ingest.DecodeText(body, firstSeq, h.cfg.MaxLineBytes)
	}
	if err != nil {
		return err
	}
	ack, err := h.pipe.Ingest(req.Context(), key, attrs, lines)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ack)
}
