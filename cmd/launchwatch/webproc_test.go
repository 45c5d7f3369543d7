package main

import (
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// webProc is cmd/web running as a process on a shared database.
type webProc struct {
	cmd *exec.Cmd
}

// startWebProcess runs cmd/web on addr with database dbURL and waits until
// it answers.
func startWebProcess(t *testing.T, addr, dbURL string, extra ...string) *webProc {
	t.Helper()
	args := append([]string{"--addr", addr, "--database-url", dbURL, "--log-level", "warn"}, extra...)
	cmd := startProcess(t, webBin, args...)
	eventually(t, "cmd/web to answer", func() bool {
		res, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	return &webProc{cmd: cmd}
}

func (w *webProc) stop(t *testing.T) {
	t.Helper()
	w.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("cmd/web exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cmd/web did not stop")
	}
}
