package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// EnsureDatabase creates database name on the server that adminConn points
// to (any database there, usually "postgres") unless it exists. The private
// cluster of cmd/web starts with none of Launchwatch's own.
func EnsureDatabase(ctx context.Context, adminConn, name string) error {
	conn, err := pgx.Connect(ctx, adminConn)
	if err != nil {
		return fmt.Errorf("store: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("store: look up database: %w", err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("store: create database %s: %w", name, err)
	}
	return nil
}
