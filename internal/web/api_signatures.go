package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
)

// signatureRequest is a signature in POST /api/v1/signatures, named like
// the teach form's fields.
type signatureRequest struct {
	Meaning    string `json:"meaning"` // ready, fatal, error or phase
	Phase      string `json:"phase"`   // with phase: the phase it begins
	Kind       string `json:"kind"`    // with fatal and error: the alarm's kind (other when absent)
	Matcher    string `json:"matcher"` // template, substring or regex
	Pattern    string `json:"pattern"`
	Scope      string `json:"scope"` // all, server or label
	ScopeValue string `json:"scope_value"`
	Reason     string `json:"reason"`
	// FromLaunch and FromSeq are the line it is taught from, if any.
	FromLaunch string `json:"from_launch"`
	FromSeq    int64  `json:"from_seq"`
	// Preview asks what it would change, saving nothing; ApplyToStored
	// also reclassifies the stored launches the preview lists.
	Preview       bool `json:"preview"`
	ApplyToStored bool `json:"apply_to_stored"`
}

func (req signatureRequest) draft(c echo.Context) review.SignatureDraft {
	return review.SignatureDraft{Meaning: req.Meaning, Phase: req.Phase, Kind: req.Kind, Matcher: req.Matcher,
		Pattern: req.Pattern, Scope: req.Scope, ScopeValue: req.ScopeValue, Reason: req.Reason, Author: actorName(c),
		FromLaunchKey: req.FromLaunch, FromSeq: req.FromSeq, ApplyToStored: req.ApplyToStored,
		Admin: principalOf(c).level == auth.Admin}
}

// signatureJSON is a signature in the API.
type signatureJSON struct {
	ID         int64      `json:"id"`
	Meaning    string     `json:"meaning"`
	Phase      string     `json:"phase,omitempty"`
	Kind       string     `json:"kind,omitempty"`
	Matcher    string     `json:"matcher"`
	Pattern    string     `json:"pattern"`
	Scope      string     `json:"scope"`
	ScopeValue string     `json:"scope_value"`
	Reason     string     `json:"reason"`
	Author     string     `json:"author"`
	Enabled    bool       `json:"enabled"`
	Hits       int64      `json:"hits"`     // lines matched
	Launches   int64      `json:"launches"` // launches with a matched line
	LastHitAt  *time.Time `json:"last_hit_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	FromSeq    *int64     `json:"from_seq,omitempty"`
	Examples   []string   `json:"examples"`
}

func toSignatureJSON(s store.Signature) signatureJSON {
	ex := s.Examples
	if ex == nil {
		ex = []string{}
	}
	return signatureJSON{ID: s.ID, Meaning: s.Meaning, Phase: s.Phase, Kind: s.Kind, Matcher: s.Matcher, Pattern: s.Pattern,
		Scope: s.Scope, ScopeValue: s.ScopeValue, Reason: s.Reason, Author: s.Author, Enabled: s.Enabled, Hits: s.Hits,
		Launches: s.Launches, LastHitAt: s.LastHitAt, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, FromSeq: s.FromSeq,
		Examples: ex}
}

// apiSignaturesList answers GET /api/v1/signatures: every signature, newest
// first, with its hits.
func (h *handler) apiSignaturesList(c echo.Context) error {
	sigs, err := h.store.Signatures(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]signatureJSON, 0, len(sigs))
	for _, s := range sigs {
		out = append(out, toSignatureJSON(s))
	}
	return c.JSON(http.StatusOK, map[string]any{"signatures": out})
}

// signatureID reads the {id} path parameter.
func signatureID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, decode.BadRequest("signature %q is not valid", c.Param("id"))
	}
	return id, nil
}

// signaturePatch is the body of PATCH /api/v1/signatures/{id}; absent
// fields stay.
type signaturePatch struct {
	Enabled *bool   `json:"enabled"`
	Reason  *string `json:"reason"`
}

// apiSignatureUpdate answers PATCH /api/v1/signatures/{id}: enable or
// disable it, or give it a new reason; 200 with the signature.
func (h *handler) apiSignatureUpdate(c echo.Context) error {
	id, err := signatureID(c)
	if err != nil {
		return err
	}
	var req signaturePatch
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	err = review.UpdateSignature(ctx, h.store, id, review.SignaturePatch{Enabled: req.Enabled, Reason: req.Reason,
		Actor: actorName(c), Admin: principalOf(c).level == auth.Admin})
	if err != nil {
		return reviewError(c, err)
	}
	s, err := h.store.SignatureByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toSignatureJSON(s))
}
