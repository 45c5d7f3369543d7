// Package corpustest finds the labeled corpus of real server logs that the
// classifier, eval and CLI tests read.
package corpustest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Dir is the corpus directory: LAUNCHWATCH_CORPUS when set (to score
// another labeled corpus), otherwise the shared corpus beside the clone
// (../shared/corpus, as on developers' machines and in CI).
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("LAUNCHWATCH_CORPUS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0) // .../internal/corpustest/corpustest.go
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("corpus not found: clone beside shared/ (../shared/corpus) or set LAUNCHWATCH_CORPUS: %v", err)
	}
	return dir
}

// Log is one *.log file: its name and its lines, split at "\n".
type Log struct {
	Name  string
	Lines []string
}

// Logs is every *.log in the corpus (Dir) and in each of dirs, read at run
// time (never copied into a fixture). A directory without logs fails the
// test.
func Logs(t testing.TB, dirs ...string) []Log {
	t.Helper()
	var logs []Log
	for _, dir := range append([]string{Dir(t)}, dirs...) {
		files, err := filepath.Glob(filepath.Join(dir, "*.log"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no logs in %s: %v", dir, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			logs = append(logs, Log{Name: filepath.Base(f), Lines: strings.Split(string(data), "\n")})
		}
	}
	return logs
}

// Lines is every line of every log Logs reads, one log after another.
func Lines(t testing.TB, dirs ...string) []string {
	t.Helper()
	var lines []string
	for _, l := range Logs(t, dirs...) {
		lines = append(lines, l.Lines...)
	}
	return lines
}
