package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"
	"google.golang.org/protobuf/encoding/protowire"

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

// otlpError answers a client mistake with a google.rpc.Status in the
// request's encoding ({"code": 3, "message": "..."} in JSON); it returns
// other errors for handleError. It still returns the error so the request
// is counted as rejected.
func otlpError(c echo.Context, enc decode.OTLPEncoding, err error) error {
	var inputErr *decode.InputError
	if !errors.As(err, &inputErr) {
		return err
	}
	const invalidArgument = 3 // google.rpc.Code INVALID_ARGUMENT
	var werr error
	if enc == decode.OTLPJSON {
		werr = c.JSON(inputErr.Status, map[string]any{"code": invalidArgument, "message": inputErr.Message})
	} else {
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, invalidArgument)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, inputErr.Message)
		werr = c.Blob(inputErr.Status, decode.OTLPContentType(enc), b)
	}
	if werr != nil {
		return werr
	}
	return err // already answered: handleError sees a committed response
}
