package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// lokiPush stores a Grafana Loki push: POST /loki/api/v1/push with a JSON
// or snappy-protobuf body. Stream labels name the launch (the configured
// label, "launch" by default). It answers 204 like Loki. X-Scope-OrgID is
// accepted and not needed: Launchwatch has one tenant.
func (h *handler) lokiPush(c echo.Context, rec *ingestRecord) error {
	req := c.Request()
	body, err := decode.ReadLokiBody(req.Body, req.Header.Get(echo.HeaderContentEncoding), req.ContentLength, h.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	rec.bodyBytes = len(body)
	ctx, err := rec.enter()
	if err != nil {
		return err
	}
	batches, err := decode.Loki(body, req.Header.Get(echo.HeaderContentType), decode.LokiOptions{
		LaunchLabel: h.cfg.LokiLaunchLabel, MaxBodyBytes: h.cfg.MaxBodyBytes, MaxLineBytes: h.cfg.MaxLineBytes,
	})
	if err != nil {
		return err
	}
	if err := h.storeBatches(ctx, batches, rec); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
