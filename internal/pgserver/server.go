package pgserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Config says where and how to run the cluster.
type Config struct {
	// DataDir is where the cluster lives (created if missing): the cluster is DataDir/pg, or, see
	// FallbackRoot, a directory that DataDir/pg links to.
	DataDir string
	// BinDir holds initdb and postgres; FindBinDir() when empty.
	BinDir string
	// Logger receives this package's own messages; the server's log goes to a file in the cluster
	// directory (Server.LogFile), not to stdout. Nothing is logged when nil.
	Logger *slog.Logger
	// Ephemeral marks a throwaway test cluster: durability is off (fsync, synchronous_commit and
	// full_page_writes, so a machine crash may corrupt it; a process crash does not), and Stop
	// deletes the cluster, its socket directory and its DataDir/pg link. Never set it for user data.
	Ephemeral bool
	// FallbackRoot overrides the package constant FallbackRoot; tests use it to stay hermetic.
	FallbackRoot string
	// Settings are more server settings ("name=value"), given after Ephemeral's, so they win: a
	// test of replication sets synchronous_commit=on on its primary, say.
	Settings []string
}

// Server is a running private PostgreSQL cluster, reachable only over its unix socket.
type Server struct {
	cfg     Config
	logger  *slog.Logger
	binDir  string
	acct    account
	loc     location
	sockDir string
	lock    *os.File // flock held until Stop; see lockCluster

	cmd     *exec.Cmd
	done    chan struct{} // closed once the postmaster has exited and been reaped
	waitErr error         // the postmaster's exit status; read only after done is closed

	stopOnce sync.Once
	stopErr  error
	// killed is set by Kill: the postmaster's death is no failure of Stop then.
	killed atomic.Bool
	// create makes the cluster directory when it holds no cluster: initdb, or a base backup of
	// a primary (StartStandby).
	create func(ctx context.Context) error
}

// Start initializes the cluster on first use (initdb with UTF8 encoding, locale C, trust
// authentication over the unix socket only), starts postgres listening only on a unix socket
// (listen_addresses=”), waits until it accepts connections, and returns. A later Start with the same
// DataDir reuses the data. ctx bounds the startup only; the server runs until Stop.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	return start(ctx, cfg, func(s *Server) func(context.Context) error {
		return func(ctx context.Context) error {
			return initCluster(ctx, s.binDir, s.loc.dir, s.acct, s.cfg.Ephemeral)
		}
	})
}

// start starts a server whose cluster, when it has none yet, create makes.
func start(ctx context.Context, cfg Config, create func(*Server) func(context.Context) error) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("pgserver: Config.DataDir is empty")
	}
	s := &Server{cfg: cfg, logger: cfg.Logger, binDir: cfg.BinDir, done: make(chan struct{})}
	s.create = create(s)
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.cfg.FallbackRoot == "" {
		s.cfg.FallbackRoot = FallbackRoot
	}
	var err error
	if s.binDir == "" {
		if s.binDir, err = FindBinDir(); err != nil {
			return nil, err
		}
	} else if err := checkBinDir(s.binDir); err != nil {
		return nil, err
	}
	if s.acct, err = serverAccount(); err != nil {
		return nil, err
	}
	if s.loc, err = locate(cfg.DataDir, s.cfg.FallbackRoot, s.acct, s.logger); err != nil {
		return nil, err
	}
	if s.lock, err = lockCluster(s.loc.dir); err != nil {
		return nil, err
	}
	if s.loc.link != "" {
		sweepEphemeral(ctx, s.cfg.FallbackRoot, s.logger) // skips ours: we hold its lock
	}
	if err := s.prepareAndRun(ctx); err != nil {
		s.lock.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) prepareAndRun(ctx context.Context) error {
	if err := markEphemeral(s.loc, s.cfg.Ephemeral); err != nil {
		return err
	}
	var err error
	if s.sockDir, err = socketDir(s.loc.dir, s.acct); err != nil {
		return err
	}
	if err := clearStalePostmaster(ctx, s.loc.dir, s.sockDir, s.logger); err != nil {
		return err
	}
	if err := s.create(ctx); err != nil {
		return err
	}
	return s.run(ctx)
}

// ConnString returns a libpq/pgx keyword/value connection string for database dbname over the
// unix socket, connecting as the superuser "postgres".
func (s *Server) ConnString(dbname string) string {
	return "host=" + quoteConnValue(s.sockDir) + " port=5432 user=" + superuser +
		" dbname=" + quoteConnValue(dbname) + " sslmode=disable"
}

// ConnStringAs is ConnString connecting as role user (the socket's trust
// authentication lets any role of the cluster log in: the socket directory
// is the server user's, or root's, alone).
func (s *Server) ConnStringAs(user, dbname string) string {
	return "host=" + quoteConnValue(s.sockDir) + " port=5432 user=" + quoteConnValue(user) +
		" dbname=" + quoteConnValue(dbname) + " sslmode=disable"
}

// quoteConnValue quotes a keyword/value connection string value the way libpq parses it, so a data
// dir with a space still works.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r\v\f'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// Dir returns the cluster directory (PGDATA).
func (s *Server) Dir() string { return s.loc.dir }

// SocketDir returns the directory holding the server's unix socket.
func (s *Server) SocketDir() string { return s.sockDir }

// LogFile returns the path of the server log.
func (s *Server) LogFile() string { return filepath.Join(s.loc.dir, logFileName) }

// Done is closed when the postmaster has exited, whether through Stop or not, so the web server can
// notice losing its database.
func (s *Server) Done() <-chan struct{} { return s.done }

// Stop shuts the server down with a fast shutdown (SIGINT: open transactions are rolled back, a
// checkpoint is written) and waits for it to exit, then releases the cluster; for an Ephemeral
// cluster it also deletes it. It is idempotent and returns the same result every time.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

func (s *Server) stop() error {
	err := s.shutdown()
	if err == nil && s.cfg.Ephemeral {
		err = s.remove()
	}
	s.lock.Close()
	return err
}

// remove deletes an Ephemeral cluster. It runs while the lock is still held, so it cannot race a
// new Start on the same DataDir.
func (s *Server) remove() error {
	paths := []string{s.loc.dir, s.loc.dir + ".lock"}
	if s.loc.link != "" {
		paths = append(paths, s.loc.link, s.loc.dir+ephemeralSuffix)
	}
	if s.sockDir != s.loc.dir {
		paths = append(paths, s.sockDir)
	}
	var errs []error
	for _, p := range paths {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("pgserver: remove ephemeral cluster: %w", err)
	}
	return nil
}
