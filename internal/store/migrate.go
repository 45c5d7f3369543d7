package store

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"launchwatch/migrations"
)

// newMigrator returns a goose provider over the embedded migrations. A
// Postgres session lock makes concurrent starts of several web processes
// apply each migration once.
func newMigrator(pool *pgxpool.Pool) (*goose.Provider, func() error, error) {
	db := stdlib.OpenDBFromPool(pool)
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("store: migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("store: migrations: %w", err)
	}
	return p, db.Close, nil
}

// Migrate applies all pending migrations and logs each one applied.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	p, closeDB, err := newMigrator(pool)
	if err != nil {
		return err
	}
	defer closeDB()
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate up: %w", err)
	}
	for _, r := range results {
		log.Info("migration applied", slog.Int64("version", r.Source.Version), slog.Duration("took", r.Duration))
	}
	return nil
}

// MigrateDownAll reverts every migration. It exists for the migration test
// (up, down to zero, up again) and is never called by the server.
func MigrateDownAll(ctx context.Context, pool *pgxpool.Pool) error {
	p, closeDB, err := newMigrator(pool)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := p.DownTo(ctx, 0); err != nil {
		return fmt.Errorf("store: migrate down: %w", err)
	}
	return nil
}

// MigrateDownTo reverts the migrations after version. It exists for
// migration tests (a migration's work on rows written before it) and is
// never called by the server.
func MigrateDownTo(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	p, closeDB, err := newMigrator(pool)
	if err != nil {
		return err
	}
	defer closeDB()
	if _, err := p.DownTo(ctx, version); err != nil {
		return fmt.Errorf("store: migrate down to %d: %w", version, err)
	}
	return nil
}
