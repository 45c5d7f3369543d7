package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pidFileName is PostgreSQL's lock file in the cluster directory. Its first line is the
// postmaster's PID and its eighth line the status ("ready" once it accepts connections).
const pidFileName = "postmaster.pid"

// shutdownStep is a signal to send to a postmaster and how long to wait for it to exit before the
// next, harsher step.
type shutdownStep struct {
	sig  syscall.Signal
	wait time.Duration
}

// How long an orphaned postmaster gets for each shutdown mode before we escalate.
var orphanShutdownSteps = []shutdownStep{
	{syscall.SIGINT, 30 * time.Second},  // fast: roll back, checkpoint, exit
	{syscall.SIGQUIT, 10 * time.Second}, // immediate: exit now, recover at next start
	{syscall.SIGKILL, 5 * time.Second},
}

// clearStalePostmaster makes the cluster startable after its previous owner ended uncleanly. The
// caller holds the cluster lock, so no other launchwatch process manages this cluster.
//
// For each lock file (postmaster.pid in the cluster and .s.PGSQL.5432.lock in the socket dir):
//   - when its PID is dead, a zombie, or alive but not a postgres process of this cluster (PIDs are
//     reused, in containers especially, where they are small and restart from the same numbers), the
//     file is removed. PostgreSQL itself only checks that the PID is alive and would refuse to start.
//   - when its PID is a live postmaster of this cluster, the process that started it died without
//     stopping it (SIGKILL, OOM kill, a crash before Stop). We stop it with a fast shutdown and start
//     our own rather than adopt it: an adopted postmaster is not our child, so we could neither wait
//     for it nor notice it dying, and it would keep the settings (Ephemeral, log file) of the old run.
func clearStalePostmaster(ctx context.Context, clusterDir, sockDir string, logger *slog.Logger) error {
	sockLock := filepath.Join(sockDir, socketName+".lock")
	for _, lockFile := range []string{filepath.Join(clusterDir, pidFileName), sockLock} {
		pid, ok := readLockPID(lockFile)
		if !ok {
			continue
		}
		if processAlive(pid) && isPostmasterOf(pid, clusterDir) {
			logger.Warn("pgserver: stopping a postmaster left running by an earlier process",
				slog.Int("pid", pid), slog.String("cluster", clusterDir))
			if err := stopOrphan(ctx, pid); err != nil {
				return err
			}
			continue // a clean shutdown removes its own lock files; leftovers are caught below
		}
		logger.Info("pgserver: removing stale lock file", slog.String("file", lockFile), slog.Int("pid", pid))
		if err := removeIfExists(lockFile); err != nil {
			return err
		}
		if lockFile == sockLock {
			if err := removeIfExists(filepath.Join(sockDir, socketName)); err != nil {
				return err
			}
		}
	}
	// After an escalated (SIGKILL) shutdown the files may remain; they are stale now.
	for _, f := range []string{filepath.Join(clusterDir, pidFileName), sockLock} {
		if pid, ok := readLockPID(f); ok && !processAlive(pid) {
			if err := removeIfExists(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// stopOrphan shuts down a postmaster that is not our child, escalating through orphanShutdownSteps.
// It polls, because only a parent can wait for a process.
func stopOrphan(ctx context.Context, pid int) error {
	for _, step := range orphanShutdownSteps {
		if err := syscall.Kill(pid, step.sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("pgserver: signal orphaned postmaster %d: %w", pid, err)
		}
		deadline := time.Now().Add(step.wait)
		for time.Now().Before(deadline) {
			if !processAlive(pid) {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("pgserver: waiting for orphaned postmaster %d to exit: %w", pid, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return fmt.Errorf("pgserver: orphaned postmaster %d does not exit", pid)
}

// readLockPID returns the PID on the first line of a PostgreSQL lock file. ok is false when the file
// does not exist; an unreadable or garbled file yields PID 0, which counts as dead.
func readLockPID(path string) (pid int, ok bool) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ = strconv.Atoi(strings.TrimSpace(line))
	return pid, true
}

// processAlive reports whether pid exists and has not exited. Zombies count as dead: an orphan's
// new parent may never reap it (a container's PID 1 often does not), yet kill(pid, 0) succeeds.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	// The state follows the command name, which is in parentheses and may itself contain ") ".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	state := stat[i+2]
	return state != 'Z' && state != 'X'
}

// isPostmasterOf reports whether pid is a postgres process serving clusterDir. The postmaster
// chdirs into its data directory, so its /proc cwd identifies the cluster even when the command
// line was given a relative or symlinked path.
func isPostmasterOf(pid int, clusterDir string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	if !bytes.Contains(argv0, []byte("postgres")) {
		return false
	}
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return false
	}
	want := clusterDir
	if resolved, err := filepath.EvalSymlinks(clusterDir); err == nil {
		want = resolved
	}
	return cwd == want
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pgserver: %w", err)
	}
	return nil
}
