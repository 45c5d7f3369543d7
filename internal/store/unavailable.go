package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrUnavailable marks an error that says nothing about the request and
// everything about the database: it went away, hung, or gave up on the
// transaction (serialization failure, deadlock). The client keeps its lines
// and retries later (HTTP 503).
var ErrUnavailable = errors.New("store: database unavailable")

// unavailable wraps err so that errors.Is(err, ErrUnavailable) holds and
// the original error stays readable for the log.
func unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// IsUnavailable reports whether err means the database cannot be reached,
// broke the connection, is shutting down or aborted the transaction for
// reasons of its own, so that a client should retry later (HTTP 503) rather
// than treat the request as failed for good.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", "53", "57", "58": // connection exception, insufficient resources, operator intervention, system error
			return true
		case "40": // serialization failure, deadlock, statement completion unknown: retry
			return true
		}
		// idle_in_transaction_session_timeout; read_only_sql_transaction:
		// a write reached a server that is a standby now (a primary
		// demoted under its connections): no primary to write to yet.
		return pgErr.Code == "25P03" || pgErr.Code == "25006"
	}
	// A connection that broke mid-statement (a crashed server, a reset
	// socket) surfaces as an I/O error from pgconn, not a PgError.
	var netErr net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed), errors.As(err, &netErr):
		return true
	case pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	return pgconn.SafeToRetry(err)
}
