package pgserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLongDataDirUsesShortSocketDir(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), strings.Repeat("a-very-long-directory-name-", 4), "data")
	if len(dataDir) <= maxSocketPath {
		t.Fatalf("test path too short: %d bytes", len(dataDir))
	}
	seedCluster(t, filepath.Join(dataDir, "pg"))
	s := startServer(t, Config{DataDir: dataDir, Ephemeral: true})
	if s.Dir() != filepath.Join(dataDir, "pg") {
		t.Errorf("Dir = %s", s.Dir())
	}
	if sock := filepath.Join(s.SocketDir(), socketName); len(sock) >= maxSocketPath || s.SocketDir() == s.Dir() {
		t.Errorf("socket %s is not in a short directory", sock)
	}
	if got := queryString(t, s, `select current_database()`); got != "postgres" {
		t.Errorf("current_database = %q", got)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.SocketDir()); !os.IsNotExist(err) {
		t.Errorf("socket dir of an ephemeral cluster survives Stop: %v", err)
	}
}

// TestFallbackWhenParentNotTraversable covers root with a checkout under a 0700 home: the postgres
// user cannot reach DataDir, so the cluster lives under the fallback root with a link in DataDir.
func TestFallbackWhenParentNotTraversable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root switches to the postgres user")
	}
	base := traversableTempDir(t)
	private := filepath.Join(base, "home")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(private, "checkout", ".data")
	root := filepath.Join(base, "fallback")
	logger, logs := newTestLogger(t)

	want, err := fallbackDirIn(root, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	seedCluster(t, want) // initdb in a fallback root runs in TestSweepRemovesAbandonedEphemeralCluster
	s := startServer(t, Config{DataDir: dataDir, FallbackRoot: root, Logger: logger})
	if s.Dir() != want {
		t.Errorf("Dir = %s, want %s", s.Dir(), want)
	}
	if target, err := os.Readlink(filepath.Join(dataDir, "pg")); err != nil || target != want {
		t.Errorf("link %s/pg -> %q (%v), want %s", dataDir, target, err, want)
	}
	if !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not say where the cluster lives:\n%s", logs)
	}
	assertOwnedByPostgres(t, s.Dir())
	if _, err := connect(t, s).Exec(context.Background(), `create table kept (v int)`); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}

	// The next start finds the same cluster through the link; as Ephemeral it then cleans up.
	s = startServer(t, Config{DataDir: dataDir, FallbackRoot: root, Ephemeral: true})
	if got := queryString(t, s, `select count(*)::text from kept`); got != "0" || s.Dir() != want {
		t.Errorf("second start: count %q in %s, want 0 in %s", got, s.Dir(), want)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{want, filepath.Join(dataDir, "pg")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s survives Stop of an ephemeral cluster: %v", p, err)
		}
	}
}

func TestFallbackDirIsStableAndShort(t *testing.T) {
	t.Parallel()
	a, _ := FallbackDir("/root/src/launchwatch/.data")
	b, _ := FallbackDir("/root/src/launchwatch/./.data")
	c, _ := FallbackDir("/root/src/other/.data")
	if a != b || a == c || !strings.HasPrefix(a, FallbackRoot+"/") || len(a) > len(FallbackRoot)+13 {
		t.Errorf("FallbackDir: %s, %s, %s", a, b, c)
	}
}

func TestCanTraverse(t *testing.T) {
	t.Parallel()
	base := traversableTempDir(t)
	closed := filepath.Join(base, "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	stranger := account{name: "stranger", uid: 54321, gid: 54321}
	if _, ok := stranger.canTraverse(base); !ok {
		t.Errorf("%s should be traversable", base)
	}
	if blocker, ok := stranger.canTraverse(filepath.Join(closed, "sub")); ok || blocker != closed {
		t.Errorf("canTraverse under a 0700 dir = %q, %v", blocker, ok)
	}
}
