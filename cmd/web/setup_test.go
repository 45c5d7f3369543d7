package main

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// setupLinkPattern is the link the first start prints.
var setupLinkPattern = regexp.MustCompile(`http://127\.0\.0\.1:\d+/setup\?token=lw_[A-Za-z0-9_-]+`)

// TestFirstStartPrintsTheSetupLink: a fresh server (no account) prints a
// one-time link on stdout; the link's page creates the first admin, who
// is signed in; a second start prints no link, and the used one is gone.
func TestFirstStartPrintsTheSetupLink(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	link, stop := startForLink(t, dataDir)
	if link == "" {
		t.Fatal("the first start printed no setup link")
	}
	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(page), "Create the first admin") {
		t.Fatalf("setup page: %d", res.StatusCode)
	}
	u, _ := url.Parse(link)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"token": {u.Query().Get("token")}, "name": {"first"}, "password": {"first-password"}, "password2": {"first-password"}}
	res, err = noRedirect.PostForm(u.Scheme+"://"+u.Host+"/setup", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) == 0 {
		t.Fatalf("creating the admin: %d", res.StatusCode)
	}
	stop()

	again, stop2 := startForLink(t, dataDir)
	defer stop2()
	if again != "" {
		t.Errorf("a start with an admin printed a setup link: %s", again)
	}
}

// startForLink starts cmd/web on dataDir and returns the setup link it
// prints before it logs that it listens ("" when none), and a stop func.
func startForLink(t *testing.T, dataDir string) (string, func()) {
	t.Helper()
	cmd := exec.Command(webBin, "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json")
	cmd.Env = envWithout("DATABASE_URL", "DATABASE_URL_FILE", "LAUNCHWATCH_ADDR", "LAUNCHWATCH_DATA_DIR", "LAUNCHWATCH_BOOTSTRAP_TOKEN")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may have exited
		cmd.Wait()                       //nolint:errcheck // stopped on purpose
	}
	links := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := setupLinkPattern.FindString(sc.Text()); m != "" {
				links <- m
			}
		}
	}()
	// The log says which it is: the link printed above, or sign in.
	printed, none := make(chan struct{}, 1), make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			switch {
			case strings.Contains(sc.Text(), "first start: open the setup link"):
				printed <- struct{}{}
			case strings.Contains(sc.Text(), "accounts exist: sign in"):
				none <- struct{}{}
			}
		}
	}()
	deadline := time.After(60 * time.Second)
	select {
	case <-printed:
		select {
		case l := <-links:
			return l, stop
		case <-deadline:
		}
	case <-none:
		return "", stop
	case <-deadline:
	}
	stop()
	t.Fatal("cmd/web did not start within 60 s")
	return "", nil
}

// TestMetricsNeedReadUnlessServedApart: on the main address /metrics
// needs a read token; --metrics-addr serves it without one on its own
// listener, for a Prometheus on a private network.
func TestMetricsNeedReadUnlessServedApart(t *testing.T) {
	t.Parallel()
	web := startWeb(t, t.TempDir(), "--metrics-addr", "127.0.0.1:0")
	req, _ := http.NewRequest("GET", web.url+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer lw_not-a-token")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics on the main address with a bad token: %d, want 401", res.StatusCode)
	}
	var addr string
	select {
	case addr = <-web.metricsAddr:
	case <-time.After(30 * time.Second):
		t.Fatal("the metrics listener was not logged")
	}
	res, err = (&http.Client{Transport: &http.Transport{}}).Get("http://" + addr + "/metrics") // no token at all
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "launchwatch_") {
		t.Errorf("/metrics on --metrics-addr: %d", res.StatusCode)
	}
}
