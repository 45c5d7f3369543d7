package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"launchwatch/internal/timeline"
)

// crashLoopLog is a real panic log (mistral.rs) repeated n times: a crash
// loop, n alarms.
func crashLoopLog(t testing.TB, n int) string {
	t.Helper()
	data, err := os.ReadFile("../../testdata/families/b-mistralrs-panic-chat-template-01.log")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Repeat(string(data), n)
}

func parseHTML(t *testing.T, body []byte) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// cardNos are the alarm numbers of the cards in doc, in order.
func cardNos(doc *goquery.Document) []int {
	var out []int
	doc.Find(`[data-testid="alarm-card"]`).Each(func(_ int, s *goquery.Selection) {
		n, _ := strconv.Atoi(s.AttrOr("data-alarm", ""))
		out = append(out, n)
	})
	return out
}

func seqInts(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// TestLaunchPageBoundsAlarmCards: a launch with more alarms than the page
// shows cards for (a crash loop) shows its first timeline.CardsInline
// cards, every count, and a link to the next ones, which htmx puts in its
// place and which without script is a page of them; the pages of cards
// go on (and back) to the last one, ?no= finds the page that holds an
// alarm, and a decision on an alarm the page does not show answers its
// card, in place and without script.
func TestLaunchPageBoundsAlarmCards(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/loop-1/lines?server=mistralrs", crashLoopLog(t, 170))
	var api struct {
		Alarms []struct {
			No    int    `json:"no"`
			State string `json:"state"`
		} `json:"alarms"`
	}
	if r := b.do("GET", "/api/v1/launches/loop-1", "", nil); r.status != http.StatusOK || json.Unmarshal(r.body, &api) != nil {
		t.Fatalf("GET the launch: %d %s", r.status, r.body)
	}
	n := len(api.Alarms)
	if n < timeline.CardsInline+timeline.CardsPerPage+10 {
		t.Fatalf("the crash loop raised %d alarms, too few to test", n)
	}
	for i, a := range api.Alarms {
		if a.No != i+1 {
			t.Fatalf("alarm %d is numbered %d", i+1, a.No)
		}
	}
	get := func(path string, htmx bool) *goquery.Document {
		t.Helper()
		var h []string
		if htmx {
			h = []string{"HX-Request", "true", "HX-Target", "alarm-more"}
		}
		r := b.do("GET", path, "", nil, h...)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		return parseHTML(t, r.body)
	}
	page := get("/launches/loop-1", false)
	if got, want := cardNos(page), seqInts(1, timeline.CardsInline); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the launch page's cards: %v, want %v", got, want)
	}
	if c := page.Find("#alarm-total").AttrOr("data-count", ""); c != strconv.Itoa(n) {
		t.Errorf("alarm-total counts %s, want %d", c, n)
	}
	more := page.Find(`[data-testid="alarm-more"]`)
	if more.AttrOr("data-shown", "") != strconv.Itoa(timeline.CardsInline) || more.AttrOr("data-visible", "") != strconv.Itoa(n) ||
		!strings.Contains(more.Text(), fmt.Sprintf("%d of %d alarm cards shown", timeline.CardsInline, n)) {
		t.Errorf("the more block: %q %v", more.Text(), more.Nodes)
	}
	next := more.Find(`[data-testid="alarm-more-next"]`)
	nextURL := "/launches/loop-1/alarms?from=" + strconv.Itoa(timeline.CardsInline)
	if next.AttrOr("href", "") != nextURL || next.AttrOr("hx-get", "") != nextURL || next.AttrOr("hx-target", "") != "#alarm-more" ||
		!strings.Contains(next.Text(), fmt.Sprintf("next %d", timeline.CardsPerPage)) {
		t.Errorf("the next link: %v", next.Nodes)
	}
	if all := more.Find(`[data-testid="alarm-more-all"]`).AttrOr("href", ""); all != "/launches/loop-1/alarms" {
		t.Errorf("the link to every alarm: %q", all)
	}
	if page.Find("#alarm-cards").AttrOr("data-alarms", "") != "/launches/loop-1/alarms" || page.Find(`script[src="/static/alarm-anchor.js"]`).Length() != 1 {
		t.Error("the page lacks its cards' pages for the anchor script")
	}

	// From htmx: the next cards and the link after them, no page around.
	frag := get(nextURL, true)
	to := timeline.CardsInline + timeline.CardsPerPage
	if got, want := cardNos(frag), seqInts(timeline.CardsInline+1, to); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the next cards: %v, want %v", got, want)
	}
	if frag.Find("h1, #timeline").Length() != 0 {
		t.Error("the more link's answer holds a whole page")
	}
	if u := frag.Find(`[data-testid="alarm-more-next"]`).AttrOr("hx-get", ""); u != "/launches/loop-1/alarms?from="+strconv.Itoa(to) {
		t.Errorf("the next link after them: %q", u)
	}
	// Without script: a page of cards with its range and both ways.
	p2 := get(nextURL, false)
	if got := cardNos(p2); len(got) != timeline.CardsPerPage || got[0] != timeline.CardsInline+1 {
		t.Errorf("the page of cards: %v", got)
	}
	if r := p2.Find(`[data-testid="alarms-range"]`).Text(); !strings.Contains(r, fmt.Sprintf("Alarm cards %d–%d of %d", timeline.CardsInline+1, to, n)) {
		t.Errorf("the page's range: %q", r)
	}
	if p2.Find(`[data-testid="alarms-prev"]`).AttrOr("href", "") != "/launches/loop-1/alarms" ||
		p2.Find(`[data-testid="alarms-next"]`).AttrOr("href", "") != "/launches/loop-1/alarms?from="+strconv.Itoa(to) {
		t.Error("the page of cards lacks its previous and next links")
	}
	last := get("/launches/loop-1/alarms?from="+strconv.Itoa(to), false)
	if got, want := cardNos(last), seqInts(to+1, n); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the last page's cards: %v, want %v", got, want)
	}
	if last.Find(`[data-testid="alarm-more"], [data-testid="alarms-next"]`).Length() != 0 {
		t.Error("the last page links to more")
	}
	// ?no= is the page that holds the alarm.
	if got := cardNos(get("/launches/loop-1/alarms?no="+strconv.Itoa(n), false)); len(got) == 0 || got[len(got)-1] != n {
		t.Errorf("?no=%d shows %v", n, got)
	}
	for _, bad := range []string{"?from=-1", "?from=x", "?no=0"} {
		if r := b.do("GET", "/launches/loop-1/alarms"+bad, "", nil); r.status != http.StatusBadRequest {
			t.Errorf("GET alarms%s: %d, want 400", bad, r.status)
		}
	}
	if r := b.do("GET", "/launches/nope/alarms", "", nil); r.status != http.StatusNotFound {
		t.Errorf("the alarms of no launch: %d", r.status)
	}

	// A decision on an alarm the launch page does not show: its card, in
	// place from htmx; the page with the card and what was wrong without.
	res := b.postForm(fmt.Sprintf("/launches/loop-1/alarms/%d/decide", n), url.Values{"verdict": {"dismiss"}, "reason": {"a <known> loop"}}, true)
	body := readBody(t, res)
	doc := parseHTML(t, []byte(body))
	if res.StatusCode != http.StatusOK || fmt.Sprint(cardNos(doc)) != fmt.Sprint([]int{n}) ||
		doc.Find(fmt.Sprintf("#alarm-%d", n)).AttrOr("data-state", "") != "dismissed" {
		t.Errorf("the decision's answer: %d %v %.300s", res.StatusCode, cardNos(doc), body)
	}
	res = b.postForm(fmt.Sprintf("/launches/loop-1/alarms/%d/decide", n-1), url.Values{"verdict": {"dismiss"}}, false)
	doc = parseHTML(t, []byte(readBody(t, res)))
	if card := doc.Find(fmt.Sprintf("#alarm-%d", n-1)); res.StatusCode != http.StatusUnprocessableEntity || card.Length() != 1 ||
		!strings.Contains(card.Text(), "say why this is not a real failure") {
		t.Errorf("an invalid decision without script: %d, its card %d", res.StatusCode, card.Length())
	}
	if got := cardNos(doc); len(got) != timeline.CardsInline+1 {
		t.Errorf("the page of an invalid decision shows cards %v", got)
	}
}
