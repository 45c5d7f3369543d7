// Package static holds the files the review UI serves under /static/: the
// stylesheet and a vendored htmx (2.0.11, from the htmx.org npm package's
// dist/htmx.min.js), embedded so the binary needs nothing beside it.
package static

import "embed"

// FS holds the static files.
//
//go:embed htmx.min.js app.css review.js live.js list.js timeline.js csrf.js incident.css request-errors.js term256.css alarm-anchor.js
var FS embed.FS
