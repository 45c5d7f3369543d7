package pgserver

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
)

// FallbackRoot is where clusters live when the process is root and the postgres user cannot reach
// Config.DataDir (some parent directory is not traversable, e.g. a checkout under a 0700 /root).
// Each cluster gets its own directory, FallbackDir(DataDir), and DataDir/pg is a symlink to it.
const FallbackRoot = "/var/lib/launchwatch"

// clusterSubdir is the cluster directory's name inside Config.DataDir.
const clusterSubdir = "pg"

// maxSocketPath is the usable length of a unix socket path (sun_path is 108 bytes on Linux; keep a
// margin so PostgreSQL's own checks and the ".lock" suffix fit).
const maxSocketPath = 100

// socketName is the file PostgreSQL creates in unix_socket_directories for port 5432.
const socketName = ".s.PGSQL.5432"

// FallbackDir returns the cluster directory used for dataDir when it must live outside it:
// FallbackRoot/<12 hex digits of the SHA-256 of the absolute dataDir>. The hash keeps the path short
// and stable, so a later Start finds the same cluster.
func FallbackDir(dataDir string) (string, error) {
	return fallbackDirIn(FallbackRoot, dataDir)
}

func fallbackDirIn(root, dataDir string) (string, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("pgserver: data dir %q: %w", dataDir, err)
	}
	return filepath.Join(root, shortHash(abs)), nil
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// location is where a cluster lives on disk.
type location struct {
	dir  string // the cluster directory (PGDATA)
	link string // DataDir/pg when it is a symlink to dir, else ""
}

// locate decides where the cluster for dataDir lives, creating dataDir, and for the fallback the
// symlink DataDir/pg, as needed. A symlink at DataDir/pg always wins, so data is never silently
// abandoned when permissions change between runs.
func locate(dataDir, fallbackRoot string, a account, logger *slog.Logger) (location, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return location{}, fmt.Errorf("pgserver: data dir %q: %w", dataDir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return location{}, fmt.Errorf("pgserver: create data dir: %w", err)
	}
	link := filepath.Join(abs, clusterSubdir)
	fi, err := os.Lstat(link)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return followLink(link, a)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return location{}, fmt.Errorf("pgserver: %w", err)
	}
	if !a.switchTo { // we run postgres as ourselves, and we just reached abs
		return location{dir: link}, nil
	}
	blocker, ok := a.canTraverse(abs)
	if ok {
		return location{dir: link}, nil
	}
	if err == nil { // a real directory that postgres cannot reach
		return location{}, fmt.Errorf("pgserver: cluster %s is not reachable by user %s (%s is not traversable); "+
			"move it away or make the parent directories traversable (chmod o+x)", link, a.name, blocker)
	}
	dir, err := fallbackDirIn(fallbackRoot, abs)
	if err != nil {
		return location{}, err
	}
	if err := os.MkdirAll(fallbackRoot, 0o755); err != nil {
		return location{}, fmt.Errorf("pgserver: create fallback root: %w", err)
	}
	if b, ok := a.canTraverse(fallbackRoot); !ok {
		return location{}, fmt.Errorf("pgserver: fallback root %s is not traversable by user %s (blocked at %s)",
			fallbackRoot, a.name, b)
	}
	if err := os.Symlink(dir, link); err != nil {
		return location{}, fmt.Errorf("pgserver: link cluster into data dir: %w", err)
	}
	logger.Info("pgserver: cluster lives outside the data dir because user "+a.name+" cannot traverse "+blocker,
		slog.String("cluster", dir), slog.String("link", link))
	return location{dir: dir, link: link}, nil
}

// followLink resolves DataDir/pg when it is a symlink (normally to a fallback directory made by an
// earlier run). A dangling link is fine: the target is recreated.
func followLink(link string, a account) (location, error) {
	target, err := os.Readlink(link)
	if err != nil {
		return location{}, fmt.Errorf("pgserver: %w", err)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(link), target)
	}
	if resolved, err := filepath.EvalSymlinks(target); err == nil {
		target = resolved
	}
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return location{}, fmt.Errorf("pgserver: create %s: %w", parent, err)
	}
	if b, ok := a.canTraverse(parent); !ok {
		return location{}, fmt.Errorf("pgserver: cluster %s (linked from %s) is not reachable by user %s (%s is not traversable)",
			target, link, a.name, b)
	}
	return location{dir: target, link: link}, nil
}

// socketDir returns a directory for the server's unix socket: the cluster directory when the socket
// path fits in maxSocketPath, else /tmp/lw-<hash of clusterDir>, owned by a and private to it.
func socketDir(clusterDir string, a account) (string, error) {
	if len(filepath.Join(clusterDir, socketName)) < maxSocketPath {
		return clusterDir, nil
	}
	dir := filepath.Join(os.TempDir(), "lw-"+shortHash(clusterDir))
	if len(filepath.Join(dir, socketName)) >= maxSocketPath {
		dir = "/tmp/lw-" + shortHash(clusterDir) // TMPDIR itself is too long
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("pgserver: create socket dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("pgserver: socket dir: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return "", fmt.Errorf("pgserver: socket dir %s is not a directory; remove it", dir)
	}
	if int(st.Uid) != a.uid {
		// Only a directory we just made as root may be handed over; anyone else's is suspect.
		if !a.switchTo || st.Uid != 0 {
			return "", fmt.Errorf("pgserver: socket dir %s belongs to uid %d, not %s; remove it", dir, st.Uid, a.name)
		}
		if err := a.chown(dir); err != nil {
			return "", err
		}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("pgserver: socket dir: %w", err)
	}
	return dir, nil
}
