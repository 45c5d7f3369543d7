package web_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIngestText(t *testing.T) {
	t.Parallel()

	t.Run("StoresLinesInOrderWithAttributes", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ack := b.postText("/api/v1/launches/demo/lines?server=SGLang&host=gpu-7&name=llama&label.team=infra&label.gpu=h100",
			"first\r\nsecond\n\nfourth, a \r progress bar\n")
		if ack.Launch != "demo" || ack.Accepted != 4 || ack.Duplicates != 0 || ack.LastSeq != 4 || ack.Status != "starting" {
			t.Fatalf("ack = %+v", ack)
		}
		l := b.launch("demo")
		if l.Server != "sglang" || l.Host != "gpu-7" || l.Name != "llama" || l.Labels["team"] != "infra" || l.Labels["gpu"] != "h100" {
			t.Errorf("launch attributes = %+v", l)
		}
		if l.Counts.Lines != 4 || l.LastSeq != 4 || l.Times.FirstLine == nil || l.Times.LastLine == nil {
			t.Errorf("launch counts = %+v, times = %+v", l.Counts, l.Times)
		}
		got := b.lines("demo")
		want := []string{"first", "second", "", "fourth, a \r progress bar"}
		if !slices.Equal(texts(got), want) {
			t.Errorf("lines = %q, want %q", texts(got), want)
		}
		for i, ln := range got {
			if ln.Seq != int64(i+1) {
				t.Errorf("line %d has seq %d", i, ln.Seq)
			}
		}
	})

	t.Run("SeqContinuesAfterLastStored", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/c/lines", "a\nb\n")
		b.postText("/api/v1/launches/c/lines", "c\n")
		b.postText("/api/v1/launches/c/lines?seq=10", "j\nk\n")
		ack := b.postText("/api/v1/launches/c/lines", "l\n")
		if ack.LastSeq != 12 {
			t.Errorf("last_seq = %d, want 12", ack.LastSeq)
		}
		var seqs []int64
		for _, l := range b.lines("c") {
			seqs = append(seqs, l.Seq)
		}
		if want := []int64{1, 2, 3, 10, 11, 12}; !slices.Equal(seqs, want) {
			t.Errorf("seqs = %v, want %v", seqs, want)
		}
	})

	t.Run("RetriedBatchIsStoredOnce", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		first := b.postText("/api/v1/launches/r/lines?seq=1", "a\nb\nc\n")
		again := b.postText("/api/v1/launches/r/lines?seq=1", "a\nb\nc\n")
		if first.Accepted != 3 || again.Accepted != 0 || again.Duplicates != 3 {
			t.Errorf("first = %+v, again = %+v", first, again)
		}
		if again.LastSeq != first.LastSeq || again.Status != first.Status || again.Launch != first.Launch {
			t.Errorf("the retry got a different answer: first = %+v, again = %+v", first, again)
		}
		// A retry that overlaps the stored lines stores only what is new.
		overlap := b.postText("/api/v1/launches/r/lines?seq=3", "c\nd\n")
		if overlap.Accepted != 1 || overlap.Duplicates != 1 {
			t.Errorf("overlap = %+v", overlap)
		}
		if got := texts(b.lines("r")); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
			t.Errorf("lines = %q", got)
		}
		if l := b.launch("r"); l.Counts.Lines != 4 {
			t.Errorf("line count = %d, want 4", l.Counts.Lines)
		}
	})

	t.Run("EmptyBodyCreatesTheLaunch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ack := b.postText("/api/v1/launches/empty/lines?server=vllm", "")
		if ack.Accepted != 0 || ack.LastSeq != 0 {
			t.Errorf("ack = %+v", ack)
		}
		if l := b.launch("empty"); l.Server != "vllm" || l.Counts.Lines != 0 {
			t.Errorf("launch = %+v", l)
		}
	})

	t.Run("CurlDefaultContentTypeIsText", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.ack(b.do("POST", "/api/v1/launches/curl/lines", "application/x-www-form-urlencoded", []byte("x=1&y=2\nz\n")))
		if got := texts(b.lines("curl")); !slices.Equal(got, []string{"x=1&y=2", "z"}) {
			t.Errorf("lines = %q", got)
		}
	})

	t.Run("LongLineIsTruncatedWithMarker", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		long := strings.Repeat("é", 50*1024) // 100 KiB of two-byte characters
		b.postText("/api/v1/launches/long/lines", "short\n"+long+"\n")
		got := b.lines("long")
		if len(got) != 2 {
			t.Fatalf("%d lines stored, want 2", len(got))
		}
		text := got[1].Text
		kept, marker, ok := strings.Cut(text, " …[launchwatch: line truncated, ")
		if !ok {
			t.Fatalf("no truncation marker at the end of %q", text[len(text)-80:])
		}
		if len(kept) != 64*1024 || strings.Trim(kept, "é") != "" {
			t.Errorf("kept %d bytes (%q...), want 65536 whole characters", len(kept), kept[:8])
		}
		if want := fmt.Sprintf("%d bytes cut]", len(long)-64*1024); marker != want {
			t.Errorf("marker = %q, want %q", marker, want)
		}
	})

	t.Run("InvalidUTF8AndNULAreReplaced", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/bytes/lines", "a\x00b\xffc\xe2\x82\n")
		got := b.lines("bytes")
		if len(got) != 1 || got[0].Text != "a\uFFFDb\uFFFDc\uFFFD" {
			t.Errorf("lines = %q", texts(got))
		}
	})

	t.Run("GzipBody", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.ack(b.do("POST", "/api/v1/launches/gz/lines", "text/plain", gzipped("one\ntwo\n"), "Content-Encoding", "gzip"))
		if got := texts(b.lines("gz")); !slices.Equal(got, []string{"one", "two"}) {
			t.Errorf("lines = %q", got)
		}
	})
}

func TestIngestNDJSON(t *testing.T) {
	t.Parallel()

	t.Run("FieldsAreStored", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		ack := b.postNDJSON("/api/v1/launches/nd/lines?server=vllm",
			`{"seq": 2, "line": "two", "ts": "2026-03-01T10:00:01.5+01:00", "stream": "stderr"}`+"\n"+
				"\n"+
				`{"seq": 1, "line": "one", "ts": 1772355600000000000, "stream": "stdout"}`+"\n"+
				`{"seq": 3, "line": "three", "ts": "1772355602000000000", "extra": "ignored"}`+"\n")
		if ack.Accepted != 3 || ack.LastSeq != 3 {
			t.Fatalf("ack = %+v", ack)
		}
		got := b.lines("nd")
		if !slices.Equal(texts(got), []string{"one", "two", "three"}) {
			t.Fatalf("lines = %q", texts(got))
		}
		wantTS := []time.Time{
			time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
			time.Date(2026, 3, 1, 9, 0, 1, 5e8, time.UTC),
			time.Date(2026, 3, 1, 9, 0, 2, 0, time.UTC),
		}
		for i, l := range got {
			ts, err := time.Parse(time.RFC3339Nano, l.TS)
			if err != nil || !ts.Equal(wantTS[i]) {
				t.Errorf("line %d ts = %s, want %s", l.Seq, l.TS, wantTS[i])
			}
		}
		if got[0].Stream != "stdout" || got[1].Stream != "stderr" || got[2].Stream != "" {
			t.Errorf("streams = %q %q %q", got[0].Stream, got[1].Stream, got[2].Stream)
		}
	})

	t.Run("WithoutSeqContinues", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ns/lines", "a\n")
		ack := b.postNDJSON("/api/v1/launches/ns/lines", `{"line":"b"}`+"\n"+`{"line":"c"}`)
		if ack.Accepted != 2 || ack.LastSeq != 3 {
			t.Errorf("ack = %+v", ack)
		}
	})

	t.Run("RetriedBatchIsStoredOnce", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		body := `{"seq": 1, "line": "a"}` + "\n" + `{"seq": 2, "line": "b"}` + "\n"
		first := b.postNDJSON("/api/v1/launches/ndr/lines", body)
		again := b.postNDJSON("/api/v1/launches/ndr/lines", body+`{"seq": 3, "line": "c"}`+"\n")
		if first.Accepted != 2 || first.Duplicates != 0 || again.Accepted != 1 || again.Duplicates != 2 {
			t.Errorf("first = %+v, again = %+v", first, again)
		}
		if got := texts(b.lines("ndr")); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("lines = %q", got)
		}
	})

	// A seq twice in one batch is no retry but a shipper's bug: the second
	// line would be dropped unseen. The batch is refused, naming both
	// lines, and nothing of it is stored, in a launch that exists too.
	t.Run("RepeatedSeqInABatchIsRefused", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postNDJSON("/api/v1/launches/ndrep/lines", `{"seq": 1, "line": "a"}`+"\n")
		r := b.do("POST", "/api/v1/launches/ndrep/lines", "application/x-ndjson",
			[]byte(`{"seq": 2, "line": "b"}`+"\n"+`{"seq": 3, "line": "c"}`+"\n"+`{"seq": 2, "line": "b again"}`+"\n"))
		if r.status != http.StatusBadRequest || !strings.Contains(errorMessage(t, r), `line 3 of the body has the "seq" 2 of line 1`) {
			t.Errorf("got %d %s, want 400 naming lines 1 and 3", r.status, r.body)
		}
		if got := texts(b.lines("ndrep")); !slices.Equal(got, []string{"a"}) {
			t.Errorf("lines = %q, want the first batch's alone", got)
		}
	})
}

func TestIngestRejectsBadInput(t *testing.T) {
	t.Parallel()
	b := setupWith(t, webConfigSmallBody)
	tests := []struct {
		name        string
		path        string
		contentType string
		body        []byte
		headers     []string
		status      int
		message     string
	}{
		{"MalformedNDJSONNamesTheLine", "/api/v1/launches/k/lines", "application/x-ndjson",
			[]byte(`{"seq":1,"line":"ok"}` + "\n" + `{"seq":2,"line":"broken"` + "\n"), nil, 400, "line 2 of the body"},
		{"NDJSONMissingLine", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1}`), nil, 400, `missing "line"`},
		{"NDJSONLineNotString", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1,"line":5}`), nil, 400, `"line" has the wrong type`},
		{"NDJSONNotAnObject", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`["a"]`), nil, 400, "line 1 of the body"},
		{"NDJSONTwoValuesOnALine", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"line":"a"} {"line":"b"}`), nil, 400, "more than one JSON value"},
		{"NDJSONNegativeSeq", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":-1,"line":"a"}`), nil, 400, `"seq" must be a positive integer`},
		{"NDJSONZeroSeq", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":0,"line":"a"}`), nil, 400, `"seq" must be a positive integer`},
		{"NDJSONFractionalSeq", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1.5,"line":"a"}`), nil, 400, `"seq" must be a positive integer`},
		{"NDJSONHugeSeq", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":99999999999999999999,"line":"a"}`), nil, 400, `"seq" must be a positive integer`},
		{"NDJSONBadTS", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1,"line":"a","ts":"yesterday"}`), nil, 400, `"ts" must be`},
		{"NDJSONSecondsAsTS", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1,"line":"a","ts":1772355600}`), nil, 400, "seconds or milliseconds"},
		{"NDJSONBadStream", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1,"line":"a","stream":"stdin"}`), nil, 400, `"stream" must be`},
		{"NDJSONMixedSeq", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1,"line":"a"}` + "\n" + `{"line":"b"}`), nil, 400, "every object has a \"seq\" or none"},
		{"NDJSONWithSeqParam", "/api/v1/launches/k/lines?seq=3", "application/x-ndjson", []byte(`{"line":"a"}`), nil, 400, "NDJSON objects carry their own"},
		{"BadSeqParam", "/api/v1/launches/k/lines?seq=abc", "text/plain", []byte("a"), nil, 400, "seq must be an integer"},
		{"ZeroSeqParam", "/api/v1/launches/k/lines?seq=0", "text/plain", []byte("a"), nil, 400, "seq must be an integer from 1"},
		{"SeqOverflow", "/api/v1/launches/k/lines?seq=9223372036854775807", "text/plain", []byte("a\nb"), nil, 400, "from 1 to 2^53 (9007199254740992)"},
		{"SeqPastTheLimit", "/api/v1/launches/k/lines?seq=9007199254740992", "text/plain", []byte("a\nb"), nil, 400, "above 2^53 (9007199254740992)"},
		{"NDJSONRepeatedSeq", "/api/v1/launches/k/lines", "application/x-ndjson",
			[]byte(`{"seq":1,"line":"a"}` + "\n" + `{"seq":2,"line":"b"}` + "\n" + `{"seq":1,"line":"c"}` + "\n"), nil, 400, `line 3 of the body has the "seq" 1 of line 1`},
		{"JSONRepeatedSeq", "/api/v1/launches/k/lines", "application/json",
			[]byte(`[{"seq":5,"line":"a"},{"seq":4,"line":"b"},{"seq":5,"line":"c"}]`), nil, 400, `element 2 of the array has the "seq" 5 of element 0`},
		{"NDJSONFarSeqOfANewLaunch", "/api/v1/launches/k/lines", "application/x-ndjson", []byte(`{"seq":1000001,"line":"a"}` + "\n"), nil, 400, "more than 1000000 beyond the launch's last line (0)"},
		{"TextFarSeqOfANewLaunch", "/api/v1/launches/k/lines?seq=2000000", "text/plain", []byte("a\n"), nil, 400, "more than 1000000 beyond the launch's last line (0)"},
		{"TooManyLabels", "/api/v1/launches/k/lines?" + manyLabels(33), "text/plain", []byte("a"), nil, 400, "at most 32 labels"},
		{"BadKey", "/api/v1/launches/bad%20key/lines", "text/plain", []byte("a"), nil, 400, "launch key"},
		{"KeyTooLong", "/api/v1/launches/" + strings.Repeat("k", 201) + "/lines", "text/plain", []byte("a"), nil, 400, "launch key"},
		{"BadServer", "/api/v1/launches/k/lines?server=s%20g", "text/plain", []byte("a"), nil, 400, "server"},
		{"BadLabelName", "/api/v1/launches/k/lines?label.%24x=1", "text/plain", []byte("a"), nil, 400, "label name"},
		{"LabelValueWithNewline", "/api/v1/launches/k/lines?label.team=a%0Ab", "text/plain", []byte("a"), nil, 400, "label team"},
		{"UnsupportedContentType", "/api/v1/launches/k/lines", "application/xml", []byte("<a/>"), nil, 415, "unsupported Content-Type"},
		{"UnreadableContentType", "/api/v1/launches/k/lines", "text/", []byte("a"), nil, 415, "Content-Type"},
		{"UnsupportedEncoding", "/api/v1/launches/k/lines", "text/plain", []byte("a"), []string{"Content-Encoding", "br"}, 415, "unsupported Content-Encoding"},
		{"InvalidGzip", "/api/v1/launches/k/lines", "text/plain", []byte("not gzip"), []string{"Content-Encoding", "gzip"}, 400, "gzip"},
		{"TruncatedGzip", "/api/v1/launches/k/lines", "text/plain", gzipped("a\nb\n")[:12], []string{"Content-Encoding", "gzip"}, 400, "compressed"},
		{"BodyTooLarge", "/api/v1/launches/k/lines", "text/plain", []byte(strings.Repeat("x\n", 40<<10)), nil, 413, "larger than"},
		{"GzipBombTooLarge", "/api/v1/launches/k/lines", "text/plain", gzipped(strings.Repeat("x", 1<<20)), []string{"Content-Encoding", "gzip"}, 413, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := b.do("POST", tt.path, tt.contentType, tt.body, tt.headers...)
			if r.status != tt.status || !strings.Contains(errorMessage(t, r), tt.message) {
				t.Errorf("got %d %s, want %d with %q", r.status, r.body, tt.status, tt.message)
			}
			if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
				t.Errorf("error answered as %q, want JSON", r.header.Get("Content-Type"))
			}
			if b.exists("k") {
				t.Errorf("a rejected batch created its launch")
			}
		})
	}

	// A stray far seq would leave a gap every later batch refills by
	// reclassifying the launch, and one near 2^63 would make every
	// unnumbered batch overflow: both are refused, and nothing is stored.
	t.Run("FarSeqsAreRefused", func(t *testing.T) {
		for _, tc := range []struct {
			ctype, query, body, want string
			exists                   bool
		}{
			{"text/plain", "?seq=9223372036854775806", "last\n", "from 1 to 2^53 (9007199254740992)", false},
			{"application/x-ndjson", "", `{"seq": 9223372036854775807, "line": "x"}` + "\n", "up to 2^53 (9007199254740992)", false},
			{"text/plain", "?seq=1000002", "far\n", "more than 1000000 beyond the launch's last line (1)", true},
		} {
			if tc.exists {
				b.postText("/api/v1/launches/edge/lines?seq=1", "first\n")
			}
			r := b.do("POST", "/api/v1/launches/edge/lines"+tc.query, tc.ctype, []byte(tc.body))
			if r.status != http.StatusBadRequest || !strings.Contains(errorMessage(t, r), tc.want) {
				t.Errorf("%s %s: got %d %s, want 400 saying %q", tc.ctype, tc.query, r.status, r.body, tc.want)
			}
		}
		// The launch keeps its one line and goes on as usual.
		b.postText("/api/v1/launches/edge/lines?seq=1000001", "near\n")
		b.postText("/api/v1/launches/edge/lines", "next\n")
		if got := texts(b.lines("edge")); !slices.Equal(got, []string{"first", "near", "next"}) {
			t.Errorf("lines = %q", got)
		}
	})

	t.Run("RejectedBatchLeavesAnExistingLaunchAlone", func(t *testing.T) {
		b.postText("/api/v1/launches/kept/lines", "a\nb\n")
		r := b.do("POST", "/api/v1/launches/kept/lines", "application/x-ndjson",
			[]byte(`{"line":"c"}`+"\n"+`{"line":"d"}`+"\n"+`{"line":`))
		if r.status != http.StatusBadRequest || !strings.Contains(errorMessage(t, r), "line 3 of the body") {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		if got := texts(b.lines("kept")); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("lines = %q, want only the first batch", got)
		}
	})
}

func TestIngestDefaultBodyLimitIs16MiB(t *testing.T) {
	t.Parallel()
	b := setup(t)
	line := strings.Repeat("y", 1023) + "\n"
	atLimit := strings.Repeat(line, 16*1024) // exactly 16 MiB
	ack := b.postText("/api/v1/launches/big/lines", atLimit)
	if ack.Accepted != 16*1024 {
		t.Errorf("accepted %d lines of a 16 MiB body, want %d", ack.Accepted, 16*1024)
	}
	r := b.do("POST", "/api/v1/launches/big/lines", "text/plain", []byte(atLimit+"z"))
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("16 MiB + 1 byte: got %d %s, want 413", r.status, r.body)
	}
	if l := b.launch("big"); l.Counts.Lines != 16*1024 {
		t.Errorf("line count = %d after the rejected batch, want %d", l.Counts.Lines, 16*1024)
	}
}

func manyLabels(n int) string {
	var q []string
	for i := range n {
		q = append(q, fmt.Sprintf("label.l%d=v", i))
	}
	return strings.Join(q, "&")
}

// A time the API cannot write back (a year past 9999 or before 1 once in
// UTC) or a unix time that is no number of this era (NaN, 1e300) was stored
// and then made every read of the launch's lines a 500, or became a 1677
// timestamp. It is a bad time: 400, nothing stored.
func TestIngestRejectsTimesOutOfRange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name, contentType, body string
	}{
		{"PastYear9999InUTC", "application/x-ndjson", `{"line":"x","ts":"9999-12-31T23:59:59-23:59"}`},
		{"BeforeYear1InUTC", "application/x-ndjson", `{"line":"x","ts":"0001-01-01T00:00:00+01:00"}`},
		{"AliasPastYear9999", "application/json", `[{"line":"x","timestamp":"9999-12-31T23:00:00-05:00"}]`},
		{"DateNaN", "application/json", `[{"line":"x","date":"NaN"}]`},
		{"DateHuge", "application/json", `[{"line":"x","date":1e300}]`},
		{"DateHex", "application/json", `[{"line":"x","date":"0x1p70"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := "tsrange-" + strings.ToLower(tt.name)
			r := b.do("POST", "/api/v1/launches/"+key+"/lines", tt.contentType, []byte(tt.body))
			if r.status != http.StatusBadRequest {
				t.Errorf("got %d %s, want 400", r.status, r.body)
			}
			if b.exists(key) {
				lr := b.do("GET", "/api/v1/launches/"+key+"/lines", "", nil)
				t.Errorf("a rejected batch created its launch; reading its lines: %d %s", lr.status, lr.body)
			}
		})
	}
}

// Lines that fill a gap were stored with the receive time instead of the
// time in their own prefix, and a batch's first line without a time of its
// own took the receive time instead of the time of the line before it, so
// a line's ts (and the timeline drawn from it) depended on the order and
// the boundaries of the batches.
func TestIngestLineTimesDoNotDependOnArrivalOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	log := []string{
		"[2026-01-12 05:01:25] Load weight begin.",
		"[2026-01-12 05:07:40] Load weight end.",
		"  a line of its own without a time",
		"[2026-01-12 05:20:00] KV cache allocated",
		"[2026-01-12 05:31:12] The server is fired up and ready to roll!",
		"  another continuation",
	}
	b.postText("/api/v1/launches/in-order/lines?seq=1", strings.Join(log, "\n"))
	b.postText("/api/v1/launches/gap-filled/lines?seq=4", strings.Join(log[3:], "\n"))
	b.postText("/api/v1/launches/gap-filled/lines?seq=1", strings.Join(log[:3], "\n"))
	b.postText("/api/v1/launches/split/lines", strings.Join(log[:2], "\n"))
	b.postText("/api/v1/launches/split/lines", strings.Join(log[2:], "\n"))
	want := b.lines("in-order")
	for _, key := range []string{"gap-filled", "split"} {
		got := b.lines(key)
		if len(want) != len(log) || len(got) != len(log) {
			t.Fatalf("%s: stored %d and %d lines, want %d", key, len(want), len(got), len(log))
		}
		for i := range want {
			if got[i].TS != want[i].TS || got[i].Kind != want[i].Kind {
				t.Errorf("%s: seq %d %q: ts %s kind %s, in one batch ts %s kind %s",
					key, want[i].Seq, want[i].Text, got[i].TS, got[i].Kind, want[i].TS, want[i].Kind)
			}
		}
	}
}

func TestIngestBoundsTheLabelsOfALaunch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/lab/lines?"+manyLabels(32), "a\n")
	// Another 32 new labels reach the limit of 64; repeating known ones is fine.
	var q []string
	for i := 32; i < 64; i++ {
		q = append(q, fmt.Sprintf("label.l%d=v", i))
	}
	b.postText("/api/v1/launches/lab/lines?"+strings.Join(q, "&"), "b\n")
	b.postText("/api/v1/launches/lab/lines?label.l0=changed", "c\n")
	r := b.do("POST", "/api/v1/launches/lab/lines?label.one_too_many=v", "text/plain", []byte("d\n"))
	if r.status != http.StatusBadRequest || !strings.Contains(errorMessage(t, r), "at most 64 labels") {
		t.Errorf("65th label: got %d %s, want 400", r.status, r.body)
	}
	if l := b.launch("lab"); len(l.Labels) != 64 || l.Labels["l0"] != "changed" || l.Counts.Lines != 3 {
		t.Errorf("launch has %d labels (l0=%q) and %d lines, want 64 labels and 3 lines", len(l.Labels), l.Labels["l0"], l.Counts.Lines)
	}
}
