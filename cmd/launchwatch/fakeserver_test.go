package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// fakeServer is what the test binary does when `launchwatch run` starts it
// as a child (LW_CHILD=mode): it behaves like an inference server.
func fakeServer(mode string) int {
	switch mode {
	case "traceback":
		fmt.Println("[2026-04-02 09:28:20] Load weight begin.")
		fmt.Println("[2026-04-02 09:28:21] Load weight end.")
		fmt.Fprintln(os.Stderr, "Traceback (most recent call last):")
		fmt.Fprintln(os.Stderr, `  File "/srv/server.py", line 12, in <module>`)
		fmt.Fprintln(os.Stderr, "    load()")
		fmt.Fprintln(os.Stderr, "KeyError: 'model.layers.0.weight'")
		return 1
	case "healthy":
		// Serves /health after a moment, prints nothing about readiness,
		// and stops cleanly on SIGTERM.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
		fmt.Println("loading the model")
		time.Sleep(300 * time.Millisecond)
		http.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
		go http.ListenAndServe(os.Getenv("LW_CHILD_ADDR"), nil) //nolint:errcheck
		fmt.Println("serving")
		<-sigs
		fmt.Println("shutting down on request")
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown LW_CHILD mode", mode)
	return 99
}
