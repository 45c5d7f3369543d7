package pgserver

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrInUse is returned (wrapped) by Start when another live process already manages the cluster,
// for example a second `make run` on the same checkout.
var ErrInUse = errors.New("pgserver: cluster is in use by another process")

// lockCluster takes an exclusive flock on <clusterDir>.lock for the life of the Server. The kernel
// drops a flock when its holder dies, even by SIGKILL, so a held lock means a live owner, and a
// postmaster found running without one is an orphan (see clearStalePostmaster). The file sits
// next to the cluster, not in it, because initdb needs an empty directory.
func lockCluster(clusterDir string) (*os.File, error) {
	path := clusterDir + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("pgserver: open lock: %w", err)
	}
	if err := flockOwn(f, path); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (pid %s holds %s)", ErrInUse, strings.TrimSpace(string(b)), path)
		}
		return nil, fmt.Errorf("pgserver: lock %s: %w", path, err)
	}
	// The PID is only for the error message above; the flock is what counts.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// flockOwn takes the flock. When the file names this very process, the
// lock it released (a Stop before this Start) may still be held by a
// child another goroutine forked and has not exec'd yet: the child's copy
// of the descriptor keeps the flock until exec closes it (close-on-exec).
// That lasts moments, so it is tried again for a while (under -race on a
// busy machine, tests that restart a cluster met it).
func flockOwn(f *os.File, path string) error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		b, _ := os.ReadFile(path)
		if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
