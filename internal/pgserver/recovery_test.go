package pgserver

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeStaleLockFile rewrites a lock file as a crash would leave it (owned by the server user, content
// from the running server) but naming pid.
func writeStaleLockFile(t *testing.T, path string, content []byte, pid int, a account) {
	t.Helper()
	_, rest, _ := strings.Cut(string(content), "\n")
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"+rest), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.chown(path); err != nil {
		t.Fatal(err)
	}
}

func TestStalePostmasterPID(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	// A live process that is not postgres: what a reused PID looks like after a reboot or in a new
	// container. PostgreSQL alone would refuse to start. It runs as the server user because postgres
	// ignores PIDs it may not signal, and it is not our own PID, which postgres (our child) ignores too.
	a, err := serverAccount()
	if err != nil {
		t.Fatal(err)
	}
	alive := exec.Command("sleep", "60")
	alive.SysProcAttr = a.sysProcAttr()
	if err := alive.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = alive.Process.Kill(); _ = alive.Wait() })
	for name, pid := range map[string]int{"DeadPID": dead.Process.Pid, "ReusedPID": alive.Process.Pid} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dataDir := filepath.Join(traversableTempDir(t), "data")
			seedCluster(t, filepath.Join(dataDir, "pg"))
			s := startServer(t, Config{DataDir: dataDir})
			if _, err := connect(t, s).Exec(context.Background(), `create table kept (v int)`); err != nil {
				t.Fatal(err)
			}
			lockFiles := map[string][]byte{
				filepath.Join(s.Dir(), pidFileName):              nil,
				filepath.Join(s.SocketDir(), socketName+".lock"): nil,
			}
			for path := range lockFiles {
				content, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				lockFiles[path] = content
			}
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			for path, content := range lockFiles {
				writeStaleLockFile(t, path, content, pid, s.acct)
			}

			s2 := startServer(t, Config{DataDir: dataDir})
			if got := queryString(t, s2, `select count(*)::text from kept`); got != "0" {
				t.Errorf("count = %s", got)
			}
			if !processAlive(pid) && name == "ReusedPID" {
				t.Error("the unrelated live process counts as dead")
			}
		})
	}
}

func TestOrphanedPostmasterIsReplaced(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), "data")
	logger, logs := newTestLogger(t)
	seedCluster(t, filepath.Join(dataDir, "pg"))
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
