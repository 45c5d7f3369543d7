package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang/snappy"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/protobuf/encoding/protowire"

	"launchwatch/internal/web"
)

// lokiProto builds a snappy-compressed Loki PushRequest, as Promtail sends
// it: streams of (label string, entries of (time, line)).
func lokiProto(streams map[string][]lokiEntry) []byte {
	var req []byte
	labels := make([]string, 0, len(streams))
	for l := range streams {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for _, l := range labels {
		var s []byte
		s = protowire.AppendTag(s, 1, protowire.BytesType)
		s = protowire.AppendString(s, l)
		for _, e := range streams[l] {
			var ts, entry []byte
			ts = protowire.AppendTag(ts, 1, protowire.VarintType)
			ts = protowire.AppendVarint(ts, uint64(e.ts.Unix()))
			ts = protowire.AppendTag(ts, 2, protowire.VarintType)
			ts = protowire.AppendVarint(ts, uint64(e.ts.Nanosecond()))
			entry = protowire.AppendTag(entry, 1, protowire.BytesType)
			entry = protowire.AppendBytes(entry, ts)
			entry = protowire.AppendTag(entry, 2, protowire.BytesType)
			entry = protowire.AppendString(entry, e.line)
			s = protowire.AppendTag(s, 2, protowire.BytesType)
			s = protowire.AppendBytes(s, entry)
		}
		req = protowire.AppendTag(req, 1, protowire.BytesType)
		req = protowire.AppendBytes(req, s)
	}
	return snappy.Encode(nil, req)
}

type lokiEntry struct {
	ts   time.Time
	line string
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func TestLokiPush(t *testing.T) {
	t.Parallel()

	t.Run("JSONStoresEveryLineInTimeOrder", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// Two streams of one launch, interleaved in time, with structured
		// metadata of the shapes real clients send (numbers, objects).
		body := fmt.Sprintf(`{"streams":[
			{"stream":{"launch":"lk-json","server":"sglang","host":"gpu7","level":"info","team":"infra"},
			 "values":[["%d","line 1"],["%d","line 3",{"trace_id":"abc","n":3}]]},
			{"stream":{"launch":"lk-json","stream":"stderr"},
			 "values":[["%d","line 2",{}],["%d","line 4"]]}]}`,
			t0.UnixNano(), t0.Add(2*time.Millisecond).UnixNano(), t0.Add(time.Millisecond).UnixNano(), t0.Add(3*time.Millisecond).UnixNano())
		r := b.do("POST", "/loki/api/v1/push", "application/json; charset=utf-8", []byte(body), "X-Scope-OrgID", "t1")
		if r.status != http.StatusNoContent || len(r.body) != 0 {
			t.Fatalf("push: %d %q, want 204 and no body", r.status, r.body)
		}
		lines := b.lines("lk-json")
		if got, want := texts(lines), []string{"line 1", "line 2", "line 3", "line 4"}; !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
		if ts, _ := time.Parse(time.RFC3339Nano, lines[1].TS); !ts.Equal(t0.Add(time.Millisecond)) || lines[1].Stream != "stderr" {
			t.Errorf("line 2: ts %s stream %q, want the entry's timestamp %s and stderr", lines[1].TS, lines[1].Stream, t0.Add(time.Millisecond))
		}
		l := b.launch("lk-json")
		if l.Server != "sglang" || l.Host != "gpu7" || l.Labels["team"] != "infra" {
			t.Errorf("launch server %q host %q labels %v, want sglang, gpu7 and team=infra", l.Server, l.Host, l.Labels)
		}
	})

	t.Run("ProtobufRetriedStoresEachLineOnce", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// Label strings as Loki writes them and as winston-loki does.
		first := lokiProto(map[string][]lokiEntry{
			`{launch="lk-proto", job="vllm"}`:  {{t0, "alpha"}, {t0.Add(2 * time.Second), "gamma"}},
			`{level="info",launch="lk-proto"}`: {{t0.Add(time.Second), "beta"}},
		})
		for range 2 { // the client did not see the first answer and retries
			if r := b.do("POST", "/loki/api/v1/push", "application/x-protobuf", first); r.status != http.StatusNoContent {
				t.Fatalf("push: %d %s", r.status, r.body)
			}
		}
		// A later push repeating one entry, with a new line at the same
		// timestamp (kept: only same stream, time and text is a duplicate).
		second := lokiProto(map[string][]lokiEntry{
			`{launch="lk-proto", job="vllm"}`: {{t0.Add(2 * time.Second), "gamma"}, {t0.Add(2 * time.Second), "gamma 2"}, {t0.Add(3 * time.Second), "alpha"}},
		})
		if r := b.do("POST", "/loki/api/v1/push", "", second, "Content-Encoding", "snappy"); r.status != http.StatusNoContent {
			t.Fatalf("second push: %d %s", r.status, r.body)
		}
		lines := b.lines("lk-proto")
		if got, want := texts(lines), []string{"alpha", "beta", "gamma", "gamma 2", "alpha"}; !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
		for i, l := range lines {
			if l.Seq != int64(i+1) {
				t.Errorf("line %d has seq %d, want %d", i, l.Seq, i+1)
			}
		}
	})

	t.Run("ConfiguredLaunchLabel", func(t *testing.T) {
		t.Parallel()
		b := setupWith(t, web.Config{LokiLaunchLabel: "run_id"})
		body := fmt.Sprintf(`{"streams":[{"stream":{"run_id":"r-17","launch":"not-this"},"values":[["%d","x"]]}]}`, t0.UnixNano())
		if r := b.do("POST", "/loki/api/v1/push", "application/json", []byte(body)); r.status != http.StatusNoContent {
			t.Fatalf("push: %d %s", r.status, r.body)
		}
		if !b.exists("r-17") || b.exists("not-this") {
			t.Error("the push did not go to the launch named by the configured label")
		}
	})

	t.Run("GzipAndFallbackLabel", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		body := fmt.Sprintf(`{"streams":[{"stream":{"job":"varlogs/app"},"values":[["%d","via job"]]}]}`, t0.UnixNano())
		r := b.do("POST", "/loki/api/v1/push", "application/json", gzipped(body), "Content-Encoding", "gzip")
		if r.status != http.StatusNoContent {
			t.Fatalf("push: %d %s", r.status, r.body)
		}
		if got := texts(b.lines("varlogs_app")); !slices.Equal(got, []string{"via job"}) {
			t.Errorf("launch varlogs_app has %q, want the line (job label, / mapped to _)", got)
		}
	})
}

// otlpRequest builds an export request of one resource with the given
// attributes and one log record per body.
func otlpRequest(resource map[string]string, bodies ...string) plogotlp.ExportRequest {
	logs := plog.NewLogs()
	rl := logs.ResourceLogs().AppendEmpty()
	for k, v := range resource {
		rl.Resource().Attributes().PutStr(k, v)
	}
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("it")
	for i, body := range bodies {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(i) * time.Millisecond)))
		lr.SetSeverityNumber(plog.SeverityNumberWarn)
		lr.Body().SetStr(body)
		lr.SetTraceID(pcommon.TraceID{0x5b, 0x8e, 0xfb, 0xfb})
	}
	return plogotlp.NewExportRequestFromLogs(logs)
}

func TestOTLPLogs(t *testing.T) {
	t.Parallel()

	t.Run("ProtobufRetriedStoresEachRecordOnce", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		body, err := otlpRequest(map[string]string{"launchwatch.launch": "ot-proto", "host.name": "gpu3", "launchwatch.server": "vllm"},
			"one", "two", "three").MarshalProto()
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			r := b.do("POST", "/v1/logs", "application/x-protobuf", body)
			if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/x-protobuf" {
				t.Fatalf("export: %d %s %q", r.status, r.header.Get("Content-Type"), r.body)
			}
			resp := plogotlp.NewExportResponse()
			if err := resp.UnmarshalProto(r.body); err != nil || resp.PartialSuccess().RejectedLogRecords() != 0 {
				t.Fatalf("response %q: %v, rejected %d", r.body, err, resp.PartialSuccess().RejectedLogRecords())
			}
		}
		lines := b.lines("ot-proto")
		if got, want := texts(lines), []string{"one", "two", "three"}; !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q (stored once)", got, want)
		}
		if l := b.launch("ot-proto"); l.Host != "gpu3" || l.Server != "vllm" {
			t.Errorf("launch host %q server %q, want gpu3 and vllm", l.Host, l.Server)
		}
		r := b.do("GET", "/api/v1/launches/ot-proto/lines", "", nil)
		if !strings.Contains(string(r.body), `"level":"WARN"`) {
			t.Errorf("lines do not keep the severity: %s", r.body)
		}
	})

	t.Run("JSONGzipWithPartialSuccess", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// Spec JSON: hex trace ids, int64 as strings, enums as numbers, and
		// a resource without a launch, whose record is rejected alone.
		body := fmt.Sprintf(`{"resourceLogs":[
			{"resource":{"attributes":[{"key":"service.instance.id","value":{"stringValue":"ot-json"}}]},
			 "scopeLogs":[{"scope":{"name":"s"},"logRecords":[
				{"timeUnixNano":"%d","severityNumber":9,"body":{"stringValue":"hello"},"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174"},
				{"observedTimeUnixNano":%d,"body":{"stringValue":"observed only"},"attributes":[{"key":"n","value":{"intValue":"7"}}]}]}]},
			{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"nobody"}}]},
			 "scopeLogs":[{"logRecords":[{"body":{"stringValue":"orphan"}}]}]}]}`, t0.UnixNano(), t0.Add(time.Second).UnixNano())
		r := b.do("POST", "/otlp/v1/logs", "application/json", gzipped(body), "Content-Encoding", "gzip")
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("export: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
		}
		var resp struct {
			PartialSuccess struct {
				RejectedLogRecords json.Number `json:"rejectedLogRecords"`
				ErrorMessage       string      `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		if err := json.Unmarshal(r.body, &resp); err != nil || resp.PartialSuccess.RejectedLogRecords != "1" ||
			!strings.Contains(resp.PartialSuccess.ErrorMessage, "launchwatch.launch") {
			t.Fatalf("response %s (%v): want partial success rejecting 1 record and naming launchwatch.launch", r.body, err)
		}
		lines := b.lines("ot-json")
		if got, want := texts(lines), []string{"hello", "observed only"}; !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
		if ts, _ := time.Parse(time.RFC3339Nano, lines[1].TS); !ts.Equal(t0.Add(time.Second)) {
			t.Errorf("second line at %s, want its observed time %s", lines[1].TS, t0.Add(time.Second))
		}
	})
}

func TestNativeJSONArray(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Vector's default http sink body: an array of events with "message"
	// and "timestamp", no seq. A retry stores nothing twice.
	body := `[{"message":"first","timestamp":"2026-11-29T12:00:00.000001Z","host":"h"},
		{"message":"second","timestamp":"2026-11-29T12:00:00.000002Z"},
		{"log":"third","date":1795953600.5}]`
	for i, want := range []int{3, 0} {
		a := b.ack(b.do("POST", "/api/v1/launches/arr/lines", "application/json", []byte(body)))
		if a.Accepted != want || a.Duplicates != 3-want {
			t.Errorf("post %d: accepted %d duplicates %d, want %d and %d", i, a.Accepted, a.Duplicates, want, 3-want)
		}
	}
	lines := b.lines("arr")
	if got, want := texts(lines), []string{"first", "second", "third"}; !slices.Equal(got, want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	if ts, _ := time.Parse(time.RFC3339Nano, lines[2].TS); !ts.Equal(time.Unix(1795953600, 5e8)) {
		t.Errorf("third line at %s, want Fluent Bit's epoch-seconds date", lines[2].TS)
	}
	// With seqs the native rules hold: seq is the identity.
	a := b.ack(b.do("POST", "/api/v1/launches/arr-seq/lines", "application/json", []byte(`[{"seq":2,"line":"b"},{"seq":1,"line":"a"}]`)))
	if a.Accepted != 2 || a.LastSeq != 2 {
		t.Errorf("seq array: %+v, want 2 accepted, last seq 2", a)
	}
}

// TestShipperProtocolsRejectMalformedBodies checks that a malformed body
// of every protocol is a 4xx with a message, stores nothing, and is
// counted as a rejection.
func TestShipperProtocolsRejectMalformedBodies(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ns := fmt.Sprint(t0.UnixNano())
	tests := []struct {
		name, path, contentType string
		body                    []byte
		status                  int
		want                    string
	}{
		{"LokiJSONNotJSON", "/loki/api/v1/push", "application/json", []byte(`{"streams":[`), 400, "not a Loki JSON push"},
		{"LokiJSONNumberTimestamp", "/loki/api/v1/push", "application/json", []byte(`{"streams":[{"stream":{"launch":"bad"},"values":[[1570818238000000000,"x"]]}]}`), 400, "as a string"},
		{"LokiJSONShortEntry", "/loki/api/v1/push", "application/json", []byte(`{"streams":[{"stream":{"launch":"bad"},"values":[["` + ns + `"]]}]}`), 400, "values[0]"},
		{"LokiJSONNoLaunch", "/loki/api/v1/push", "application/json", []byte(`{"streams":[{"stream":{"app":"x"},"values":[["` + ns + `","x"]]}]}`), 400, "names no launch: add a"},
		{"LokiProtoNotSnappy", "/loki/api/v1/push", "application/x-protobuf", []byte("plain text, not snappy"), 400, "snappy"},
		{"LokiProtoBadMessage", "/loki/api/v1/push", "application/x-protobuf", snappy.Encode(nil, []byte{0x0a, 0xff, 0x01}), 400, "PushRequest"},
		{"LokiProtoBadLabels", "/loki/api/v1/push", "", lokiProto(map[string][]lokiEntry{`launch="bad"`: {{t0, "x"}}}), 400, "labels"},
		{"LokiProtoTimestampOutOfRange", "/loki/api/v1/push", "application/x-protobuf", lokiProto(map[string][]lokiEntry{`{launch="bad"}`: {{time.Unix(1<<40, 0), "x"}}}), 400, "out of range"},
		{"LokiBadEncoding", "/loki/api/v1/push", "application/json", []byte("x"), 415, "Content-Encoding"},
		{"OTLPProtoGarbage", "/v1/logs", "application/x-protobuf", []byte{0x0a, 0xff, 0xff, 0xff, 0x0f}, 400, "ExportLogsServiceRequest"},
		{"OTLPJSONNotJSON", "/v1/logs", "application/json", []byte(`{"resourceLogs":[{`), 400, "ExportLogsServiceRequest"},
		{"OTLPUnsupportedType", "/v1/logs", "text/plain", []byte("x"), 415, "application/x-protobuf"},
		{"NativeJSONNotArray", "/api/v1/launches/bad/lines", "application/json", []byte(`[{"line":"a"},`), 400, "JSON array"},
		{"NativeJSONMixedSeq", "/api/v1/launches/bad/lines", "application/json", []byte(`[{"seq":1,"line":"a"},{"line":"b"}]`), 400, "element 1"},
		{"NativeJSONNoText", "/api/v1/launches/bad/lines", "application/json", []byte(`[{"ts":"2026-11-29T12:00:00Z"}]`), 400, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := []string{}
			if tt.name == "LokiBadEncoding" {
				headers = []string{"Content-Encoding", "br"}
			}
			r := b.do("POST", tt.path, tt.contentType, tt.body, headers...)
			if r.status != tt.status || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("got %d %s, want %d with %q", r.status, r.body, tt.status, tt.want)
			}
		})
	}
	if b.exists("bad") {
		t.Error("a rejected batch created its launch")
	}
	// The OTLP protobuf error is a google.rpc.Status: code 3, the message.
	r := b.do("POST", "/v1/logs", "application/x-protobuf", []byte{0x0a, 0xff, 0xff, 0xff, 0x0f})
	if r.header.Get("Content-Type") != "application/x-protobuf" || len(r.body) < 2 || r.body[0] != 0x08 || r.body[1] != 3 {
		t.Errorf("OTLP protobuf error: %s %x, want a google.rpc.Status with code 3", r.header.Get("Content-Type"), r.body)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/m1/lines?seq=1", "Traceback (most recent call last):\n  File \"x.py\", line 1\nRuntimeError: CUDA error: out of memory\n")
	push := fmt.Sprintf(`{"streams":[{"stream":{"launch":"m2"},"values":[["%d","a"],["%d","b"]]}]}`, t0.UnixNano(), t0.Add(1).UnixNano())
	for range 2 {
		b.do("POST", "/loki/api/v1/push", "application/json", []byte(push))
	}
	b.do("POST", "/loki/api/v1/push", "application/json", []byte("{"))
	body, _ := otlpRequest(map[string]string{"launchwatch.launch": "m3"}, "x").MarshalProto()
	b.do("POST", "/v1/logs", "application/x-protobuf", body)

	if r := b.do("GET", "/metrics", "", nil, "Authorization", ""); r.status != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d, want 401", r.status)
	}
	if r := b.do("GET", "/metrics", "", nil, "Authorization", "Bearer "+b.srv.NewToken(t, "ingest")); r.status != http.StatusForbidden {
		t.Errorf("/metrics with an ingest token: %d, want 403", r.status)
	}
	req, _ := http.NewRequest("GET", b.url+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+b.srv.NewToken(t, "read"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %s", res.StatusCode, text)
	}
	for _, want := range []string{
		`launchwatch_ingest_lines_total{protocol="native"} 3`,
		`launchwatch_ingest_lines_total{protocol="loki"} 2`,
		`launchwatch_ingest_duplicate_lines_total{protocol="loki"} 2`,
		`launchwatch_ingest_lines_total{protocol="otlp"} 1`,
		`launchwatch_ingest_batches_total{protocol="loki"} 2`,
		`launchwatch_ingest_rejections_total{protocol="loki",reason="invalid"} 1`,
		`launchwatch_ingest_duration_seconds_count{protocol="loki"} 3`,
		`launchwatch_ingest_bytes_total{protocol="otlp"} ` + fmt.Sprint(len(body)),
		`launchwatch_alarms{kind=`,
		`launchwatch_live_clients 0`,
		`launchwatch_db_pool_total_connections`,
		`launchwatch_db_pool_acquires_total`,
	} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", text)
	}
}

// TestIngestOverload: beyond the configured number of ingest requests in
// flight, a shipper is told 429 with Retry-After, and nothing is lost: the
// request holding the slot completes.
func TestIngestOverload(t *testing.T) {
	t.Parallel()
	b := setupWith(t, web.Config{MaxConcurrentIngest: 1})
	push := func(launch, line string) []byte {
		return fmt.Appendf(nil, `{"streams":[{"stream":{"launch":%q},"values":[["%d",%q]]}]}`, launch, t0.UnixNano(), line)
	}
	if r := b.do("POST", "/loki/api/v1/push", "application/json", push("held", "first")); r.status != http.StatusNoContent {
		t.Fatalf("first push: %d %s", r.status, r.body)
	}
	// A push that waits for the launch's row lock holds the only slot: a
	// slot is held while a batch is stored, not while its body arrives.
	ctx := context.Background()
	tx, err := b.store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // committed below
	if _, err := tx.Exec(ctx, `SELECT 1 FROM launches WHERE key = 'held' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	go func() {
		req, _ := http.NewRequest("POST", b.url+"/loki/api/v1/push", bytes.NewReader(push("held", "held")))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(authorize(req))
		if err != nil {
			done <- 0
			return
		}
		res.Body.Close()
		done <- res.StatusCode
	}()
	// The held push has its slot once its transaction waits for the row
	// lock: then, and only then, another push finds no slot.
	waitFor(t, 10*time.Second, "the held push to wait for the launch's row lock", func() bool {
		var waiting int
		err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		return err == nil && waiting > 0
	})
	r := b.do("POST", "/loki/api/v1/push", "application/json", []byte(`{"streams":[]}`))
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("while the slot is held: %d %s (Retry-After %q), want 429 with Retry-After", r.status, r.body, r.header.Get("Retry-After"))
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if status := <-done; status != http.StatusNoContent {
		t.Fatalf("the held push answered %d, want 204", status)
	}
	if got := texts(b.lines("held")); !slices.Equal(got, []string{"first", "held"}) {
		t.Errorf("held launch has %q", got)
	}
	if v := b.metricValue(`launchwatch_ingest_rejections_total{protocol="loki",reason="overloaded"}`); v < 1 {
		t.Errorf("overload rejections: %v, want at least 1", v)
	}
}
