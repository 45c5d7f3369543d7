package pgserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNoBinaries is returned (wrapped) when the PostgreSQL server binaries cannot be found. Its
// message says how to fix it, because the person reading it is usually running `make run` for the
// first time.
var ErrNoBinaries = errors.New("pgserver: PostgreSQL server binaries (initdb, postgres, pg_ctl) not found: " +
	"install Debian's postgresql package (apt-get install postgresql), " +
	"or set DATABASE_URL to use an existing PostgreSQL server")

// serverBinaries are the programs a usable bin directory must hold. pg_ctl is not used by this
// package but is required so the directory is a real server installation, not a client-only one.
var serverBinaries = []string{"initdb", "postgres", "pg_ctl"}

// debianLibGlob matches the versioned bin directories of Debian's postgresql-NN packages, which
// are not on PATH by default.
const debianLibGlob = "/usr/lib/postgresql/*/bin"

// FindBinDir finds the directory holding initdb, postgres and pg_ctl: first via PATH (all three
// resolving, through symlinks, to the same directory, so that the versions match), then
// /usr/lib/postgresql/*/bin, highest version first. It returns an error wrapping ErrNoBinaries when
// none is found.
func FindBinDir() (string, error) {
	return findBinDir(os.Getenv("PATH"), debianLibGlob)
}

func findBinDir(pathEnv, libGlob string) (string, error) {
	if dir, ok := binDirFromPath(pathEnv); ok {
		return dir, nil
	}
	dirs, _ := filepath.Glob(libGlob) // the only possible error is a bad pattern
	slices.SortFunc(dirs, func(a, b string) int {
		return compareVersions(filepath.Base(filepath.Dir(b)), filepath.Base(filepath.Dir(a)))
	})
	for _, dir := range dirs {
		if checkBinDir(dir) == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("%w (searched PATH and %s)", ErrNoBinaries, libGlob)
}

// binDirFromPath looks each binary up in pathEnv and reports their common directory.
func binDirFromPath(pathEnv string) (string, bool) {
	var common string
	for _, name := range serverBinaries {
		p, err := lookPathIn(name, pathEnv)
		if err != nil {
			return "", false
		}
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			p = resolved
		}
		dir := filepath.Dir(p)
		if common != "" && dir != common {
			return "", false
		}
		common = dir
	}
	return common, true
}

// lookPathIn is exec.LookPath over an explicit PATH value, so tests need not change the
// process environment (which would forbid t.Parallel).
func lookPathIn(name, pathEnv string) (string, error) {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// checkBinDir reports whether dir holds all server binaries.
func checkBinDir(dir string) error {
	for _, name := range serverBinaries {
		if !isExecutable(filepath.Join(dir, name)) {
			return fmt.Errorf("%w (%s has no %s)", ErrNoBinaries, dir, name)
		}
	}
	return nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// compareVersions orders Debian version directory names such as "9.6", "15" and "17" numerically.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return strings.Compare(a, b)
}
