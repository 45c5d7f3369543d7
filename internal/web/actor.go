package web

import "github.com/labstack/echo/v4"

// actorName is the name decisions, notes, rules and audit events made by
// this request are attributed to.
// TODO(auth): the signed-in user or token; until then the typed name.
func actorName(c echo.Context) string { return reviewerName(c) }
