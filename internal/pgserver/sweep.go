package pgserver

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// ephemeralSuffix names the marker written next to an Ephemeral cluster in a fallback root. It
// holds the DataDir/pg link that points at the cluster.
const ephemeralSuffix = ".ephemeral"

// markEphemeral records whether a fallback cluster is throwaway, so sweepEphemeral can delete it if
// its owner dies without calling Stop. Test binaries do that whenever a test panics or times out,
// and as root every test cluster under os.MkdirTemp or t.TempDir (both 0700) lands in the fallback
// root, where nobody else would ever delete it. Clusters inside DataDir need no marker: they go
// away with DataDir.
func markEphemeral(loc location, ephemeral bool) error {
	if loc.link == "" {
		return nil
	}
	marker := loc.dir + ephemeralSuffix
	if !ephemeral {
		return removeIfExists(marker)
	}
	if err := os.WriteFile(marker, []byte(loc.link+"\n"), 0o644); err != nil {
		return errors.Join(errors.New("pgserver: mark cluster ephemeral"), err)
	}
	return nil
}

// sweepEphemeral deletes the Ephemeral clusters under root whose owners died without Stop. A live
// owner holds the flock on <cluster>.lock, so a marked cluster whose lock we can take belongs to
// nobody. A postmaster still running there is stopped first. Failures are logged, not returned:
// sweeping is housekeeping and must not keep a server from starting.
func sweepEphemeral(ctx context.Context, root string, logger *slog.Logger) {
	markers, _ := filepath.Glob(filepath.Join(root, "*"+ephemeralSuffix))
	for _, marker := range markers {
		dir := strings.TrimSuffix(marker, ephemeralSuffix)
		lock, err := lockCluster(dir)
		if err != nil {
			continue // in use, or not ours to judge
		}
		err = clearStalePostmaster(ctx, dir, dir, logger)
		if err == nil {
			err = os.RemoveAll(dir)
		}
		if err == nil {
			if b, rerr := os.ReadFile(marker); rerr == nil {
				link := strings.TrimSpace(string(b))
				if target, lerr := os.Readlink(link); lerr == nil && target == dir {
					err = removeIfExists(link)
				}
			}
		}
		if err == nil {
			err = errors.Join(removeIfExists(marker), removeIfExists(dir+".lock"))
		}
		lock.Close()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			logger.Warn("pgserver: could not remove an abandoned ephemeral cluster",
				slog.String("cluster", dir), slog.String("error", err.Error()))
			continue
		}
		logger.Info("pgserver: removed an abandoned ephemeral cluster", slog.String("cluster", dir))
	}
}
