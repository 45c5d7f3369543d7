package store_test

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"launchwatch/internal/store"
)

// A write that reached a standby is a database without a primary for the
// moment (503), not a bad request nor a server bug.
func TestAWriteOnAStandbyIsUnavailable(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("store: insert: %w", &pgconn.PgError{Code: "25006", Message: "cannot execute INSERT in a read-only transaction"})
	if !store.IsUnavailable(err) {
		t.Error("read_only_sql_transaction is not taken as unavailable")
	}
	if store.IsUnavailable(&pgconn.PgError{Code: "23505"}) {
		t.Error("a unique violation is taken as unavailable")
	}
}
