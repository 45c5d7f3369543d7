// Package storetest gives each test its own migrated PostgreSQL database,
// cheaply: the schema is migrated once into a template database (named after
// a hash of the migration files) and every test gets a CREATE DATABASE ...
// TEMPLATE copy, dropped when the test ends.
//
// The server is TEST_DATABASE_URL or DATABASE_URL when set; otherwise one
// throwaway cluster per test binary, started on first use in a temporary
// directory and removed by Main when the tests are done.
package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"launchwatch/internal/pgserver"
	"launchwatch/internal/store"
	"launchwatch/migrations"
)

var (
	setupOnce sync.Once
	setupErr  error
	adminConn string // a connection string to the server's "postgres" database
	template  string // the migrated template database
	cluster   *pgserver.Server
	tempDir   string
	createMu  sync.Mutex // CREATE DATABASE ... TEMPLATE copies one at a time
)

// Main runs the tests of a package, stops the throwaway cluster if one was
// started, and fails the run if goroutines leaked. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "storetest: stopping cluster:", err)
		}
	}
	if tempDir != "" {
		os.RemoveAll(tempDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "storetest: goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// ServerURL returns a connection string for database name on the test
// server, starting the server if needed.
func ServerURL(t testing.TB, name string) string {
	t.Helper()
	setupOnce.Do(func() { setupErr = setup() })
	if setupErr != nil {
		t.Fatalf("storetest: %v", setupErr)
	}
	return WithDatabase(adminConn, name)
}

// NewDB creates a fresh migrated database for the test and returns a pool
// on it and its connection string. The database is dropped when the test
// ends, unless the test failed and a shared server is in use, in which case
// its URL is logged for a look.
func NewDB(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	ServerURL(t, "postgres")
	name := "t_" + randomHex(8)
	ctx := context.Background()
	createMu.Lock()
	err := exec(ctx, adminConn, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()+` TEMPLATE `+pgx.Identifier{template}.Sanitize())
	createMu.Unlock()
	if err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	connString := WithDatabase(adminConn, name)
	pool, err := pgxpool.New(ctx, connString)
	if err != nil {
		t.Fatalf("storetest: pool: %v", err)
	}
	t.Cleanup(func() {
		pool.Close()
		if t.Failed() && cluster == nil {
			t.Logf("storetest: kept database of failed test: %s", connString)
			return
		}
		if err := exec(ctx, adminConn, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
			t.Errorf("storetest: drop database: %v", err)
		}
	})
	return pool, connString
}

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adminConn = os.Getenv("TEST_DATABASE_URL")
	if adminConn == "" {
		adminConn = os.Getenv("DATABASE_URL")
	}
	if adminConn == "" {
		dir, err := os.MkdirTemp("", "lwtest-")
		if err != nil {
			return err
		}
		tempDir = dir
		cluster, err = pgserver.Start(ctx, pgserver.Config{DataDir: dir, Ephemeral: true,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return fmt.Errorf("start throwaway cluster: %w", err)
		}
		adminConn = cluster.ConnString("postgres")
	}
	sum, err := migrationsHash()
	if err != nil {
		return err
	}
	template = "lw_tpl_" + sum
	return ensureTemplate(ctx)
}

// ensureTemplate migrates the template database once per schema version.
// An advisory lock makes test binaries that share a server wait for each
// other, and the template is built under a temporary name and renamed, so
// a half-migrated template is never used.
func ensureTemplate(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, adminConn)
	if err != nil {
		return fmt.Errorf("connect %s: %w", redact(adminConn), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('launchwatch.storetest.template'))`); err != nil {
		return err
	}
	defer conn.Exec(ctx, `SELECT pg_advisory_unlock(hashtext('launchwatch.storetest.template'))`) //nolint:errcheck
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, template).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := template + "_building"
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{building}.Sanitize()+` WITH (FORCE)`); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{building}.Sanitize()); err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, WithDatabase(adminConn, building))
	if err != nil {
		return err
	}
	err = store.Migrate(ctx, pool, slog.New(slog.DiscardHandler))
	pool.Close()
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, `ALTER DATABASE `+pgx.Identifier{building}.Sanitize()+` RENAME TO `+pgx.Identifier{template}.Sanitize())
	return err
}

func migrationsHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func exec(ctx context.Context, connString, sql string) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// WithDatabase returns connString pointing at database name instead. It
// understands both URL (postgres://...) and keyword (host=... dbname=...)
// connection strings.
func WithDatabase(connString, name string) string {
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		if err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	// In keyword form a later key overrides an earlier one.
	return connString + " dbname=" + name
}

// WithUser returns connString connecting as user with password instead
// (a role a test made), in URL or keyword form.
func WithUser(connString, user, password string) string {
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		if err == nil {
			u.User = url.UserPassword(user, password)
			return u.String()
		}
	}
	// In keyword form a later key overrides an earlier one.
	return connString + " user=" + user + " password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(password) + "'"
}

func redact(connString string) string {
	if u, err := url.Parse(connString); err == nil && u.User != nil {
		u.User = url.User(u.User.Username())
		return u.String()
	}
	return connString
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // never fails
	return hex.EncodeToString(b)
}
