package web_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"launchwatch/internal/timeline"
)

// TestBrowserAlarmCardsBeyondThePage: on a crash loop's launch page the
// "more" link puts the next alarm cards, and the link after them, in its
// place; a decision on one of them answers in place; and a link to an
// alarm whose card the page does not show (the review queue's, a
// problem's) lands on the page of cards that holds it.
func TestBrowserAlarmCardsBeyondThePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/loop-1/lines?server=mistralrs", crashLoopLog(t, 170))
	n := len(b.launchAlarms("loop-1").Alarms)
	if n < timeline.CardsInline+timeline.CardsPerPage+10 {
		t.Fatalf("%d alarms", n)
	}
	tab := newBrowser(t)
	cards := `document.querySelectorAll('[data-testid="alarm-card"]').length`
	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/loop-1"), htmxIdle()))
	if got, err := chromedp.Run(tab, chromedp.Evaluate[int](cards)); err != nil || got != timeline.CardsInline {
		t.Fatalf("%d cards on the page (%v)", got, err)
	}
	must(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS(`[data-testid="alarm-more-next"]`)), htmxIdle()))
	to := timeline.CardsInline + timeline.CardsPerPage
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](cards+` === `+strconv.Itoa(to))); err != nil {
		t.Fatalf("after the more link: %v", err)
	}
	// In place: the cards follow each other, then the next link; the page
	// stayed the launch page.
	order, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var cs = document.querySelectorAll('#alarm-cards > [data-testid="alarm-card"]'), out = [];
		for (var i = 0; i < cs.length; i++) if (cs[i].dataset.alarm !== String(i + 1)) out.push(i + ': ' + cs[i].dataset.alarm);
		var more = document.querySelectorAll('[data-testid="alarm-more"]');
		if (more.length !== 1 || more[0].previousElementSibling !== cs[cs.length - 1]) out.push(more.length + ' more blocks, not after the cards');
		if (!document.getElementById('timeline')) out.push('not the launch page');
		return out.join('; ');
	})()`))
	must(t, err)
	if order != "" {
		t.Errorf("the cards after the more link: %s", order)
	}
	// A card that came with the link takes a decision in place.
	no := to - 1
	must(t, chromedp.Do(tab,
		chromedp.SetValue(chromedp.CSS(fmt.Sprintf(`#alarm-%d textarea[name="reason"], #alarm-%d input[name="reason"]`, no, no)), "a known loop"),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#alarm-%d button[value="dismiss"]`, no))), htmxIdle()))
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('#alarm-%d').dataset.state === "dismissed"`, no))); err != nil {
		t.Errorf("the decision on card %d: %v", no, err)
	}
	if b.alarm("loop-1", no).State != "dismissed" {
		t.Errorf("alarm %d not dismissed", no)
	}
	// A link to alarm n's card, which the launch page does not show.
	// The script replaces the location: polling until the page is there
	// meets the navigation, which ends an evaluation.
	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/loop-1#alarm-"+strconv.Itoa(n))))
	landed := `location.pathname === "/launches/loop-1/alarms" && document.readyState === "complete" && !!document.getElementById("alarm-` + strconv.Itoa(n) + `")`
	waitFor(t, 5*time.Second, fmt.Sprintf("the link to alarm %d's card to land on the alarms page that shows it", n), func() bool {
		got, _ := chromedp.Run(tab, chromedp.Evaluate[bool](landed))
		return got
	})
}
