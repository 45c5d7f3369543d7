package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
)

// apiRuleCreate answers POST /api/v1/rules with the same checks and
// preview as the form: 201 with the rule's id and what it suppressed; with
// "preview": true, 200 and what it would match; 422 with the reasons (a
// blinding pattern, a rule that would hide confirmed alarms); 403 for what
// only an admin may do.
func (h *handler) apiRuleCreate(c echo.Context) error {
	var req ruleRequest
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	d := req.draft(c)
	ctx := c.Request().Context()
	if req.Preview {
		if err := d.Validate(); err != nil {
			return reviewError(c, err)
		}
		pv, err := review.PreviewRule(ctx, h.store, d)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"preview": toPreviewJSON(pv)})
	}
	id, pv, err := review.SaveRule(ctx, h.store, d)
	if err != nil {
		if invalid, ok := err.(*review.InvalidError); ok && pv != nil {
			return invalidWithPreview(c, invalid, pv)
		}
		return reviewError(c, err)
	}
	r, err := h.store.RuleByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": id, "rule": toRuleJSON(r), "preview": toPreviewJSON(pv)})
}
