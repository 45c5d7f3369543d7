package web_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// readmeShot saves what the tab shows as the README's picture name (in
// docs/) when LAUNCHWATCH_SCREENSHOTS names the folder, as make screenshot
// does; sel, when given, is the element to picture, else the viewport.
func readmeShot(t *testing.T, tab context.Context, name, sel string) {
	t.Helper()
	dir := os.Getenv("LAUNCHWATCH_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	var err error
	if sel == "" {
		png, err = chromedp.Run(tab, chromedp.CaptureScreenshot())
	} else {
		png, err = chromedp.Run(tab, chromedp.Screenshot(chromedp.CSS(sel)))
	}
	must(t, err)
	path := filepath.Join(dir, name)
	must(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot saved to %s", path)
}
