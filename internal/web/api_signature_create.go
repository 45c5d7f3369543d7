package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
)

// apiSignatureCreate answers POST /api/v1/signatures: 201 with the
// signature; 422 with the reasons it was refused (a catch-all pattern, a
// bad phase); 403 for what only an admin may do.
func (h *handler) apiSignatureCreate(c echo.Context) error {
	var req signatureRequest
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	d := req.draft(c)
	ctx := c.Request().Context()
	id, err := review.SaveSignature(ctx, h.store, d)
	if err != nil {
		return reviewError(c, err)
	}
	s, err := h.store.SignatureByID(ctx, id)
	if err != nil {
		return err
	}
	body := map[string]any{"id": id, "signature": toSignatureJSON(s)}
	return c.JSON(http.StatusCreated, body)
}
