package pgserver

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeLockFile writes a PostgreSQL-format lock file naming pid.
func writeLockFile(t *testing.T, path string, pid int, s *Server) {
	t.Helper()
	content := fmt.Sprintf("%d\n%s\n1700000000\n5432\n%s\n\n  5432001         0\nready   \n", pid, s.Dir(), s.SocketDir())
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestStalePostmasterPID(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for name, pid := range map[string]int{
		"DeadPID": dead.Process.Pid,
		// A live process that is not postgres: what a reused PID looks like after a reboot or in a
		// new container. PostgreSQL alone would refuse to start.
		"ReusedPID": os.Getpid(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dataDir := filepath.Join(traversableTempDir(t), "data")
			s := startServer(t, Config{DataDir: dataDir})
			if _, err := connect(t, s).Exec(context.Background(), `create table kept (v int)`); err != nil {
				t.Fatal(err)
			}
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			writeLockFile(t, filepath.Join(s.Dir(), pidFileName), pid, s)
			writeLockFile(t, filepath.Join(s.SocketDir(), socketName+".lock"), pid, s)

			s2 := startServer(t, Config{DataDir: dataDir})
			if got := queryString(t, s2, `select count(*)::text from kept`); got != "0" {
				t.Errorf("count = %s", got)
			}
			if !processAlive(os.Getpid()) {
				t.Error("the test process itself counts as dead")
			}
		})
	}
}

func TestOrphanedPostmasterIsReplaced(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), "data")
	logger, logs := newTestLogger(t)
	old := startServer(t, Config{DataDir: dataDir, Logger: logger})
	if _, err := connect(t, old).Exec(context.Background(), `create table kept (v int)`); err != nil {
		t.Fatal(err)
	}
	// Forget the server without stopping it: the kernel drops a dead owner's flock the same way.
	old.lock.Close()
	oldPID := old.cmd.Process.Pid

	s := startServer(t, Config{DataDir: dataDir, Logger: logger})
	select {
	case <-old.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the orphaned postmaster is still running")
	}
	if s.cmd.Process.Pid == oldPID {
		t.Fatal("same postmaster")
	}
	if got := queryString(t, s, `select count(*)::text from kept`); got != "0" {
		t.Errorf("count = %s", got)
	}
	if !strings.Contains(logs.String(), "stopping a postmaster left running") {
		t.Errorf("no warning about the orphan in the log:\n%s", logs)
	}
}

// TestParentDeathStopsPostmaster checks that the parent-death signal survives Go's threads and the
// switch to the postgres user: a process that is SIGKILLed takes its postmaster down with it.
func TestParentDeathStopsPostmaster(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), "data")
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), helperEnv+"="+dataDir)
	helper.Stderr = t.Output()
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = helper.Process.Kill(); _ = helper.Wait() })
	pid, err := strconv.Atoi(readFirstLine(t, bufio.NewReader(out)))
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := filepath.EvalSymlinks(filepath.Join(dataDir, "pg"))
	if err != nil {
		t.Fatal(err)
	}
	if !isPostmasterOf(pid, cluster) {
		t.Fatalf("pid %d is not the postmaster of %s", pid, cluster)
	}
	// Let the runtime start and retire threads for a while, as a long-running server would.
	time.Sleep(200 * time.Millisecond)

	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	waitGone(t, pid, 15*time.Second)

	s := startServer(t, Config{DataDir: dataDir, Ephemeral: true})
	if got := queryString(t, s, `select 'restarted'`); got != "restarted" {
		t.Errorf("query: %q", got)
	}
}
