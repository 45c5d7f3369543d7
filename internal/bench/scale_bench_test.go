package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"launchwatch/internal/corpustest"
	"launchwatch/internal/upkeep"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// The page budgets the scale bench reports against (issue 26.5): the
// launch page's p95 warm and cold, and an RE2 search over a million-line
// launch, every match shown.
const (
	scaleWarmPageMS = 150.0
	scaleColdPageMS = 300.0
	scaleSearchMS   = 500.0
	scaleSearchRE   = `CUDA (error|out of memory)`
	scaleBatch      = 50_000 // lines a POST carries at most, as BenchmarkBudgets posts
	scaleSamples    = 40     // loads each p95 is taken over
)

// scaleSource is one real log the scale bench repeats into launches, and
// the server family its shipper would name.
type scaleSource struct {
	name, server string
	lines        []string
}

// scaleSources are the logs of the shared corpus and testdata/families,
// each file one source (several families: sglang, vLLM, TGI, llama.cpp,
// ollama, …), with the server its sidecar .json names ("other" and none
// are left to the classifier to detect).
func scaleSources(b *testing.B) []scaleSource {
	var files []string
	for _, dir := range []string{corpustest.Dir(b), filepath.Join("..", "..", "testdata", "families")} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.log"))
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, fs...)
	}
	slices.Sort(files)
	var out []scaleSource
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		text := strings.TrimSuffix(string(data), "\n")
		if text == "" {
			continue
		}
		src := scaleSource{name: strings.TrimSuffix(filepath.Base(f), ".log"), lines: strings.Split(text, "\n")}
		if meta, err := os.ReadFile(strings.TrimSuffix(f, ".log") + ".json"); err == nil {
			var m struct {
				Server string `json:"server"`
			}
			if json.Unmarshal(meta, &m) == nil && m.Server != "other" {
				src.server = m.Server
			}
		}
		out = append(out, src)
	}
	if len(out) < 10 {
		b.Fatalf("only %d source logs", len(out))
	}
	return out
}

// scaleLaunch is one launch of the scale bench.
type scaleLaunch struct {
	key   string
	src   int // its source
	lines int
}

// scaleSizes splits total lines over n launches of random sizes (a
// log-normal spread: most launches a few thousand lines, a few hundreds of
// thousands) but for the first, which holds big lines: the launch the
// search budget is read on. The draw is seeded: every run builds the same
// launches.
func scaleSizes(total, n, big int) []int {
	r := rand.New(rand.NewPCG(26, 5))
	w := make([]float64, n-1)
	var sum float64
	for i := range w {
		w[i] = math.Exp(1.2 * r.NormFloat64())
		sum += w[i]
	}
	sizes := []int{big}
	left := total - big
	for i := range w {
		s := max(1, int(float64(total-big)*w[i]/sum))
		if i == len(w)-1 {
			s = max(1, left)
		}
		s = min(s, max(1, left-(len(w)-1-i))) // leave a line for each launch after
		sizes = append(sizes, s)
		left -= s
	}
	return sizes
}

// BenchmarkScale (make bench-scale) ingests LWBENCH_SCALE_LINES lines
// (default 10,000,000 with LWBENCH_SCALE set, as make bench-scale sets it;
// 100,000 without, so that bench-all runs it small) over LWBENCH_SCALE_LAUNCHES launches (default one
// per 10,000 lines: 1000) of random sizes, each repeating one real log
// (corpus and testdata/families), through the ingest API two requests at a
// time, then reads it as people do: the launch list, the launch page cold
// (a launch's first load) and warm, a log page (a window of a launch's
// log), an RE2 search over every line of the biggest launch (a million
// lines at full size), compare; and what storage costs per byte of log as
// written and at rest, and retention's cost per launch dropped. A report,
// not a timed test: a figure over its budget says OVER and the run goes on.
func BenchmarkScale(b *testing.B) {
	ctx := context.Background()
	lines := 100_000 // bench-all's small run: the figures, not the size
	if os.Getenv("LWBENCH_SCALE") != "" {
		lines = 10_000_000
	}
	total := envInt("LWBENCH_SCALE_LINES", lines)
	n := envInt("LWBENCH_SCALE_LAUNCHES", max(10, total/10_000))
	big := min(1_000_000, total/10)
	srcs := scaleSources(b)
	srv := webtest.Start(b, web.Config{MaxNewLaunchesPerMinute: -1})
	pool := srv.Store.Pool()
	sizes := scaleSizes(total, n, big)
	launches := make([]scaleLaunch, n)
	// The big launch repeats the corpus mix (every corpus log, file after
	// file, as BenchmarkBudgets' launches do), so its search finds what a
	// fleet's long log holds; the others one source log each, in turn.
	srcs = append(srcs, scaleSource{name: "mix", server: "sglang", lines: corpusMix(b)})
	for i, s := range sizes {
		src := i % (len(srcs) - 1)
		if i == 0 {
			src = len(srcs) - 1
		}
		launches[i] = scaleLaunch{key: fmt.Sprintf("scale-%04d-%s", i, srcs[src].name), src: src, lines: s}
	}
	for b.Loop() {
		fmt.Printf("scale: %d lines over %d launches (a %d-line launch of the corpus mix first, then %d to %d lines each of one of %d source logs); one process on a machine shared with other work\n",
			total, n, big, slices.Min(sizes[1:]), slices.Max(sizes[1:]), len(srcs)-1)

		// Ingest: two requests at a time (two cores), launches in turn.
		var logBytes int64
		var mu sync.Mutex
		work := make(chan scaleLaunch)
		var wg sync.WaitGroup
		start := time.Now()
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for l := range work {
					nb := scaleIngest(b, srv.URL, l, srcs[l.src])
					mu.Lock()
					logBytes += nb
					mu.Unlock()
				}
			}()
		}
		for _, l := range launches {
			work <- l
		}
		close(work)
		wg.Wait()
		ingest := time.Since(start)
		fmt.Printf("scale: ingest %s, %.0f lines/s, %.1f MB of log\n", ingest.Round(time.Second), float64(total)/ingest.Seconds(), float64(logBytes)/1e6)
		written := storedBytes(b, pool, false)

		// At rest: the worker's pass over the quiet launches.
		start = time.Now()
		moved, err := upkeep.CompactOnce(ctx, srv.Store, time.Now().Add(time.Hour), 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Printf("scale: the compaction pass moved %d lines (the tails in-order batches left as rows) in %s\n", moved, time.Since(start).Round(time.Millisecond))
		rest := storedBytes(b, pool, true)
		byColumn := blockColumnBytes(b, pool)
		if _, err := pool.Exec(ctx, `CHECKPOINT`); err != nil {
			b.Fatal(err)
		}

		r := rand.New(rand.NewPCG(26, 6))
		pick := func() scaleLaunch { return launches[1+r.IntN(n-1)] }
		var list, cold, warm, logPage, compare []time.Duration
		for range scaleSamples {
			list = append(list, scaleGet(b, srv.URL, "/", nil))
		}
		// Cold: each launch's first load in this run (its rows are not in
		// the database's buffers unless a neighbour's were); warm: the
		// same launch again.
		seen := map[string]bool{}
		var slowest struct {
			key         string
			lines, size int
			cold, warm  time.Duration
		}
		for len(cold) < min(scaleSamples, n-1) {
			l := pick()
			if seen[l.key] {
				continue
			}
			seen[l.key] = true
			path := "/launches/" + url.PathEscape(l.key)
			cold = append(cold, scaleGet(b, srv.URL, path, nil))
			body, took := scaleGetBody(b, srv.URL, path, nil)
			warm = append(warm, took)
			if c := cold[len(cold)-1]; max(c, took) > max(slowest.cold, slowest.warm) {
				slowest.key, slowest.lines, slowest.size, slowest.cold, slowest.warm = l.key, l.lines, len(body), c, took
			}
		}
		// What the p95s are made of: the slowest page, its size and alarms.
		var alarms int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM alarms a JOIN launches l ON l.id = a.launch_id WHERE l.key = $1`, slowest.key).Scan(&alarms); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("scale: the slowest launch page: %s, %d lines, %d alarms, %d KB of HTML: cold %s, warm %s\n", slowest.key, slowest.lines,
			alarms, slowest.size/1000, slowest.cold.Round(time.Millisecond), slowest.warm.Round(time.Millisecond))
		// The page with the most alarms (a crash loop's), sampled or not:
		// what bounding the cards a page shows is for. Cold unless the
		// sample above loaded it.
		var most string
		var mostAlarms int
		if err := pool.QueryRow(ctx, `SELECT l.key, count(*) FROM alarms a JOIN launches l ON l.id = a.launch_id
			GROUP BY l.key ORDER BY count(*) DESC, l.key LIMIT 1`).Scan(&most, &mostAlarms); err != nil {
			b.Fatal(err)
		}
		mostCold := scaleGet(b, srv.URL, "/launches/"+url.PathEscape(most), nil)
		mostBody, mostWarm := scaleGetBody(b, srv.URL, "/launches/"+url.PathEscape(most), nil)
		fmt.Printf("scale: the launch page with the most alarms: %s, %d alarms, %d KB of HTML: first load %s (sampled above: %v), again %s\n",
			most, mostAlarms, len(mostBody)/1000, mostCold.Round(time.Millisecond), seen[most], mostWarm.Round(time.Millisecond))
		for range scaleSamples {
			l := pick()
			after := r.IntN(l.lines)
			logPage = append(logPage, scaleGet(b, srv.URL, "/launches/"+url.PathEscape(l.key)+"?after="+strconv.Itoa(after), logSection))
		}
		for range scaleSamples / 2 {
			a, c := pick(), pick()
			compare = append(compare, scaleGet(b, srv.URL, "/compare?"+url.Values{"a": {a.key}, "b": {c.key}}.Encode(), nil))
		}
		// The search: every match of an RE2 over the big launch, paged as
		// the log view pages it, twice (the first reads the launch cold).
		var searches []time.Duration
		var pages, hits int
		for range 2 {
			took, p, h := scaleSearch(b, srv.URL, launches[0].key, url.Values{"q": {scaleSearchRE}, "re": {"1"}})
			searches, pages, hits = append(searches, took), p, h
		}
		re := regexp.MustCompile(scaleSearchRE)
		want := 0
		for i := range big {
			if re.MatchString(srcs[launches[0].src].lines[i%len(srcs[launches[0].src].lines)]) {
				want++
			}
		}
		if hits != want {
			b.Fatalf("the search showed %d lines, the launch holds %d matches", hits, want)
		}

		// Retention: the oldest tenth of the launches expire.
		old := max(1, n/10)
		if _, err := pool.Exec(ctx, `UPDATE launches SET created_at = created_at - interval '400 days', updated_at = updated_at - interval '400 days',
			last_line_at = last_line_at - interval '400 days' WHERE key = ANY($1)`, keysOf(launches[n-old:])); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		res, err := srv.Store.ApplyRetention(ctx, time.Now().Add(-365*24*time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		retention := time.Since(start)
		if res.Launches != old {
			b.Fatalf("retention dropped %d launches, want %d", res.Launches, old)
		}

		budget := func(name string, figure, target float64, unit, note string) {
			v := "within"
			if target > 0 && figure >= target {
				v = "OVER"
			}
			t := "-"
			if target > 0 {
				t = fmt.Sprintf("< %.0f %s", target, unit)
			}
			fmt.Printf("scale %-22s %9.1f %-6s target %-10s %-6s %s\n", name, figure, unit, t, v, note)
		}
		p95 := func(ds []time.Duration) float64 { return ms(percentile(ds, 95)) }
		p50 := func(ds []time.Duration) float64 { return ms(percentile(ds, 50)) }
		fmt.Printf("scale: figures on %d launches, %d lines:\n", n, total)
		budget("list-p95-ms", p95(list), 0, "ms", fmt.Sprintf("the launch list (/), %d loads, p50 %.1f ms", len(list), p50(list)))
		budget("page-cold-p95-ms", p95(cold), scaleColdPageMS, "ms", fmt.Sprintf("a launch page's first load, %d launches, p50 %.1f ms", len(cold), p50(cold)))
		budget("page-warm-p95-ms", p95(warm), scaleWarmPageMS, "ms", fmt.Sprintf("the same launch pages loaded again, p50 %.1f ms", p50(warm)))
		budget("log-page-p95-ms", p95(logPage), 0, "ms", fmt.Sprintf("a log section at a random seq of a random launch, %d loads, p50 %.1f ms", len(logPage), p50(logPage)))
		budget("search-re-ms", ms(searches[1]), scaleSearchMS, "ms", fmt.Sprintf("RE2 %q over every line of the %d-line launch, every match shown (%d lines, %d log sections); the first run %.0f ms",
			scaleSearchRE, big, hits, pages, ms(searches[0])))
		budget("compare-p95-ms", p95(compare), 0, "ms", fmt.Sprintf("compare of two random launches, %d loads, p50 %.1f ms", len(compare), p50(compare)))
		budget("retention-ms-per-launch", ms(retention)/float64(res.Launches), 0, "ms", fmt.Sprintf("%d launches (%d lines) dropped in %s, %d partitions whole", res.Launches, res.Lines, retention.Round(time.Millisecond), len(res.Partitions)))
		budget("written-per-log-byte", float64(written.total)/float64(logBytes), 0, "×", written.detail)
		budget("at-rest-per-log-byte", float64(rest.total)/float64(logBytes), 0, "×", rest.detail+"; line_blocks' columns per byte of log: "+byColumn(logBytes))
	}
}

// logSection is what htmx sends when the log view loads a window alone.
var logSection = http.Header{"Hx-Request": {"true"}, "Hx-Target": {"log-section"}}

func keysOf(ls []scaleLaunch) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.key
	}
	return out
}

// scaleIngest posts launch l's lines, its source repeated, in batches of
// at most scaleBatch lines with their seqs, and returns the log's bytes.
func scaleIngest(b *testing.B, base string, l scaleLaunch, src scaleSource) int64 {
	var size int64
	var body strings.Builder
	first := 1
	for i := range l.lines {
		line := src.lines[i%len(src.lines)]
		size += int64(len(line)) + 1
		body.WriteString(line)
		body.WriteByte('\n')
		if (i+1)%scaleBatch == 0 || i+1 == l.lines {
			q := url.Values{"seq": {strconv.Itoa(first)}}
			if src.server != "" {
				q.Set("server", src.server)
			}
			post(b, base+"/api/v1/launches/"+url.PathEscape(l.key)+"/lines?"+q.Encode(), "text/plain", body.String())
			body.Reset()
			first = i + 2
		}
	}
	return size
}

// scaleGet fetches path as the admin and returns the time to the answer's
// last byte.
func scaleGet(b *testing.B, base, path string, h http.Header) time.Duration {
	_, took := scaleGetBody(b, base, path, h)
	return took
}

func scaleGetBody(b *testing.B, base, path string, h http.Header) ([]byte, time.Duration) {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+webtest.AdminToken)
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	took := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %.300s", path, res.StatusCode, body)
	}
	return body, took
}

// scaleSearch pages through every match of q over launch key as the log
// view does (the search form, then each "next" link, as log sections), as
// BenchmarkBudgets' searchAll does: the requests' total time, the pages
// and the lines shown.
func scaleSearch(b *testing.B, base, key string, q url.Values) (time.Duration, int, int) {
	var total time.Duration
	pages, hits := 0, 0
	for path := "/launches/" + url.PathEscape(key) + "?" + q.Encode(); path != ""; {
		body, took := scaleGetBody(b, base, path, logSection)
		total += took
		pages++
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		hits += doc.Find(`[data-testid="log"] [data-testid="log-line"]`).Length()
		path = ""
		if next, ok := doc.Find(`[data-testid="log-next"]`).First().Attr("hx-get"); ok {
			path, _, _ = strings.Cut(next, "#")
		}
		if pages > 10_000 {
			b.Fatalf("search %v: still paging after %d pages", q, pages)
		}
	}
	return total, pages, hits
}
