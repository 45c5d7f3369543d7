// Package migrations holds the SQL schema migrations, embedded in the binary
// so that a deployed cmd/web can bring any database up to date by itself.
// The files live here rather than in internal/store because go:embed cannot
// reach parent directories and the layout keeps SQL migrations at the top.
package migrations

import "embed"

// FS holds the numbered goose migrations (NNNNN_name.sql).
//
//go:embed *.sql
var FS embed.FS
