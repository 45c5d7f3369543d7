package web_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"launchwatch/internal/auth"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// TestBrowserFirstAdminMakesATokenThatShips walks a new installation as
// its first admin would: the setup link, the tokens page (the secret is
// shown once), a shipment with that token, signing out and in again.
func TestBrowserFirstAdminMakesATokenThatShips(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{}, webtest.WithoutAccounts())
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
	link := auth.NewSecret()
	if _, err := srv.Store.ReplaceSetupLink(context.Background(), auth.HashSecret(link), srv.Clock.Now().Add(24*60*60*1e9)); err != nil {
		t.Fatal(err)
	}
	tab := newBrowser(t)
	signInAs(t, tab, "") // nobody is signed in on a new installation

	// The launches page sends an anonymous browser to sign in.
	if err := chromedp.Do(tab, chromedp.Navigate(b.url+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-name"]`))); err != nil {
		t.Fatalf("the launches page did not ask to sign in: %v", err)
	}
	err := chromedp.Do(tab,
		chromedp.Navigate(b.url+"/setup?token="+link),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="setup-name"]`), "root"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="setup-password"]`), "a long password"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="setup-password2"]`), "a long password"),
		chromedp.Click(chromedp.CSS(`[data-testid="setup-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-name"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="token-name"]`), "gpu shipper"),
		chromedp.Click(chromedp.CSS(`[data-testid="token-create"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="token-secret"]`)),
	)
	if err != nil {
		t.Fatalf("setting up and making a token: %v", err)
	}
	secret := strings.TrimSpace(textOf(t, tab, `[data-testid="token-secret"]`))
	if who := textOf(t, tab, `[data-testid="signed-in"]`); !strings.Contains(who, "root") || !strings.Contains(who, "admin") {
		t.Errorf("signed in as %q, want root (admin)", who)
	}
	if path := os.Getenv("LAUNCHWATCH_TOKENS_SCREENSHOT"); path != "" {
		png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
		must(t, err)
		must(t, os.WriteFile(path, png, 0o644))
	}
	// The token ships (ingest is its scope) and cannot read the list.
	if r := b.do("POST", "/api/v1/launches/first/lines?server=sglang", "text/plain", []byte("hello\n"), "Authorization", "Bearer "+secret); r.status != 200 {
		t.Fatalf("shipping with the token from the page: %d %s", r.status, r.body)
	}
	if r := b.do("GET", "/api/v1/launches", "", nil, "Authorization", "Bearer "+secret); r.status != http.StatusForbidden {
		t.Errorf("the ingest token reading the list: %d, want 403", r.status)
	}
	// A reload shows the token without its secret.
	if err := chromedp.Do(tab, chromedp.Navigate(b.url+"/admin/tokens"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="tokens"]`))); err != nil {
		t.Fatal(err)
	}
	if html, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.innerHTML`)); err != nil || strings.Contains(html, secret) {
		t.Errorf("the secret is shown again (%v)", err)
	}
	// Sign out, then in again, landing where the sign-in was asked for.
	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`[data-testid="sign-out"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-name"]`)),
		chromedp.Navigate(b.url+"/review"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-name"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="login-name"]`), "root"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="login-password"]`), "a long password"),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signed-in"]`)),
	)
	if err != nil {
		t.Fatalf("signing out and in: %v", err)
	}
	if loc, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.pathname`)); err != nil || loc != "/review" {
		t.Errorf("after signing in the browser is on %q (%v), want /review", loc, err)
	}
}
