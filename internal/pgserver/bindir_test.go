package pgserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindBinDir(t *testing.T) {
	t.Parallel()
	real, err := FindBinDir()
	if err != nil {
		t.Fatalf("FindBinDir on this machine: %v", err)
	}

	t.Run("NoBinaries", func(t *testing.T) {
		t.Parallel()
		empty := t.TempDir()
		_, err := findBinDir(empty, filepath.Join(empty, "lib", "*", "bin"))
		assertNoBinaries(t, err)
	})

	t.Run("StartWithEmptyBinDir", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		_, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "data"), BinDir: dir})
		assertNoBinaries(t, err)
	})

	t.Run("PathSymlinksResolve", func(t *testing.T) {
		t.Parallel()
		links := t.TempDir()
		for _, name := range serverBinaries {
			if err := os.Symlink(filepath.Join(real, name), filepath.Join(links, name)); err != nil {
				t.Fatal(err)
			}
		}
		got, err := findBinDir(t.TempDir()+string(filepath.ListSeparator)+links, "/nonexistent/*/bin")
		if err != nil || got != real {
			t.Errorf("findBinDir = %q, %v; want %s", got, err, real)
		}
	})

	t.Run("HighestVersionFirst", func(t *testing.T) {
		t.Parallel()
		lib := t.TempDir()
		for _, v := range []string{"9.6", "15", "10", "16"} {
			makeFakeBinDir(t, filepath.Join(lib, v, "bin"), v != "16") // 16 is incomplete
		}
		// A PATH whose binaries live in different directories is not trusted.
		mixed := t.TempDir()
		for _, name := range serverBinaries[:2] {
			if err := os.WriteFile(filepath.Join(mixed, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		path := mixed + string(filepath.ListSeparator) + filepath.Join(lib, "9.6", "bin")
		got, err := findBinDir(path, filepath.Join(lib, "*", "bin"))
		if want := filepath.Join(lib, "15", "bin"); err != nil || got != want {
			t.Errorf("findBinDir = %q, %v; want %s", got, err, want)
		}
	})
}

func makeFakeBinDir(t *testing.T, dir string, complete bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := serverBinaries
	if !complete {
		names = names[:1]
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func assertNoBinaries(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrNoBinaries) {
		t.Fatalf("err = %v, want ErrNoBinaries", err)
	}
	for _, want := range []string{"apt-get install postgresql", "DATABASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
