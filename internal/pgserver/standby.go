package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
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
// primary's socket (pg_basebackup -X stream -R, so it connects back to primary for WAL, through
// a physical replication slot the backup creates: SlotName), then it starts like any cluster, on
// a socket of its own. The primary needs nothing beyond initdb's defaults (wal_level=replica,
// max_wal_senders=10, max_replication_slots=10, and the local replication line of
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
		"--wal-method=stream", "--write-recovery-conf", "--checkpoint=fast", "--no-password",
		"--create-slot", "--slot=" + s.SlotName()}
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

// SlotName is the physical replication slot a standby streams through, created on its primary by
// the base backup (primary_slot_name in its configuration): the primary keeps the WAL the standby
// has not confirmed yet, and the flush position it last confirmed (pg_replication_slots.restart_lsn)
// while it is away, as Patroni's and pg_auto_failover's standbys have. Unique among a primary's
// standbys: it is named after the standby's cluster directory.
func (s *Server) SlotName() string {
	h := fnv.New64a()
	h.Write([]byte(s.loc.dir))
	return fmt.Sprintf("lw_standby_%016x", h.Sum64())
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

// Kill ends the server as a machine that loses power would: every process of it (the postmaster,
// the backends, the WAL senders) stops, then all are killed with SIGKILL; none runs on while
// another is gone (a backend does not see its WAL sender gone and its standby with it, say), no
// checkpoint is written, no client or standby is told goodbye. Stop afterwards only releases and
// (Ephemeral) removes the cluster.
//
// Every child of the postmaster leads a process group of its own (PostgreSQL calls setsid in
// each), so a signal to the postmaster's group reaches the postmaster alone: the postmaster is
// stopped first (it forks nothing more), then each child's group, until every process is.
func (s *Server) Kill() error {
	s.killed.Store(true)
	pm := s.cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for {
		procs := serverProcesses(pm)
		running := false
		for _, p := range procs {
			if !p.stopped {
				running = true
				_ = syscall.Kill(p.pid, syscall.SIGSTOP) // gone already: nothing to stop
			}
		}
		if !running || time.Now().After(deadline) {
			break // kill what runs anyway past the deadline
		}
		time.Sleep(time.Millisecond) // polling the kernel's process states
	}
	procs := serverProcesses(pm)
	for _, p := range procs {
		_ = syscall.Kill(p.pid, syscall.SIGKILL) // gone already: nothing to kill
	}
	// Each is dead (a zombie or gone) before Kill returns.
	for _, p := range procs {
		for processRuns(p.pid) {
			if time.Now().After(deadline.Add(time.Minute)) {
				return fmt.Errorf("pgserver: process %d of postgres (pid %d) survives SIGKILL", p.pid, pm)
			}
			time.Sleep(time.Millisecond) // polling the kernel's process states
		}
	}
	return s.waitKilled(pm)
}

// processRuns reports whether pid exists and is not a zombie.
func processRuns(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(raw[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X" && f[0] != "x"
}

// KillPostmaster kills the postmaster alone with SIGKILL, as the kernel's OOM killer or a careless
// kill -9 would: its children notice and exit on their own, the WAL senders at once (a standby is
// gone from pg_stat_replication), a backend in the middle of a statement only once it finishes it
// and waits for its client again. Stop afterwards only releases and (Ephemeral) removes the
// cluster.
func (s *Server) KillPostmaster() error {
	s.killed.Store(true)
	pm := s.cmd.Process.Pid
	if err := syscall.Kill(pm, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("pgserver: kill postgres: %w", err)
	}
	return s.waitKilled(pm)
}

func (s *Server) waitKilled(pid int) error {
	select {
	case <-s.done:
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("pgserver: postgres (pid %d) survives SIGKILL", pid)
	}
}

// process is one process of a server, as /proc shows it.
type process struct {
	pid     int
	stopped bool // stopped, a zombie, or exiting
}

// serverProcesses lists postmaster pm, its children, and every process in a process group one of
// them leads (what a child runs, an archive command say).
func serverProcesses(pm int) []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	type stat struct {
		process
		ppid, pgrp int
	}
	var all []stat
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == os.Getpid() {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		// After the command name (in parentheses, possibly with spaces): state, ppid, pgrp.
		i := bytes.LastIndexByte(raw, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(raw[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		stopped := false
		switch f[0] {
		case "T", "t", "Z", "X", "x":
			stopped = true
		}
		all = append(all, stat{process{n, stopped}, ppid, pgrp})
	}
	leaders := map[int]bool{pm: true}
	for _, p := range all {
		if p.ppid == pm {
			leaders[p.pid] = true
		}
	}
	var out []process
	for _, p := range all {
		if leaders[p.pid] || leaders[p.pgrp] {
			out = append(out, p.process)
		}
	}
	return out
}
