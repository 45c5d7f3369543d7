package pgserver

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// logFileName is the server log inside the cluster directory. postgres writes its stderr there
// (logging_collector=off), so the web process's own output stays readable.
const logFileName = "postgres.log"

// maxLogSize is the size beyond which Start moves the log aside to postgres.log.1, so a long-lived
// development cluster does not grow its log forever.
const maxLogSize = 16 << 20

// openServerLog opens the server log for appending, rotating it first when it is too big.
func openServerLog(clusterDir string, a account) (*os.File, error) {
	path := filepath.Join(clusterDir, logFileName)
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("pgserver: open server log: %w", err)
	}
	if err := a.chown(path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// logTail returns about the last n lines of a file, for error messages.
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 8 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		_, _ = f.Seek(-window, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	return tailLines(b, n)
}

func tailLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
