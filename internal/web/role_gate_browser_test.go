package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserViewerControls: signed in as a viewer, the controls a viewer
// cannot use are disabled with the reason beside them (Confirm, Dismiss,
// notes, opening an incident, bulk review) or absent (suppress similar);
// and a refusal the server answers anyway (a form a page offered before
// the role changed) is shown beside the control, not swallowed.
func TestBrowserViewerControls(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
	b.settled("crash-1")
	tab := newBrowser(t)
	signInAs(t, tab, b.srv.Session(t, "vera", "viewer"))

	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/crash-1"), htmxIdle()))
	card := `[data-testid="alarm-card"]`
	state, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var q = function (s) { return document.querySelector(s); }, out = [];
		['[data-testid="confirm"]', '[data-testid="dismiss"]', '[data-testid="reason"]',
		 '[data-testid="note-form"] button', '[data-testid="open-incident"]'].forEach(function (s) {
			var e = q(s);
			if (!e) out.push(s + ' missing');
			else if (!e.matches(':disabled')) out.push(s + ' enabled');
		});
		if (q('[data-testid="suppress-similar"]')) out.push('suppress similar offered');
		if (q('a[data-testid="open-incident"]')) out.push('open incident is a link');
		return out.join('; ');
	})()`))
	must(t, err)
	if state != "" {
		t.Errorf("viewer's controls: %s", state)
	}
	const why = "Confirming and dismissing alarms needs the reviewer role; you are signed in as a viewer."
	if got := textOf(t, tab, card+` [data-testid="gate-reason"]`); got != why {
		t.Errorf("the card says %q, want %q", got, why)
	}
	beside, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`document.querySelector('[data-testid="open-incident"]').closest('fieldset').querySelector('[data-testid="gate-reason"]').innerText`))
	if err != nil || !strings.Contains(beside, "Opening an incident needs the reviewer role") {
		t.Errorf("beside Open incident: %q (%v)", beside, err)
	}
	title, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('`+card+` fieldset.gate').title`))
	if err != nil || title != why {
		t.Errorf("the disabled controls' title %q (%v)", title, err)
	}
	// Clicking the disabled button sends nothing.
	must(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS(card+` [data-testid="confirm"]`)), htmxIdle()))
	readmeShot(t, tab, "viewer-controls.png", card)

	// A page that offered the form anyway (made before the role changed):
	// the 403 is shown beside the form, and the alarm stays open.
	_, err = chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector('`+card+` fieldset.gate').disabled = false, true`))
	must(t, err)
	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(card+` [data-testid="confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(card+` [data-testid="request-error"]`)),
	)
	if err != nil {
		t.Fatalf("the refusal is not shown: %v", err)
	}
	if got := textOf(t, tab, card+` [data-testid="request-error"]`); got != "403 this needs review access" {
		t.Errorf("the refusal reads %q", got)
	}
	if st := textOf(t, tab, card+` [data-testid="status"]`); st != "open" {
		t.Errorf("the alarm is %q after a viewer's refused confirm", st)
	}

	// Bulk review: the same, disabled with the reason.
	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/review"), htmxIdle()))
	disabled, err := chromedp.Run(tab, chromedp.Evaluate[bool](`Array.from(document.querySelectorAll('[data-testid="group-form"] button')).every(function (e) { return e.matches(':disabled'); })`))
	if err != nil || !disabled {
		t.Errorf("the review page's buttons are enabled for a viewer (%v)", err)
	}
	if got := textOf(t, tab, `[data-testid="review-group"] [data-testid="gate-reason"]`); got != why {
		t.Errorf("the review page says %q", got)
	}
}
