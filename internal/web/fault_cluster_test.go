package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/auth"
	"launchwatch/internal/pgserver"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// faultCluster is a PostgreSQL cluster of one test's own, which the test
// may crash, stop and restart, with a Launchwatch server on it wired as
// cmd/web wires one (store.ConfigurePool included).
type faultCluster struct {
	t       *testing.T
	dataDir string
	pg      *pgserver.Server
	pool    *pgxpool.Pool
	url     string // the web server
}

func startFaultCluster(t *testing.T, cfg web.Config) *faultCluster {
	t.Helper()
	// A directory the server account can reach (storetest's clusters may
	// live behind a symlink; this one must survive a crash and a restart
	// in place, so it is neither ephemeral nor behind a link).
	dir, err := os.MkdirTemp("", "lwfault-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &faultCluster{t: t, dataDir: dir}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f.start()
	t.Cleanup(func() {
		if err := f.pg.Stop(); err != nil {
			t.Logf("stopping the fault cluster: %v", err)
		}
	})
	ctx := context.Background()
	if err := store.EnsureDatabase(ctx, f.pg.ConnString("postgres"), "lw"); err != nil {
		t.Fatal(err)
	}
	poolCfg, err := pgxpool.ParseConfig(f.pg.ConnString("lw"))
	if err != nil {
		t.Fatal(err)
	}
	poolCfg.MaxConns = 16
	store.ConfigurePool(poolCfg)
	if f.pool, err = pgxpool.NewWithConfig(ctx, poolCfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.pool.Close)
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelError}))
	if err := store.Migrate(ctx, f.pool, log); err != nil {
		t.Fatal(err)
	}
	st := store.New(f.pool)
	if _, err := st.EnsureBootstrapToken(ctx, auth.HashSecret(webtest.AdminToken), time.Now()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	cfg.ListenAddr = srv.Listener.Addr().String()
	srv.Config.Handler = web.New(cfg, st, pipeline.New(st, log), log)
	srv.Start()
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

func (f *faultCluster) start() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := pgserver.Start(ctx, pgserver.Config{DataDir: f.dataDir})
	if err != nil {
		f.t.Fatal(err)
	}
	f.pg = pg
}

// crash stops the cluster as `pg_ctl stop -m immediate` does (every
// backend is killed, no checkpoint, open transactions lost) and starts it
// again in place, through crash recovery.
func (f *faultCluster) crash() {
	f.t.Helper()
	bin, err := pgserver.FindBinDir()
	if err != nil {
		f.t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "pg_ctl"), "stop", "-m", "immediate", "-D", f.pg.Dir())
	asServerUser(f.t, cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("pg_ctl stop -m immediate: %v\n%s", err, out)
	}
	<-f.pg.Done()
	_ = f.pg.Stop() // releases the cluster; the exit status of a crash is no news
	f.start()
}

// asServerUser runs cmd as the account PostgreSQL runs as: pg_ctl refuses
// root.
func asServerUser(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
}

// processes returns the postmaster's pid and its children's (the
// backends and background workers).
func (f *faultCluster) processes() []int {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.pg.Dir(), "postmaster.pid"))
	if err != nil {
		f.t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		f.t.Fatal(err)
	}
	pids := []int{pm}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		f.t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		_, rest, _ := strings.Cut(string(stat), ") ")
		var state string
		var ppid int
		if _, err := fmt.Sscan(rest, &state, &ppid); err == nil && ppid == pm {
			pids = append(pids, pid)
		}
	}
	return pids
}

// freeze SIGSTOPs the whole cluster, postmaster first so it starts no new
// process, until the returned thaw is called (also at cleanup).
func (f *faultCluster) freeze() (thaw func()) {
	f.t.Helper()
	pids := f.processes()
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			f.t.Logf("SIGSTOP %d: %v", pid, err)
		}
	}
	thawed := false
	thaw = func() {
		if thawed {
			return
		}
		thawed = true
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	f.t.Cleanup(thaw)
	return thaw
}
