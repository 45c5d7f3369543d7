package pgserver

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestStartQueryStop(t *testing.T) {
	t.Parallel()
	// A space in the path checks the quoting in ConnString and unix_socket_directories.
	dataDir := filepath.Join(traversableTempDir(t), "my data")
	s := startServer(t, Config{DataDir: dataDir})

	if want := filepath.Join(dataDir, "pg"); s.Dir() != want {
		t.Errorf("Dir = %s, want %s", s.Dir(), want)
	}
	var listen, encoding, collate, maxConn, fsync, user string
	err := connect(t, s).QueryRow(context.Background(), `select current_setting('listen_addresses'),
		current_setting('server_encoding'), current_setting('lc_collate'), current_setting('max_connections'),
		current_setting('fsync'), current_user`).Scan(&listen, &encoding, &collate, &maxConn, &fsync, &user)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{listen, encoding, collate, maxConn, fsync, user}
	want := []string{"", "UTF8", "C", "200", "on", "postgres"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("settings = %q, want %q", got, want)
	}
	if os.Geteuid() == 0 {
		assertOwnedByPostgres(t, s.Dir())
	}
	if log, _ := os.ReadFile(s.LogFile()); !strings.Contains(string(log), "ready to accept connections") {
		t.Errorf("server log %s lacks the startup message:\n%s", s.LogFile(), log)
	}

	pid := s.cmd.Process.Pid
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-s.Done():
	default:
		t.Error("Done not closed after Stop")
	}
	if processAlive(pid) {
		t.Errorf("postmaster %d still alive after Stop", pid)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), pidFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid after Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, s.ConnString("postgres")); err == nil {
		conn.Close(ctx)
		t.Error("connected after Stop")
	}
}

func assertOwnedByPostgres(t *testing.T, path string) {
	t.Helper()
	u, err := user.Lookup(serverUser)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if uid := fi.Sys().(*syscall.Stat_t).Uid; strconv.Itoa(int(uid)) != u.Uid {
		t.Errorf("%s is owned by uid %d, want %s (%s)", path, uid, u.Uid, serverUser)
	}
}

func TestRestartReusesData(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), "data")
	seedCluster(t, filepath.Join(dataDir, "pg"))
	s := startServer(t, Config{DataDir: dataDir})
	if _, err := connect(t, s).Exec(context.Background(),
		`create table kept (v text); insert into kept values ('still here')`); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}

	s2 := startServer(t, Config{DataDir: dataDir})
	if got := queryString(t, s2, `select v from kept`); got != "still here" {
		t.Errorf("after restart: %q", got)
	}
}

func TestSecondStartIsRefusedWhileRunning(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), "data")
	seedCluster(t, filepath.Join(dataDir, "pg"))
	s := startServer(t, Config{DataDir: dataDir, Ephemeral: true})

	_, err := Start(context.Background(), Config{DataDir: dataDir, Ephemeral: true})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Start: %v, want ErrInUse", err)
	}
	if got := queryString(t, s, `select 'first server unharmed'`); got != "first server unharmed" {
		t.Errorf("query: %q", got)
	}
}

func TestEphemeralIsFastAndRemovedOnStop(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), "data")
	s := startServer(t, Config{DataDir: dataDir, Ephemeral: true})
	if got := queryString(t, s, `select current_setting('fsync') || current_setting('synchronous_commit') ||
		current_setting('full_page_writes')`); got != "offoffoff" {
		t.Errorf("fsync, synchronous_commit, full_page_writes = %q, want all off", got)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Dir(), s.Dir() + ".lock"} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after Stop of an ephemeral cluster: %v", p, err)
		}
	}
}

func TestStartFailureShowsServerLog(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(traversableTempDir(t), "data")
	seedCluster(t, filepath.Join(dataDir, "pg"))
	s := startServer(t, Config{DataDir: dataDir})
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(s.Dir(), "postgresql.conf")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("this line is not valid\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	_, err = Start(context.Background(), Config{DataDir: dataDir})
	if err == nil {
		t.Fatal("Start succeeded with a broken postgresql.conf")
	}
	for _, want := range []string{"exited during startup", s.LogFile(), "syntax error"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestInitdbFailureShowsOutput(t *testing.T) {
	t.Parallel()
	binDir := filepath.Join(traversableTempDir(t), "bin")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range serverBinaries {
		script := "#!/bin/sh\necho 'fake " + name + " refuses' >&2\nexit 1\n"
		if err := os.WriteFile(filepath.Join(binDir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Start(context.Background(), Config{DataDir: filepath.Join(filepath.Dir(binDir), "data"), BinDir: binDir})
	if err == nil || !strings.Contains(err.Error(), "initdb") || !strings.Contains(err.Error(), "fake initdb refuses") {
		t.Fatalf("Start with a failing initdb: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(binDir), "data", "pg.initdb")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("initdb's scratch directory was left behind: %v", err)
	}
}

func TestConnStringQuoting(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/tmp/plain":   "/tmp/plain",
		"/tmp/a b":     `'/tmp/a b'`,
		`/tmp/it's`:    `'/tmp/it\'s'`,
		`/tmp/back\sl`: `'/tmp/back\\sl'`,
		"":             "''",
	} {
		if got := quoteConnValue(in); got != want {
			t.Errorf("quoteConnValue(%q) = %s, want %s", in, got, want)
		}
	}
}
