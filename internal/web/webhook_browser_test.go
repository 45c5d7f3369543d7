package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// An admin adds a webhook on /admin/webhooks in a browser, presses "Send
// test", and the receiver's answer shows in the target's log.
func TestBrowserWebhookSendTest(t *testing.T) {
	t.Parallel()
	b := setupWith(t, allowPrivateHooks) // the receiver is on 127.0.0.1
	rcv := newHookReceiver(t)
	b.postText("/api/v1/launches/browser-hook-1/lines", "INFO engine: up\n")
	tab := newBrowser(t)
	steps := []struct {
		what string
		act  chromedp.Action[chromedp.Void]
	}{
		{"open the page", chromedp.Navigate(b.url + "/admin/users")},
		{"follow the nav link", chromedp.Click(chromedp.CSS(`a[href="/admin/webhooks"]`))},
		{"see no webhook", chromedp.WaitVisible(chromedp.CSS(`[data-testid="webhooks-empty"]`))},
		{"type the URL", chromedp.SendKeys(chromedp.CSS(`[data-testid="webhook-url-input"]`), rcv.srv.URL+"/slack-in")},
		{"choose slack", chromedp.SetValue(chromedp.CSS(`[data-testid="webhook-format"]`), "slack")},
		{"tick silent", chromedp.Click(chromedp.CSS(`input[name="events"][value="silent"]`))},
		{"add it", chromedp.Click(chromedp.CSS(`[data-testid="webhook-create"]`))},
		{"see it", chromedp.WaitVisible(chromedp.CSS(`[data-testid="webhook"]`))},
		{"send a test", chromedp.Click(chromedp.CSS(`[data-testid="webhook-test"]`))},
		{"see it queued", chromedp.WaitVisible(chromedp.CSS(`[data-testid="webhook-notice"][data-done="test"]`))},
	}
	for _, s := range steps {
		if err := chromedp.Do(tab, s.act); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
	}
	if s := textOf(t, tab, `[data-testid="webhook"] p`); !strings.Contains(s, "slack") || !strings.Contains(s, "alarm, crashed, silent") {
		t.Errorf("the webhook shows as %q", s)
	}
	if s := textOf(t, tab, `[data-testid="webhook-notice"]`); !strings.Contains(s, "Test delivery queued") {
		t.Errorf("the page says %q after send test", s)
	}
	b.deliver()
	if err := chromedp.Do(tab, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid="delivery-state"]`))); err != nil {
		t.Fatal(err)
	}
	if s := textOf(t, tab, `[data-testid="delivery-state"]`); s != "delivered" {
		t.Errorf("after delivery the log shows %q", s)
	}
	got := rcv.got()
	if len(got) != 1 || !strings.Contains(got[0]["text"].(string), "browser-hook-1") {
		t.Errorf("receiver got %v", got)
	}
}
