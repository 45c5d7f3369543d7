package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web/webtest"
)

// cliBin is cmd/launchwatch built once; webBin is cmd/web, for the tests
// that restart the server under a shipper.
var cliBin, webBin string

func TestMain(m *testing.M) {
	if mode := os.Getenv("LW_CHILD"); mode != "" {
		os.Exit(fakeServer(mode)) // this binary plays a server launched by `launchwatch run`
	}
	dir, err := os.MkdirTemp("", "lwcli-bin-")
	if err != nil {
		panic(err)
	}
	cliBin, webBin = filepath.Join(dir, "launchwatch"), filepath.Join(dir, "web")
	for bin, pkg := range map[string]string{cliBin: ".", webBin: "../web"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	defer os.RemoveAll(dir)
	webtest.AuthorizeDefaultClient()
	storetest.Main(m)
}

// cli runs the launchwatch binary and returns its exit code and output.
func cli(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(cliBin, args...)
	cmd.Env = cleanEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LAUNCHWATCH_") && !strings.HasPrefix(kv, "LW_CHILD") {
			env = append(env, kv)
		}
	}
	// The CLI acts as the test servers' admin token, and a server the
	// tests start as a process makes that token (--bootstrap-token).
	return append(env, "LAUNCHWATCH_TOKEN="+webtest.AdminToken, "LAUNCHWATCH_BOOTSTRAP_TOKEN="+webtest.AdminToken)
}

// storedTexts returns the text of every stored line of a launch, in order.
func storedTexts(t *testing.T, url, key string) []string {
	t.Helper()
	var all []string
	after := int64(0)
	for {
		res, err := http.Get(fmt.Sprintf("%s/api/v1/launches/%s/lines?limit=10000&after=%d", url, key, after))
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Lines []struct {
				Seq  int64  `json:"seq"`
				Text string `json:"text"`
			} `json:"lines"`
			NextAfter *int64 `json:"next_after"`
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusNotFound {
			return nil
		}
		if err := json.Unmarshal(data, &page); err != nil {
			t.Fatalf("lines: %v: %s", err, data)
		}
		for _, l := range page.Lines {
			if int64(len(all)+1) != l.Seq {
				t.Fatalf("stored seqs are not 1..n: seq %d at position %d", l.Seq, len(all)+1)
			}
			all = append(all, l.Text)
		}
		if page.NextAfter == nil {
			return all
		}
		after = *page.NextAfter
	}
}

type launchState struct {
	Status   string  `json:"status"`
	Server   string  `json:"server"`
	LastSeq  int64   `json:"last_seq"`
	ReadySeq *int64  `json:"ready_seq"`
	ExitCode *int    `json:"exit_code"`
	Signal   *string `json:"exit_signal"`
	Alarms   []struct {
		Headline         string `json:"headline"`
		Fatal            bool   `json:"fatal"`
		HealthAfterDeath *struct {
			Detail string `json:"detail"`
		} `json:"health_after_death"`
	} `json:"alarms"`
}

func getLaunch(t *testing.T, url, key string) (launchState, bool) {
	t.Helper()
	res, err := http.Get(url + "/api/v1/launches/" + key)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return launchState{}, false
	}
	var l launchState
	if err := json.NewDecoder(res.Body).Decode(&l); err != nil {
		t.Fatal(err)
	}
	return l, true
}

// eventually polls cond for up to 30s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func writeLines(t *testing.T, path string, from, to int, appendTo bool) []string {
	t.Helper()
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	var buf bytes.Buffer
	for i := from; i <= to; i++ {
		l := fmt.Sprintf("[2026-04-02 09:28:25 TP%d] line %d of the log %s", i%8, i, strings.Repeat("·", i%50))
		lines = append(lines, l)
		buf.WriteString(l + "\n")
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	return lines
}

func equalLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d lines stored, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("line %d = %q, want %q", i+1, got[i], want[i])
		}
	}
}

func startProcess(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = cleanEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(name), out.String())
		}
	})
	return cmd
}
