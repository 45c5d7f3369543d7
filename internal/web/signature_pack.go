package web

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/classify"
	"launchwatch/internal/review"
)

// apiSignaturePackExport answers GET /api/v1/signatures/pack: the enabled
// signatures as one rule pack in the built-in packs' format, with the
// lines they matched as tests, ready to go into internal/classify/packs/.
func (h *handler) apiSignaturePackExport(c echo.Context) error {
	p, err := review.ExportPack(c.Request().Context(), h.store)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+classify.TaughtPack+`.json"`)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, append(b, '\n'))
}

// apiSignaturePackImport answers POST /api/v1/signatures/pack with a rule
// pack as the body: its signatures become taught ones, with the same
// checks (the pack's own tests, the catch-all refusal, the author's role),
// all or none; ?scope= and ?scope_value= scope those that name no server
// (all launches by default, an admin's). 201 with their ids.
func (h *handler) apiSignaturePackImport(c echo.Context) error {
	var p classify.Pack
	if err := decodeTextJSON(c, &p); err != nil {
		return err
	}
	ctx := c.Request().Context()
	ids, err := review.ImportPack(ctx, h.store, h.pipe, p, review.ImportOptions{Author: actorName(c),
		Admin: principalOf(c).level == auth.Admin, Scope: c.QueryParam("scope"), ScopeValue: c.QueryParam("scope_value")},
		h.backtestOptions())
	if err != nil {
		return reviewError(c, err)
	}
	out := make([]signatureJSON, 0, len(ids))
	for _, id := range ids {
		s, err := h.store.SignatureByID(ctx, id)
		if err != nil {
			return err
		}
		out = append(out, toSignatureJSON(s))
	}
	return c.JSON(http.StatusCreated, map[string]any{"imported": ids, "signatures": out})
}
