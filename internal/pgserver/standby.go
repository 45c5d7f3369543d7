package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StartStandby runs an asynchronous streaming standby of primary (a hot standby: it answers
// reads) in cfg.DataDir: on first use the cluster is a base backup of primary taken over
// primary's socket (pg_basebackup -X stream -R, so it connects back to primary for WAL), then
// it starts like any cluster, on a socket of its own. The primary needs nothing beyond initdb's
// defaults (wal_level=replica, max_wal_senders=10, and the local replication line of
// --auth-local=trust in pg_hba.conf).
//
// It is for tests of failover and read replicas; a production standby is the business of
// Patroni or pg_auto_failover (docs/scale.md).
func StartStandby(ctx context.Context, cfg Config, primary *Server) (*Server, error) {
	return start(ctx, cfg, func(s *Server) func(context.Context) error {
		return func(ctx context.Context) error { return s.baseBackup(ctx, primary) }
	})
}

// baseBackup makes the cluster directory a standby of primary unless it holds a cluster. Like
// initCluster it writes into a sibling directory renamed into place on success.
func (s *Server) baseBackup(ctx context.Context, primary *Server) error {
	dir := s.loc.dir
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return nil
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("pgserver: %s exists but holds no PostgreSQL cluster: %w", dir, err)
	}
	tmp := dir + ".basebackup"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("pgserver: remove leftover %s: %w", tmp, err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if err := s.acct.chown(tmp); err != nil {
		return err
	}
	args := []string{"--pgdata=" + tmp, "--host=" + primary.sockDir, "--port=5432", "--username=" + superuser,
		"--wal-method=stream", "--write-recovery-conf", "--checkpoint=fast", "--no-password"}
	if s.cfg.Ephemeral {
		args = append(args, "--no-sync")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, "pg_basebackup"), args...)
	cmd.Dir = "/"
	cmd.Env = childEnv()
	cmd.SysProcAttr = s.acct.sysProcAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("pgserver: pg_basebackup of %s as %s: %w\n%s", primary.loc.dir, s.acct.name, err, tailLines(out, 20))
	}
	// The primary's log and socket lock (when its socket is in its cluster directory) came
	// along; the standby has its own.
	for _, f := range []string{logFileName, socketName + ".lock", socketName} {
		_ = os.Remove(filepath.Join(tmp, f))
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	return nil
}

// Promote makes a standby the primary (pg_ctl promote) and waits until it accepts writes.
func (s *Server) Promote(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, "pg_ctl"), "promote", "-D", s.loc.dir, "-w",
		"-t", fmt.Sprint(int(startTimeout/time.Second)))
	cmd.Dir = "/"
	cmd.Env = childEnv()
	cmd.SysProcAttr = s.acct.sysProcAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgserver: pg_ctl promote %s: %w\n%s\nserver log:\n%s", s.loc.dir, err, tailLines(out, 10),
			logTail(s.LogFile(), 20))
	}
	return nil
}

// Kill ends the server as a machine that loses power would: every process of it (its process
// group: the postmaster, the backends, the WAL senders) stops at once, then all are killed with
// SIGKILL; none runs on while another is gone (a backend does not see its WAL sender gone and its
// standby with it, say), no checkpoint is written, no client or standby is told goodbye. Stop
// afterwards only releases and (Ephemeral) removes the cluster.
func (s *Server) Kill() error {
	s.killed.Store(true)
	pid := s.cmd.Process.Pid
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pgserver: stop postgres: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !groupStopped(pid) {
		if time.Now().After(deadline) {
			break // kill what runs anyway
		}
		time.Sleep(time.Millisecond) // polling the kernel's process states
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pgserver: kill postgres: %w", err)
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("pgserver: postgres (pid %d) survives SIGKILL", pid)
	}
}

// groupStopped reports whether no process of process group pgrp runs: each is stopped, a zombie,
// or gone.
func groupStopped(pgrp int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		// After the command name (in parentheses, possibly with spaces):
		// state, ppid, pgrp.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgrp) || n == os.Getpid() {
			continue
		}
		switch f[0] {
		case "T", "t", "Z", "X":
		default:
			return false
		}
	}
	return true
}
