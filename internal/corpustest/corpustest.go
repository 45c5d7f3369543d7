// Package corpustest finds the labeled corpus of real server logs that the
// classifier, eval and CLI tests read.
package corpustest

import (
	"os"
	"path/filepath"
	"runtime"
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
