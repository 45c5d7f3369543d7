package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// superuser is the role initdb creates and ConnString connects as. Naming it explicitly keeps the
// connection string the same whichever OS user ran initdb.
const superuser = "postgres"

// initCluster runs initdb when dir does not hold a cluster yet. initdb writes into a sibling
// directory that is renamed into place only on success, so a crash mid-initdb never leaves a
// half-made cluster that later starts would trip over.
func initCluster(ctx context.Context, binDir, dir string, a account, noSync bool) error {
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return fmt.Errorf("pgserver: %s exists but holds no PostgreSQL cluster (no PG_VERSION); move it away", dir)
	case err == nil:
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("pgserver: %w", err)
	}

	tmp := dir + ".initdb"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("pgserver: remove leftover %s: %w", tmp, err)
	}
	// Made by us and handed over, because the postgres user may not write to the parent.
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if err := a.chown(tmp); err != nil {
		return err
	}
	args := []string{
		"--pgdata=" + tmp,
		"--username=" + superuser,
		"--encoding=UTF8",
		"--locale=C",
		"--auth-local=trust", // the socket directory is private to the server user (or root)
		"--auth-host=reject", // never listens on TCP anyway; refuse if someone turns it on
		"--no-instructions",
	}
	if noSync {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"), args...)
	cmd.Dir = "/" // our own working directory may be unreachable for the postgres user
	cmd.Env = childEnv()
	cmd.SysProcAttr = a.sysProcAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("pgserver: initdb %s as %s: %w\n%s", dir, a.name, err, tailLines(out, 20))
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	return nil
}

// childEnv is our environment without libpq/PostgreSQL variables (PGDATA, PGPORT, PGOPTIONS... would
// silently change what the server does) and with the C locale, so server messages are in English.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}
