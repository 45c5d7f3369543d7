package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// attackJS posts to the Launchwatch at base what an attacker's page
// would: forged lines and an exit report as text/plain (no preflight
// needed), a decision through the API, and a rule. With csrf it sends the
// page's CSRF token as a same-origin page of Launchwatch does. It resolves
// to the statuses it saw ("0" for an opaque answer).
const attackJS = `async function attack(base, csrf) {
  const r = [];
  const targets = [
    ["/api/v1/launches/xs-1/lines?server=sglang", "forged line from another origin"],
    ["/api/v1/launches/xs-2/exit", '{"code":0}'],
    ["/api/v1/launches/xs-1/alarms/1/decision", '{"verdict":"dismiss","reason":"forged"}'],
    ["/api/v1/rules", '{"matcher":"substring","pattern":"probe kernel","scope":"all","reason":"forged"}'],
  ];
  for (const [p, body] of targets) {
    // A page of another origin can only send simple requests (text/plain);
    // Launchwatch's own page sends JSON to the JSON API.
    const json = csrf && p.indexOf("/lines") < 0 && p.indexOf("/exit") < 0;
    const headers = {"Content-Type": json ? "application/json" : "text/plain"};
    if (csrf) headers["X-CSRF-Token"] = csrf;
    try {
      const res = await fetch(base + p, {method: "POST", mode: csrf ? "same-origin" : "no-cors",
        credentials: "include", headers, body});
      r.push(res.status);
    } catch (e) { r.push("error " + e); }
  }
  return r.join(",");
}`

// TestBrowserCrossSiteRequestsChangeNothing: a page on another origin (the
// same host, another port: same-site, so the browser sends the SameSite=Lax
// session cookie) posts forms and API requests to Launchwatch while an
// admin is signed in; nothing changes. The same requests from Launchwatch's
// own page, with its CSRF token, do change things, so the attack is not
// failing for reasons of its own.
func TestBrowserCrossSiteRequestsChangeNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/xs-1/lines?server=sglang", crashingLog)
	b.postText("/api/v1/launches/xs-2/lines?server=sglang", "starting\n")
	b.settled("xs-1")
	linesBefore := len(b.lines("xs-1"))

	evil := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="decide" method="post" action="%[1]s/launches/xs-1/alarms/1/decide" target="sink">
<input name="verdict" value="dismiss"><input name="reason" value="forged by a form"></form>
<form id="rule" method="post" action="%[1]s/rules" target="sink" enctype="text/plain">
<input name="matcher" value="substring"></form>
<script>%[2]s
window.done = (async () => {
  const api = await attack(%[1]q, "");
  document.getElementById("decide").submit();
  await new Promise(r => document.querySelector("iframe").onload = r);
  document.getElementById("rule").submit();
  await new Promise(r => document.querySelector("iframe").onload = r);
  return api;
})();
</script></body></html>`, b.url, attackJS)
	}))
	if !strings.HasPrefix(evil, "http://127.0.0.1:") {
		t.Fatalf("the attacker's page %s is not on the test server's host", evil)
	}

	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(evil)); err != nil {
		t.Fatalf("the attacker's page: %v", err)
	}
	statuses, err := chromedp.Run(tab, chromedp.Evaluate[string](`window.done`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the attacker's page: %v", err)
	}
	t.Logf("answers to the attacker's fetches (opaque: 0): %s", statuses)

	if a := b.alarm("xs-1", 1); a.State != "open" {
		t.Errorf("the alarm was decided from another origin: %+v", a)
	}
	if n := len(b.lines("xs-1")); n != linesBefore {
		t.Errorf("lines were forged from another origin: %d, were %d", n, linesBefore)
	}
	if st := b.launch("xs-2").Status; st == "exited" {
		t.Errorf("an exit was forged from another origin")
	}
	if doc := b.page("/rules", 200); testid(doc, "rule-row").Length() != 0 {
		t.Errorf("a rule was made from another origin")
	}

	// The control: the same requests from Launchwatch's own page, with its
	// CSRF token, are accepted and change what the attack could not.
	if err := chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/xs-2"), htmxIdle()); err != nil {
		t.Fatal(err)
	}
	own, err := chromedp.Run(tab, chromedp.Evaluate[string](`(`+attackJS+`)(location.origin, `+
		`document.querySelector('meta[name="csrf-token"]').content)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the same requests from Launchwatch's page: %v", err)
	}
	if own != "200,200,200,201" {
		t.Errorf("the same requests from Launchwatch's page answered %s, want 200,200,200,201", own)
	}
	if a := b.alarm("xs-1", 1); a.State != "dismissed" {
		t.Errorf("the control decision did not land: %+v", a)
	}
	if n := len(b.lines("xs-1")); n != linesBefore+1 {
		t.Errorf("the control line did not land: %d lines, were %d", n, linesBefore)
	}
}
