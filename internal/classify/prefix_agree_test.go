package classify

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkParse requires Prefix.parse and the reference (prefix_parse_ref_test.go)
// to give the same Prefix, every field including the unexported full, for
// the years the classifier passes (0 before any line carried a year).
func checkParse(t *testing.T, s string) {
	t.Helper()
	for _, year := range [...]int{2026, 0, 1999} {
		var got, want Prefix
		got.parse(s, year)
		want.oldParse(s, year)
		if got != want {
			t.Fatalf("parse(%q, %d)\n got %#v\nwant %#v", s, year, got, want)
		}
	}
}

// prefixPieces are made-up fragments in the shapes of the prefixes and
// envelopes parse reads, their near misses, and the bytes its scans look
// for (colour introducers, brackets, digits, separators).
var prefixPieces = []string{
	"(", ")", "[", "]", " ", "  ", ":", ": ", "-", " - ", " | ", ",", ".", "\t", "\r", "^M", "=", "\"", "{", "}", "<", ">",
	"0", "7", "12", "123", "2026", "99", "1,0", "pid=", "pid=42", "ip=10.0.0.9", "rank=", "rank=3", "rank", "rank0",
	"(APIServer pid=7) ", "(EngineCore_DP0 pid=12) ", "(Worker_TP1 pid=5) ", "(pid=9) ", "(Process) ", "(x pid=1, ip=1.2.3.4) ",
	"(VllmWorker rank=1 pid=3) ", "(12) ", "(a b) ", "(_TP) ", "(a=b pid=1) ", "(x rank=2 y=3 pid=4,5) ", "(pid=) ", "(pid=1x) ",
	"(apid=3) ", "( pid=3)", "(Worker_TP1 rank=2 pid=9)", "(é pid=1) ", "(a\xff pid=2) ", "(w_DP0 TP1 pid=3) ",
	"[2026-01-12 05:01:25] ", "[2026-01-12 05:01:25 DP7 TP7 EP7] ", "[2026-01-12 05:01:25 TP0] ", "[2026-01-02 03:04:05,678 E 1234 5678] ",
	"[2026-13-12 05:01:25] ", "[2026-01-32 05:01:25] ", "[2026-01-12T05:01:25.123456Z] ", "[2026-01-12 05:01:25+02:00] ",
	"[TP0] ", "[DP2 TP2] ", "[rank3]: ", "[rank12]:", "[1,0]<stdout>:", "[1,3]<stderr>: ", "[2,1]<stddiag>:", "[1,x]<stdout>:",
	"[TensorRT-LLM]", "[TensorRT-LLM][WARNING] ", "[WARNING] ", "[ERROR] ", "[error]", "[INFO]", "[launch.py:321:sigkill_handler] ",
	"[W803 21:49:24.248 file.cpp:1575] ", "[E ", "[I0102 ", "[pod/web-0/server] ", "[pod/Web/x] ",
	"[40111] ", "[7] ", "[12345678] ", "[4x] ", `{stream="stderr"} `, `{app="a-1", stream="stdout"}   `, `{a="x\"y"} `, `{a=b} `, `{a="b",c="d"} `, `2026-01-12 05:01:25.123,"`, `"2026-01-12T05:01:25Z","h-1","error","`, `","`, `""`, `,`,
	"INFO ", "INFO:     ", "WARNING ", "ERROR ", "DEBUG ", "CRITICAL ", "WARN ", "ERR ", "Info ", "INFOS ", "INFO", "TRACE:",
	"08-03 21:02:48 ", "13-03 21:02:48 ", "08-03 21:02:48 [core.py:12] ", "08-03 21:02:48 core.py:12] ", "[api_server.py:9]",
	"2026-04-05 16:52:19,388 - ", "2026-04-05 16:52:19,388", "2026-03-27 20:55:46.396 ", "2025-10-14 19:22:02.871009: E x.cc:1] ",
	"2026-01-02T03:04:05Z I 1 http_server.cc:4788] ", "2026-01-02T03:04:05Z ", "2026-01-02T03:04:05.5+01:00 ", "2026-01-02T03:04:05-07:00",
	"name - ", "uvicorn.error - ", "WARNING - ", "f.py:12 - ", " | ERROR    | mod:fn:12 - ", " | INFO | ", "xinference.core 4242 ERROR    ",
	"time=2026-01-02T03:04:05.000Z level=INFO source=x.go:1 msg=\"m\"", "time=x level=WARN", "time=",
	"E0000 00:00:1760469722.892123    4394 cuda_dnn.cc:8579] ", "W0803 21:48:43.773000 6890 torch/_inductor/utils.py:1731] ",
	"I0102 03:04:05 1 x.cc:1] \"quoted \\\"msg\\\"\"", "F1 2:3] ",
	"11:02:19-880000 ERROR    ", "10:20:30 WARNING  ", "12:00:01 took ", "0.00.031.207 E srv  ", "0.00.031.207 I ", "1.02.003.004 X ",
	"2026-01-28T10:04:05.123456789Z stderr F ", "2026-01-28T10:04:05Z stdout P ", "web-1  | ", "llm_worker_1   | ", "Total  | ",
	"Jan 28 10:04:05 host ident[12]: ", "Feb  3 04:05:06.25 h a: ", "<13>Jan 28 10:04:05 h a[1]: ", "<13>1 2026-01-28T10:04:05.1Z h app 123 - - ",
	"<13>1 - - - - [x a=\"\\]\"] ", "2026-01-28T10:04:05+0100 host a[9]: ", "<14>2026-01-28T10:04:05Z a[1]: ",
	`{"log":"INFO x\n","stream":"stderr","time":"2026-02-03T04:05:06.1Z"}`, `{"level":"ERROR","msg":"boom"}`, "{\"MESSAGE\":\"m\"}",
	"\x1b[1;36m", "\x1b[0m", "\x1b[0;0m", "\x1b", "\x1b[", "^[[32m", "^[[", "^[", "^", "\u241b[0m", "\u241b", "\xe2\x90", "\x9b", "\x9b[",
	"Traceback (most recent call last):", "  File \"/srv/app.py\", line 7, in main", "msg", "é", "\xff", "█",
}

func randomPrefixLine(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(9) {
		b.WriteString(prefixPieces[rng.IntN(len(prefixPieces))])
	}
	return b.String()
}

// mutate changes a few bytes of s near its start, where the prefixes are,
// to bytes the readers dispatch or stop on.
func mutate(rng *rand.Rand, s string) string {
	if s == "" {
		return s
	}
	const alphabet = "0123456789 []():-.,|^\x1b\x9bTZEIWFDpidrank=\r\"{<>"
	b := []byte(s)
	for range 1 + rng.IntN(3) {
		i := rng.IntN(min(len(b), 48))
		switch rng.IntN(3) {
		case 0:
			b[i] = alphabet[rng.IntN(len(alphabet))]
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
		}
		if len(b) == 0 {
			break
		}
	}
	return string(b)
}

// wrapLine puts a line in the envelope kind (wrapEnvelope), or in a Docker
// json-file record, or two envelopes deep.
func wrapLine(kind string, i int, l string) string {
	switch kind {
	case "json-file":
		rec, _ := json.Marshal(map[string]string{"log": l + "\n", "stream": "stderr", "time": "2026-02-03T04:05:06.123456789Z"})
		return string(rec)
	case "k8s+compose":
		return wrapEnvelope("k8s", i, wrapEnvelope("compose", i, l))
	case "json-file+journald":
		return wrapLine("json-file", i, wrapEnvelope("journald", i, l))
	}
	return wrapEnvelope(kind, i, l)
}

var agreeEnvelopes = append([]string{"json-file", "k8s+compose", "json-file+journald"}, speedEnvelopes...)

// TestParseAgreesWithReference checks Prefix.parse against the parse it
// replaced on every corpus and families line, plain, cut short and in every
// envelope, on mutated lines and on random lines of made-up pieces.
func TestParseAgreesWithReference(t *testing.T) {
	t.Parallel()
	lines := agreeLines(t)
	rng := rand.New(rand.NewPCG(13, 7))
	for i, l := range lines {
		checkParse(t, l)
		for n := 1; n < len(l) && n < 120; n++ { // every cut through the prefixes
			checkParse(t, l[:n])
		}
		for _, kind := range agreeEnvelopes {
			checkParse(t, wrapLine(kind, i, l))
		}
		for range 4 {
			checkParse(t, mutate(rng, l))
		}
	}
	for range 300_000 {
		s := randomPrefixLine(rng)
		checkParse(t, s)
		checkParse(t, mutate(rng, s))
	}
	t.Logf("%d corpus and family lines, 300000 random ones", len(lines))
}

// FuzzParseAgreesWithReference is the same check on fuzzed lines.
func FuzzParseAgreesWithReference(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 64 {
		f.Add(randomPrefixLine(rng))
	}
	f.Fuzz(func(t *testing.T, s string) { checkParse(t, s) })
}

// TestTrimSpaceAgrees compares trimSpace with strings.TrimSpace on words of
// ASCII and Unicode spaces, letters and invalid bytes.
func TestTrimSpaceAgrees(t *testing.T) {
	t.Parallel()
	pieces := []string{" ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2003", "\u3000", "\xc2", "\x85", "\xff", "a", "Z", "_", "é", "\x1c", "\x00"}
	rng := rand.New(rand.NewPCG(13, 9))
	for range 200_000 {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if s := b.String(); trimSpace(s) != strings.TrimSpace(s) {
			t.Fatalf("trimSpace(%q) = %q, strings.TrimSpace %q", s, trimSpace(s), strings.TrimSpace(s))
		}
	}
}

// TestColourAgreesWithReference checks hasColour and stripANSI against
// the reference on lines of colour codes in every form, their pieces and
// near misses, and the bytes around them.
func TestColourAgreesWithReference(t *testing.T) {
	t.Parallel()
	pieces := []string{"\x1b", "\x1b[", "\x1b[0m", "\x1b[1;36m", "^", "^[", "^[[", "^[[0m", "^[[1;3", "[", "[[", "]", "m", ";", "1",
		"\u241b", "\u241b[", "\u241b[0m", "\xe2", "\x90", "\x9b", "\xe2\x90", "\x90\x9b", "\x9b[", "\u2588", "x", " ", "é", "\xff"}
	rng := rand.New(rand.NewPCG(13, 10))
	for range 300_000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := hasColour(s), oldHasColour(s); got != want {
			t.Fatalf("hasColour(%q) = %v, reference %v", s, got, want)
		}
		if got, want := stripANSI(s), oldStripANSI(s); got != want {
			t.Fatalf("stripANSI(%q) = %q, reference %q", s, got, want)
		}
	}
	for _, l := range agreeLines(t) {
		if got, want := stripANSI(l), oldStripANSI(l); got != want {
			t.Fatalf("stripANSI(%q) = %q, reference %q", l, got, want)
		}
	}
}

// TestRankWordsAgreesWithReference checks rankWords against the reference
// on bracket contents of rank words, near misses and spaces of every kind.
func TestRankWordsAgreesWithReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 12))
	for range 300_000 {
		b := randomBracket(rng)
		s := b[1:max(1, strings.IndexByte(b, ']'))]
		r1, all1 := rankWords(s)
		r2, all2 := oldRankWords(s)
		if r1 != r2 || all1 != all2 {
			t.Fatalf("rankWords(%q) = %q %v, reference %q %v", s, r1, all1, r2, all2)
		}
	}
}

// TestProcIDAgreesWithReference checks procID against the reference on
// every combination of present, absent ("-") and empty fields.
func TestProcIDAgreesWithReference(t *testing.T) {
	t.Parallel()
	vals := []string{"", "-", "h", "gpu-7", "a b", "--"}
	for _, h := range vals {
		for _, a := range vals {
			for _, p := range vals {
				if got, want := procID(h, a, p), oldProcID(h, a, p); got != want {
					t.Fatalf("procID(%q, %q, %q) = %q, reference %q", h, a, p, got, want)
				}
			}
		}
	}
}

// TestIndexTagEnd compares indexTagEnd with strings.Index(s, "] ").
func TestIndexTagEnd(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	for range 100_000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = "] x["[rng.IntN(4)]
		}
		if s := string(b); indexTagEnd(s) != strings.Index(s, "] ") {
			t.Fatalf("indexTagEnd(%q) = %d, strings.Index %d", s, indexTagEnd(s), strings.Index(s, "] "))
		}
	}
}

// TestSyslogIdentAgreesWithReference checks syslogIdent against the
// reference on made-up tags of identifier bytes, brackets, quotes, colons
// and non-ASCII text.
func TestSyslogIdentAgreesWithReference(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "vllm", "-", "[", "]", "12", ":", "\"", "'", "é", "\xff", "\u241b", " ", "x[1]"}
	rng := rand.New(rand.NewPCG(13, 15))
	for range 200_000 {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(2) == 0 {
			b.WriteByte(':')
		}
		s := b.String()
		n1, p1, ok1 := syslogIdent(s)
		n2, p2, ok2 := oldSyslogIdent(s)
		if n1 != n2 || p1 != p2 || ok1 != ok2 {
			t.Fatalf("syslogIdent(%q) = %q %q %v, reference %q %q %v", s, n1, p1, ok1, n2, p2, ok2)
		}
	}
}

// randomBracket builds a bracketed prefix from pieces that exercise the
// field splitting: rank words, near-rank words, glog levels, repeated
// words, ASCII and Unicode white space.
func randomBracket(rng *rand.Rand) string {
	words := []string{"TP0", "DP7", "EP12", "PP1", "CP3", "SP0", "TP", "TPx", "xTP1", "TP1x", "tp0", "E", "W", "1234",
		"5678", "rank0", "DP7", "TP7", "TP0TP0", "é", "\xff"}
	seps := []string{" ", " ", " ", "  ", "\t", "\u00a0", "\u2003", "\r", "\v"}
	var b strings.Builder
	b.WriteByte('[')
	if rng.IntN(3) > 0 {
		b.WriteString([]string{"2026-01-12 05:01:25", "2026-01-02 03:04:05,678", "2026-13-02 03:04:05", "2026-01-12T05:01:25.5Z"}[rng.IntN(4)])
	}
	for range rng.IntN(6) {
		if rng.IntN(4) > 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	if rng.IntN(3) == 0 {
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	b.WriteString([]string{"] msg", "]: msg", "]", "] ", "]x"}[rng.IntN(5)])
	return b.String()
}
