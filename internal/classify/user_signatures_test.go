package classify_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
	"launchwatch/internal/eval"
)

// acmeLog is a launch of a server no pack knows: without taught
// signatures it has no readiness, no phase and no alarm.
var acmeLog = []string{
	"acme-infer 0.3.1 starting, pid 4242",
	"[acme] loading weights from /models/llama-8b (4 files)",
	"[acme] weights loaded in 12.3 s",
	"[acme] allocating kv cache: 4096 blocks of 16 tokens",
	"[acme] engine up: accepting requests",
	"[acme] request 17 failed: upstream reset by peer",
	"[acme] served request 18 in 41 ms",
	"[acme] worker 3 lost its heartbeat, shutting the engine down",
	"[acme] bye",
}

// acmeSignatures are what a team would teach for acmeLog, one of each
// meaning and matcher.
var acmeSignatures = []classify.UserSignature{
	{ID: 1, Meaning: classify.MeaningPhase, Phase: "weights", Matcher: classify.MatchTemplate,
		Pattern: classify.Template("[acme] loading weights from /models/llama-8b (4 files)")},
	{ID: 2, Meaning: classify.MeaningPhase, Phase: "kv_cache", Matcher: classify.MatchSubstring, Pattern: "allocating KV cache"},
	{ID: 3, Meaning: classify.MeaningReady, Matcher: classify.MatchTemplate, Pattern: "[acme] engine up: accepting requests"},
	{ID: 4, Meaning: classify.MeaningError, Matcher: classify.MatchRegex, Pattern: `request \d+ failed`},
	{ID: 5, Meaning: classify.MeaningFatal, Matcher: classify.MatchSubstring, Pattern: "lost its heartbeat"},
}

func compileAcme(t *testing.T) *classify.Signatures {
	t.Helper()
	sigs, err := classify.CompileSignatures(acmeSignatures)
	if err != nil {
		t.Fatal(err)
	}
	return sigs
}

func TestTaughtSignaturesJudgeAnUnknownServer(t *testing.T) {
	t.Parallel()
	plain, err := eval.Feed(acmeLog, "acme-infer", eval.LineByLine, false)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Ready != nil || len(plain.Alarms) != 0 || len(plain.Phases) != 0 {
		t.Fatalf("without signatures: ready %+v, alarms %+v, phases %+v; want none (the test log must be unknown)", plain.Ready, plain.Alarms, plain.Phases)
	}
	run, err := eval.FeedWith(acmeLog, "acme-infer", eval.LineByLine, false, classify.WithSignatures(compileAcme(t)))
	if err != nil {
		t.Fatal(err)
	}
	if run.Ready == nil || run.Ready.Seq != 5 {
		t.Errorf("ready %+v, want line 5", run.Ready)
	}
	var phases []string
	for _, p := range run.Phases {
		phases = append(phases, p.Name)
	}
	slices.Sort(phases)
	if !slices.Equal(phases, []string{"kv_cache", "weights"}) {
		t.Errorf("phases %v", phases)
	}
	if len(run.Alarms) != 2 {
		t.Fatalf("alarms %+v, want the failed request and the lost worker", run.Alarms)
	}
	if a := run.Alarms[0]; a.Fatal || a.HeadlineSeq != 6 || a.Headline != acmeLog[5] || a.Kind != classify.AlarmOther {
		t.Errorf("error signature's alarm %+v", a)
	}
	if a := run.Alarms[1]; !a.Fatal || a.HeadlineSeq != 8 || a.Headline != acmeLog[7] {
		t.Errorf("fatal signature's alarm %+v", a)
	}
	if got := eval.Outcome(run.Alarms, run.Ready); got != eval.OutcomeReadyThenCrashed {
		t.Errorf("outcome %s, want ready_then_crashed", got)
	}
}

// TestTaughtSignaturesAnyBatching is the corpus's random-batch replay
// (TestBatchSplitInvariance) with taught signatures: line by line, in one
// batch and in random batches with the state saved and restored between
// them, the verdicts are the same.
func TestTaughtSignaturesAnyBatching(t *testing.T) {
	t.Parallel()
	sigs := compileAcme(t)
	check := func(t *testing.T, lines []string, server string, seeds uint64) {
		one, err := eval.FeedWith(lines, server, eval.LineByLine, false, classify.WithSignatures(sigs))
		if err != nil {
			t.Fatal(err)
		}
		whole, err := eval.FeedWith(lines, server, func() int { return 1 << 30 }, false, classify.WithSignatures(sigs))
		if err != nil {
			t.Fatal(err)
		}
		if d := eval.Diff(one, whole); d != "" {
			t.Errorf("line by line vs one batch: %s", d)
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			batched, err := eval.FeedWith(lines, server, eval.RandomBatches(seed), true, classify.WithSignatures(sigs))
			if err != nil {
				t.Fatal(err)
			}
			if d := eval.Diff(one, batched); d != "" {
				t.Errorf("seed %d: line by line vs random batches with restore: %s", seed, d)
			}
		}
	}
	// The taught log, repeated so that batches fall everywhere in it.
	var long []string
	for range 40 {
		long = append(long, acmeLog...)
	}
	for _, server := range []string{"acme-infer", ""} {
		check(t, long, server, 20)
	}
	// Every corpus log with signatures that match lines of real servers.
	corpusSigs, err := classify.CompileSignatures([]classify.UserSignature{
		{ID: 11, Meaning: classify.MeaningReady, Matcher: classify.MatchSubstring, Pattern: "Uvicorn running on"},
		{ID: 12, Meaning: classify.MeaningError, Matcher: classify.MatchRegex, Pattern: `(?i)\bwarning\b.*deprecated`},
		{ID: 13, Meaning: classify.MeaningFatal, Matcher: classify.MatchSubstring, Pattern: "Killed"},
		{ID: 14, Meaning: classify.MeaningPhase, Phase: "warmup", Matcher: classify.MatchRegex, Pattern: `(?i)warm(?:ing)? ?up`},
	})
	if err != nil {
		t.Fatal(err)
	}
	sigs = corpusSigs
	cases, err := eval.LoadDir(corpustest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { check(t, c.Lines, c.Label.Server, 2) })
	}
}

// jsonFile wraps lines as Docker's json-file driver stores them.
func jsonFile(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		b, _ := json.Marshal(map[string]string{"log": l + "\n", "stream": "stdout", "time": "2026-01-28T10:04:05.000000001Z"})
		out[i] = string(b)
	}
	return out
}

// TestTaughtSignaturesInEveryEnvelope: what a collector adds in front of
// each line changes no verdict of a taught signature.
func TestTaughtSignaturesInEveryEnvelope(t *testing.T) {
	t.Parallel()
	sigs := compileAcme(t)
	plain, err := eval.FeedWith(acmeLog, "acme-infer", eval.LineByLine, false, classify.WithSignatures(sigs))
	if err != nil {
		t.Fatal(err)
	}
	type verdict struct {
		Ready  int64
		Alarms []string
		Phases []string
	}
	of := func(r eval.Run) verdict {
		var v verdict
		if r.Ready != nil {
			v.Ready = r.Ready.Seq
		}
		for _, a := range r.Alarms {
			b, _ := json.Marshal([]any{a.FirstSeq, a.LastSeq, a.HeadlineSeq, a.Headline, a.Fatal, a.Kind})
			v.Alarms = append(v.Alarms, string(b))
		}
		for _, p := range r.Phases {
			v.Phases = append(v.Phases, p.Name+"@"+itoa(p.BeginSeq))
		}
		return v
	}
	want := of(plain)
	wrapped := map[string][]string{"docker-json": jsonFile(acmeLog)}
	for _, kind := range eval.Envelopes {
		w, err := eval.Wrap(kind, "acme-infer", acmeLog)
		if err != nil {
			t.Fatal(err)
		}
		wrapped[kind] = w
	}
	for kind, lines := range wrapped {
		for _, server := range []string{"acme-infer", ""} {
			run, err := eval.FeedWith(lines, server, eval.RandomBatches(7), true, classify.WithSignatures(sigs))
			if err != nil {
				t.Fatal(err)
			}
			if got := of(run); !jsonEqual(got, want) {
				t.Errorf("%s (server %q): %+v\nwant %+v", kind, server, got, want)
			}
		}
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestTemplateRegexMatchesItsLines: the expression a template compiles to
// matches every corpus line the template was made from.
func TestTemplateRegexMatchesItsLines(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	n := 0
	for _, l := range corpustest.Lines(t) {
		body := strings.TrimSpace(classify.ParsePrefix(l, 0).Body)
		if body == "" || len(body) > 500 || seen[body] {
			continue
		}
		seen[body] = true
		tmpl := classify.Template(body)
		re, err := regexp.Compile(classify.TemplateRegex(tmpl))
		if err != nil {
			t.Fatalf("template %q: %v", tmpl, err)
		}
		if !re.MatchString(classify.ParsePrefix(l, 0).Body) {
			t.Errorf("template %q (%s) does not match its line %q", tmpl, re, body)
		}
		n++
	}
	t.Logf("%d distinct lines", n)
}

func TestUserSignatureRefusals(t *testing.T) {
	t.Parallel()
	for _, u := range []classify.UserSignature{
		{Meaning: "ready", Matcher: "regex", Pattern: `.*`},
		{Meaning: "ready", Matcher: "regex", Pattern: `\d+`},
		{Meaning: "ready", Matcher: "regex", Pattern: `(`},
		{Meaning: "ready", Matcher: "template", Pattern: "<num> <num>"},
		{Meaning: "ready", Matcher: "substring", Pattern: "ok"},
		{Meaning: "phase", Matcher: "substring", Pattern: "loading weights"},
		{Meaning: "phase", Phase: "Weights!", Matcher: "substring", Pattern: "loading weights"},
		{Meaning: "fatal", Kind: "boom", Matcher: "substring", Pattern: "lost heartbeat"},
		{Meaning: "maybe", Matcher: "substring", Pattern: "lost heartbeat"},
		{Meaning: "fatal", Matcher: "glob", Pattern: "lost heartbeat"},
	} {
		if err := classify.CheckSignature(u); err == nil {
			t.Errorf("%+v accepted", u)
		}
	}
	lits, err := classify.RequiredLiterals(`(?i)engine (?:up|ready)|server started`)
	if err != nil || !slices.Equal(lits, []string{"engine ", "server started"}) {
		t.Errorf("literals %q %v", lits, err)
	}
}

// TestTaughtSignatureMatch: Match tells which taught signatures a line
// matches, as the classifier reads it.
func TestTaughtSignatureMatch(t *testing.T) {
	t.Parallel()
	sigs := compileAcme(t)
	for line, want := range map[string][]int64{
		"[acme] engine up: accepting requests":                            {3},
		"2026-01-28T10:04:05.000000123Z stdout F [acme] request 9 failed": {4},
		"[acme] engine up: accepting requests now":                        nil,
		"[acme] worker 1 LOST ITS HEARTBEAT":                              {5},
	} {
		if got := sigs.Match(line, "acme-infer"); !slices.Equal(got, want) {
			t.Errorf("Match(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestTaughtSignaturesAsAPack: taught signatures in their pack form pass
// the checks of the built-in pack loader (TestPackSignatures's), with the
// lines they were taught from as tests; a test line that does not match
// fails them.
func TestTaughtSignaturesAsAPack(t *testing.T) {
	t.Parallel()
	p := classify.Pack{Family: classify.TaughtPack}
	for i, u := range acmeSignatures {
		u.Tests = []string{acmeLog[[]int{1, 3, 4, 5, 7}[i]]}
		u.Servers = []string{"acme-infer"}
		g, err := u.Signature()
		if err != nil {
			t.Fatal(err)
		}
		p.Signatures = append(p.Signatures, g)
	}
	if err := classify.CheckPack(p); err != nil {
		t.Fatalf("the taught pack fails the loader's checks: %v", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	back, err := classify.ParsePack(b)
	if err != nil || classify.CheckPack(back) != nil || !jsonEqual(back, p) {
		t.Fatalf("the pack's JSON does not read back: %v", err)
	}
	if _, err := classify.ParsePack([]byte(`{"family":"x","signatures":[],"extra":1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
	p.Signatures[2].Tests = []string{"[acme] engine up: accepting requests, 3 of 4"}
	if err := classify.CheckPack(p); err == nil || !strings.Contains(err.Error(), "taught.3") {
		t.Errorf("a test line that does not match: %v", err)
	}
	p.Signatures[2].ID = p.Signatures[1].ID
	if err := classify.CheckPack(p); err == nil {
		t.Error("a duplicate id was accepted")
	}
}
