package web_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"launchwatch/internal/web/webtest"
)

// launchwatchBin is cmd/launchwatch built once for the tests that run
// `launchwatch wait` against a test server.
var launchwatchBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "lwweb-bin-")
	if err != nil {
		return "", err
	}
	_, file, _, _ := runtime.Caller(0) // .../internal/web/teach_browser_test.go
	bin := filepath.Join(dir, "launchwatch")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/launchwatch")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string {
	return "building cmd/launchwatch: " + e.err.Error() + "\n" + e.out
}

// wait runs `launchwatch wait key` against the test server and returns its
// exit code and output.
func (b *testBundle) wait(key string) (int, string) {
	b.t.Helper()
	bin, err := launchwatchBin()
	if err != nil {
		b.t.Fatal(err)
	}
	cmd := exec.Command(bin, "wait", key, "--url", b.url, "--timeout", "60s")
	cmd.Env = append(os.Environ(), "LAUNCHWATCH_TOKEN="+webtest.AdminToken)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		b.t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// valueOf reads a form field's value.
func valueOf(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	return textOfJS(t, tab, `document.querySelector('`+sel+`').value`)
}

func textOfJS(t *testing.T, tab context.Context, js string) string {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// TestBrowserTeach: a launch of a server no pack knows stays loading; its
// ready line is taught from the log view, the preview lists the launch
// loading → ready, saving with apply-to-stored makes it ready, the next
// launch of that server is ready at ingest, and a fatal line taught the
// same way makes `launchwatch wait` exit 1 on a later launch.
func TestBrowserTeach(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, err := launchwatchBin(); err != nil { // before the browser's clock starts
		t.Fatal(err)
	}
	b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeLoading)
	if st := b.launch("acme-1").Status; st != "loading" {
		t.Fatalf("acme-1 %s, want loading: nothing knows acme-serve's ready line", st)
	}
	tab := newBrowser(t)
	err := chromedp.Do(tab,
		chromedp.Navigate(b.url+"/launches/acme-1"),
		htmxIdle(),
		chromedp.Click(chromedp.CSS(`#L4 [data-testid="teach"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signature-form"]`)),
		htmxIdle(),
	)
	if err != nil {
		t.Fatalf("teaching line 4 from the log view: %v", err)
	}
	if got := valueOf(t, tab, `[data-testid="signature-pattern"]`); got != acmeReadyTemplate {
		t.Errorf("pattern prefilled %q, want the line's template %q", got, acmeReadyTemplate)
	}
	if got := valueOf(t, tab, `[data-testid="signature-server"]`); got != "acme-serve" {
		t.Errorf("server scope prefilled %q", got)
	}
	if !strings.Contains(textOf(t, tab, `[data-testid="teach-line"]`), "engine warm") {
		t.Errorf("the taught line is not shown")
	}
	checked := `document.querySelector('[data-testid="meaning-ready"]').checked && document.querySelector('[data-testid="scope-server"]').checked`
	if ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](checked)); err != nil || !ok {
		t.Errorf("meaning ready and scope server not preselected (%v)", err)
	}
	err = chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="signature-reason"]`), "acme-serve answers once its workers are warm"),
		chromedp.Click(chromedp.CSS(`[data-testid="signature-preview-button"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="backtest-change"][data-launch="acme-1"]`)),
		htmxIdle(),
	)
	if err != nil {
		t.Fatalf("previewing: %v", err)
	}
	row := `[data-testid="backtest-change"][data-launch="acme-1"]`
	if from, to := textOf(t, tab, row+` [data-testid="backtest-from"]`), textOf(t, tab, row+` [data-testid="backtest-to"]`); from != "loading" || to != "ready" {
		t.Errorf("preview lists acme-1 %s → %s, want loading → ready", from, to)
	}
	if bounds := textOf(t, tab, `[data-testid="backtest-bounds"]`); !strings.Contains(bounds, "within 5s") {
		t.Errorf("the preview does not state its time budget: %q", bounds)
	}
	if st := b.launch("acme-1").Status; st != "loading" {
		t.Errorf("the preview changed acme-1: %s", st)
	}
	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`[data-testid="signature-apply"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="signature-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signature-row"]`)),
	)
	if err != nil {
		t.Fatalf("saving with apply-to-stored: %v", err)
	}
	if l := b.launch("acme-1"); l.Status != "ready" || l.ReadySeq == nil || *l.ReadySeq != 4 {
		t.Errorf("acme-1 %s ready at %v after apply-to-stored, want ready at line 4", l.Status, l.ReadySeq)
	}
	if hits := textOf(t, tab, `[data-testid="signature-hits"]`); hits != "1" {
		t.Errorf("the signatures page shows %s hits", hits)
	}
	// A new launch of the same server is ready at ingest.
	b.postText("/api/v1/launches/acme-2/lines?server=acme-serve", acmeLoading)
	if l := b.launch("acme-2"); l.Status != "ready" {
		t.Errorf("acme-2 %s at ingest, want ready", l.Status)
	}
	// The launch page says what judged it.
	err = chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/acme-2"), htmxIdle())
	if err != nil {
		t.Fatal(err)
	}
	if j := textOf(t, tab, `[data-testid="judged-by"]`); !strings.Contains(j, "#1 ready (1 line(s))") || !strings.Contains(j, "Reclassify") {
		t.Errorf("judged by %q", j)
	}

	// A fatal line, taught the same way from a launch that printed it.
	b.postText("/api/v1/launches/acme-3/lines?server=acme-serve", acmeLoading+acmeFatalLine+"\n")
	err = chromedp.Do(tab,
		chromedp.Navigate(b.url+"/launches/acme-3"),
		htmxIdle(),
		chromedp.Click(chromedp.CSS(`#L5 [data-testid="teach"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signature-form"]`)),
		htmxIdle(),
		chromedp.Click(chromedp.CSS(`[data-testid="meaning-fatal"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="signature-reason"]`), "a lost worker takes the engine down"),
		chromedp.Click(chromedp.CSS(`[data-testid="signature-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signature-row"][data-signature="2"]`)),
	)
	if err != nil {
		t.Fatalf("teaching the fatal line: %v", err)
	}
	if m := textOf(t, tab, `[data-signature="2"] [data-testid="signature-meaning"]`); m != "fatal" {
		t.Errorf("signature 2 means %q", m)
	}
	// A later launch loses a worker before it is ready: wait exits 1.
	lines := strings.SplitAfter(acmeLoading, "\n")
	b.postText("/api/v1/launches/acme-4/lines?server=acme-serve", strings.Join(lines[:3], "")+acmeFatalLine+"\n")
	code, out := b.wait("acme-4")
	if code != 1 || !strings.Contains(out, "lost its heartbeat") {
		t.Errorf("wait acme-4: exit %d, want 1 with the fatal line as headline:\n%s", code, out)
	}
}
