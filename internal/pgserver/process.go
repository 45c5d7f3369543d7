package pgserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startTimeout bounds the wait for "ready" when ctx has no earlier deadline; crash recovery of a
// development database takes seconds, not minutes.
const startTimeout = 2 * time.Minute

// ourShutdownSteps is how Stop escalates when postgres does not exit.
var ourShutdownSteps = []shutdownStep{
	{syscall.SIGINT, 60 * time.Second}, // fast shutdown: a checkpoint may take a while on a busy cluster
	{syscall.SIGQUIT, 10 * time.Second},
	{syscall.SIGKILL, time.Minute},
}

// serverArgs are the postgres settings. They are given on the command line rather than written into
// postgresql.conf so every Start applies the current Config (Ephemeral on or off) and a user's
// edits to postgresql.conf cannot reopen TCP.
func (s *Server) serverArgs() []string {
	settings := []string{
		"listen_addresses=", // unix socket only
		"port=5432",         // only names the socket file; no TCP port is opened
		"unix_socket_directories=" + quoteDirList(s.sockDir),
		"max_connections=200", // web pool plus many parallel test databases
		"logging_collector=off",
	}
	if s.cfg.Ephemeral {
		settings = append(settings, "fsync=off", "synchronous_commit=off", "full_page_writes=off")
	}
	settings = append(settings, s.cfg.Settings...)
	args := []string{"-D", s.loc.dir}
	for _, kv := range settings {
		args = append(args, "-c", kv)
	}
	return args
}

// quoteDirList double-quotes a directory for a PostgreSQL comma-separated directory list, so
// commas and spaces in the path survive.
func quoteDirList(dir string) string {
	return `"` + strings.ReplaceAll(dir, `"`, `""`) + `"`
}

// run starts the postmaster and waits until it accepts connections.
func (s *Server) run(ctx context.Context) error {
	logf, err := openServerLog(s.loc.dir, s.acct)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own descriptor
	cmd := exec.Command(filepath.Join(s.binDir, "postgres"), s.serverArgs()...)
	cmd.Dir = s.loc.dir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = s.acct.sysProcAttr()
	cmd.SysProcAttr.Pdeathsig = syscall.SIGINT // see spawn
	s.cmd = cmd
	if err := s.spawn(); err != nil {
		return fmt.Errorf("pgserver: start postgres: %w", err)
	}
	if err := s.waitReady(ctx); err != nil {
		_ = s.shutdown()
		return err
	}
	s.logger.Info("pgserver: postgres is ready", slog.String("cluster", s.loc.dir),
		slog.String("socket_dir", s.sockDir), slog.String("log", s.LogFile()), slog.Int("pid", cmd.Process.Pid))
	return nil
}

// spawn starts the postmaster and reaps it in the background, closing s.done when it exits.
//
// The postmaster gets a parent-death signal (SIGINT, a fast shutdown) so that it does not outlive
// us when we are killed. The kernel sends that signal when the *thread* that forked the child exits,
// not the process (go.dev/issue/27505), and Go may end a thread whenever a goroutine that locked it
// exits. So the fork happens on a thread locked to a goroutine that stays alive, blocked in Wait,
// until the postmaster is gone: the thread then lives exactly as long as our process or the child.
// Go applies Pdeathsig after switching credentials, so the setuid to postgres does not clear it.
// Orphans can still appear (a kernel without the signal, a shutdown that the postmaster does not
// finish), which is why Start also stops orphaned postmasters.
func (s *Server) spawn() error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := s.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()
	return <-started
}

// waitReady polls postmaster.pid until our postmaster marks itself "ready", which PostgreSQL
// writes once it accepts connections (pg_ctl start waits the same way).
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	pidFile := filepath.Join(s.loc.dir, pidFileName)
	for !s.pidFileSaysReady(pidFile) {
		select {
		case <-s.done:
			return fmt.Errorf("pgserver: postgres exited during startup (%v); server log %s:\n%s",
				s.waitErr, s.LogFile(), logTail(s.LogFile(), 20))
		case <-ctx.Done():
			return fmt.Errorf("pgserver: waiting for postgres to accept connections: %w; server log %s:\n%s",
				ctx.Err(), s.LogFile(), logTail(s.LogFile(), 20))
		case <-tick.C:
		}
	}
	return nil
}

func (s *Server) pidFileSaysReady(pidFile string) bool {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) >= 8 &&
		strings.TrimSpace(lines[0]) == strconv.Itoa(s.cmd.Process.Pid) &&
		strings.TrimSpace(lines[7]) == "ready"
}

// shutdown stops our postmaster, escalating through ourShutdownSteps, and waits until it is reaped.
func (s *Server) shutdown() error {
	select {
	case <-s.done:
		if s.waitErr != nil && !s.killed.Load() {
			return fmt.Errorf("pgserver: postgres had already exited: %w; server log %s:\n%s",
				s.waitErr, s.LogFile(), logTail(s.LogFile(), 20))
		}
		return nil
	default:
	}
	for i, step := range ourShutdownSteps {
		if err := s.cmd.Process.Signal(step.sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("pgserver: signal postgres: %w", err)
		}
		select {
		case <-s.done:
			if i > 0 {
				return fmt.Errorf("pgserver: postgres ignored a fast shutdown and was stopped with %v", step.sig)
			}
			if s.waitErr != nil {
				return fmt.Errorf("pgserver: postgres exited with %w; server log %s:\n%s",
					s.waitErr, s.LogFile(), logTail(s.LogFile(), 20))
			}
			return nil
		case <-time.After(step.wait):
		}
	}
	return fmt.Errorf("pgserver: postgres (pid %d) does not exit", s.cmd.Process.Pid)
}
