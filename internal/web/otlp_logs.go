package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// otlpLogs stores an OTLP/HTTP logs export: POST /v1/logs (and
// /otlp/v1/logs, as Loki serves it) with a protobuf or JSON
// ExportLogsServiceRequest. It answers in the request's encoding: an
// ExportLogsServiceResponse, with partial_success counting the records
// whose resource names no launch; a client mistake is a 4xx with a
// google.rpc.Status body, as the OTLP specification asks.
func (h *handler) otlpLogs(c echo.Context, rec *ingestRecord) error {
	req := c.Request()
	enc, err := decode.OTLPEncodingOf(req.Header.Get(echo.HeaderContentType))
	if err != nil {
		return err
	}
	body, err := decode.ReadBody(req.Body, req.Header.Get(echo.HeaderContentEncoding), req.ContentLength, h.cfg.MaxBodyBytes)
	if err != nil {
		return otlpError(c, enc, err)
	}
	rec.bodyBytes = len(body)
	ctx, err := rec.enter()
	if err != nil {
		return err
	}
	res, err := decode.OTLP(body, enc, h.cfg.MaxLineBytes)
	if err != nil {
		return otlpError(c, enc, err)
	}
	if err := h.storeBatches(ctx, res.Batches, rec); err != nil {
		return err
	}
	resp, err := decode.OTLPResponse(enc, res.Rejected, res.Reason)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, decode.OTLPContentType(enc), resp)
}

// otlpError answers a client mistake with decode.OTLPError's
// google.rpc.Status; it returns other errors for handleError. It still
// returns the error so the request is counted as rejected.
func otlpError(c echo.Context, enc decode.OTLPEncoding, err error) error {
	var inputErr *decode.InputError
	if !errors.As(err, &inputErr) {
		return err
	}
	if werr := c.Blob(inputErr.Status, decode.OTLPContentType(enc), decode.OTLPError(enc, inputErr.Message)); werr != nil {
		return werr
	}
	return err // already answered: handleError sees a committed response
}
