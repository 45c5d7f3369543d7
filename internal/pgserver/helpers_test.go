package pgserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// helperEnv makes the test binary act as a process that starts a server and never stops it; see
// TestParentDeathStopsPostmaster.
const helperEnv = "PGSERVER_TEST_HELPER_DATADIR"

func TestMain(m *testing.M) {
	if dataDir := os.Getenv(helperEnv); dataDir != "" {
		runHelper(dataDir)
		return
	}
	code := m.Run()
	if templateCluster.dir != "" {
		_ = os.RemoveAll(templateCluster.dir)
	}
	os.Exit(code)
}

// templateCluster is made once per test binary by seedCluster.
var templateCluster struct {
	once sync.Once
	dir  string
	err  error
}

// seedCluster copies a cluster made once per test binary to clusterDir, so that tests about what
// happens around a cluster skip initdb, which costs about a second of CPU (much more on a busy
// machine). Start then reuses it like a cluster from an earlier run. Tests about creating clusters
// (TestStartQueryStop, the ephemeral and fallback tests) still run initdb through Start.
func seedCluster(t *testing.T, clusterDir string) {
	t.Helper()
	templateCluster.once.Do(func() {
		templateCluster.err = func() error {
			dir, err := os.MkdirTemp("", "pgserver-template-")
			if err != nil {
				return err
			}
			templateCluster.dir = dir
			if err := os.Chmod(dir, 0o755); err != nil {
				return err
			}
			binDir, err := FindBinDir()
			if err != nil {
				return err
			}
			a, err := serverAccount()
			if err != nil {
				return err
			}
			return initCluster(context.Background(), binDir, filepath.Join(dir, "pg"), a, true)
		}()
	})
	if templateCluster.err != nil {
		t.Fatalf("template cluster: %v", templateCluster.err)
	}
	if err := os.MkdirAll(filepath.Dir(clusterDir), 0o755); err != nil {
		t.Fatal(err)
	}
	// cp -a keeps the postgres user's ownership and the 0700 mode postgres insists on.
	if out, err := exec.Command("cp", "-a", filepath.Join(templateCluster.dir, "pg"), clusterDir).CombinedOutput(); err != nil {
		t.Fatalf("copy template cluster: %v\n%s", err, out)
	}
}

// runHelper starts a server, reports the postmaster's PID on stdout and waits to be killed.
func runHelper(dataDir string) {
	s, err := Start(context.Background(), Config{DataDir: dataDir, Ephemeral: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(s.cmd.Process.Pid)
	select {}
}

// traversableTempDir is a t.TempDir that the postgres user can reach. t.TempDir's top directory is
// created 0700, so as root every cluster under a plain t.TempDir would go to the fallback location.
func traversableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testLogger sends the package's log to the test output and keeps a copy for assertions.
type testLogger struct {
	mu  sync.Mutex
	buf bytes.Buffer
	t   *testing.T
}

func (l *testLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	return l.t.Output().Write(p)
}

func (l *testLogger) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newTestLogger(t *testing.T) (*slog.Logger, *testLogger) {
	w := &testLogger{t: t}
	return slog.New(slog.NewTextHandler(w, nil)), w
}

// startServer starts a server for cfg and stops it when the test ends.
func startServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger, _ = newTestLogger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return s
}

// connect opens a pgx connection to the postgres database of s.
func connect(t *testing.T, s *Server) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.ConnString("postgres"))
	if err != nil {
		t.Fatalf("connect %q: %v", s.ConnString("postgres"), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// queryString runs a query returning one text value.
func queryString(t *testing.T, s *Server, sql string) string {
	t.Helper()
	var v string
	if err := connect(t, s).QueryRow(context.Background(), sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// waitGone waits until pid has exited.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive after %v", pid, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readFirstLine reads one line from a helper's stdout.
func readFirstLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read helper output: %v", err)
	}
	return line[:len(line)-1]
}
