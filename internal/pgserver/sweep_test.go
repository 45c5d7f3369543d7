package pgserver

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepRemovesAbandonedEphemeralCluster simulates a test binary that panicked: its ephemeral
// cluster in the fallback root was never stopped. The next fallback Start deletes it.
func TestSweepRemovesAbandonedEphemeralCluster(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root uses the fallback root")
	}
	base := traversableTempDir(t)
	private := filepath.Join(base, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "fallback")
	abandoned := startServer(t, Config{DataDir: filepath.Join(private, "a"), FallbackRoot: root, Ephemeral: true})
	// Die without Stop: the kernel would drop the flock; the postmaster keeps running.
	abandoned.lock.Close()
	if _, err := os.Stat(abandoned.Dir() + ephemeralSuffix); err != nil {
		t.Fatalf("no ephemeral marker: %v", err)
	}

	seeded, err := fallbackDirIn(root, filepath.Join(private, "b"))
	if err != nil {
		t.Fatal(err)
	}
	seedCluster(t, seeded)
	s := startServer(t, Config{DataDir: filepath.Join(private, "b"), FallbackRoot: root, Ephemeral: true})
	select {
	case <-abandoned.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned cluster's postmaster is still running")
	}
	for _, p := range []string{abandoned.Dir(), abandoned.Dir() + ephemeralSuffix, abandoned.Dir() + ".lock",
		filepath.Join(private, "a", "pg")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s survives the sweep: %v", p, err)
		}
	}
	if got := queryString(t, s, `select 'swept'`); got != "swept" {
		t.Errorf("query: %q", got)
	}
}
