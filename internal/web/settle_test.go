package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// Made-up lines of a launch whose weight download fails once.
const (
	settleLoading   = "INFO 04-02 09:28:20 [loader.py:88] Loading weights took 4.20 seconds\n"
	settleTraceback = "Traceback (most recent call last):\n" +
		"  File \"/srv/fetch.py\", line 41, in fetch\n" +
		"    blob = store.get(name)\n"
	settleFinal = "RuntimeError: shard store at 10.1.2.3:9000 refused the connection\n"
	settleRetry = "Retrying in 2 seconds (attempt 1/5)\n"
	settleReady = "INFO:     Application startup complete.\n"
)

// settleBundle is a server whose ingest and settler run on a fake clock.
type settleBundle struct {
	*testBundle
	srv   *webtest.Server
	clock *clock.Fake
}

func setupSettle(t *testing.T) *settleBundle {
	t.Helper()
	// The fake clock starts at the wall clock's time so that silence
	// (judged on the wall clock) is not mistaken.
	fake := clock.NewFake(time.Now())
	srv := webtest.Start(t, web.Config{}, webtest.WithClock(fake))
	return &settleBundle{testBundle: &testBundle{t: t, url: srv.URL, store: srv.Store}, srv: srv, clock: fake}
}

// settleView is what the settle tests read of a launch.
type settleView struct {
	Status   string `json:"status"`
	Settling bool   `json:"settling"`
	Alarms   []struct {
		No       int    `json:"no"`
		Fatal    bool   `json:"fatal"`
		Headline string `json:"headline"`
		Settled  bool   `json:"settled"`
	} `json:"alarms"`
}

// now reads a launch at once (?wait=0), as a live page does.
func (b *settleBundle) now(key string) settleView {
	b.t.Helper()
	return b.get("/api/v1/launches/" + key + "?wait=0")
}

func (b *settleBundle) get(path string) settleView {
	b.t.Helper()
	r := b.do("GET", path, "", nil)
	if r.status != http.StatusOK {
		b.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	var v settleView
	if err := json.Unmarshal(r.body, &v); err != nil {
		b.t.Fatal(err)
	}
	return v
}

// untilSettled waits for the settler's NOTIFY of key and returns the launch
// once it is no longer settling; a test fails after 10 s of nothing.
func (b *settleBundle) untilSettled(key string, wake <-chan struct{}) settleView {
	b.t.Helper()
	for {
		if v := b.now(key); !v.Settling {
			return v
		}
		select {
		case <-wake:
		case <-time.After(10 * time.Second):
			b.t.Fatalf("launch %s still settling: %+v", key, b.now(key))
		}
	}
}

func TestSettle(t *testing.T) {
	t.Parallel()

	t.Run("UnsettledTracebackLeavesTheStatusUntilTheSettlerSettlesIt", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		b.postText("/api/v1/launches/s1/lines?server=vllm", settleLoading)
		ack := b.postText("/api/v1/launches/s1/lines", settleTraceback+settleFinal)
		if ack.Status == "alarm" || !ack.Settling {
			t.Fatalf("ack of the traceback: status %q settling %v, want not alarm and settling", ack.Status, ack.Settling)
		}
		v := b.now("s1")
		if v.Status == "alarm" || !v.Settling || len(v.Alarms) != 1 || !v.Alarms[0].Fatal || v.Alarms[0].Settled {
			t.Fatalf("before the deadline: %+v; want the fatal alarm shown unsettled and the status unchanged", v)
		}
		sub := b.srv.Hub.Subscribe("s1")
		defer b.srv.Hub.Unsubscribe(sub)
		b.clock.Advance(2 * time.Second)
		v = b.untilSettled("s1", sub.Wake())
		if v.Status != "alarm" || len(v.Alarms) != 1 || !v.Alarms[0].Settled || v.Alarms[0].Headline != "RuntimeError: shard store at 10.1.2.3:9000 refused the connection" {
			t.Errorf("after the deadline: %+v; want alarm with the settled final exception line", v)
		}
	})

	t.Run("ANewBatchMovesTheDeadline", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		// The traceback's frames, then 1.5 s later its final line: the
		// event is still open, and the deadline moves with the last batch.
		b.postText("/api/v1/launches/s2/lines?server=vllm", settleLoading+settleTraceback)
		b.clock.Advance(1500 * time.Millisecond)
		b.postText("/api/v1/launches/s2/lines", settleFinal)
		b.clock.Advance(time.Second) // past the first deadline, not the moved one
		sub := b.srv.Hub.Subscribe("s2")
		defer b.srv.Hub.Unsubscribe(sub)
		if v := b.now("s2"); v.Status == "alarm" || !v.Settling {
			t.Fatalf("2.5 s after the traceback, 1 s after the next batch: %+v; want still settling", v)
		}
		b.clock.Advance(time.Second)
		if v := b.untilSettled("s2", sub.Wake()); v.Status != "alarm" {
			t.Errorf("after the moved deadline: %+v, want alarm", v)
		}
	})

	t.Run("ARetryInTheNextBatchMeansTheStatusIsNeverAlarm", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		var seen []string
		for _, batch := range []string{settleLoading, settleTraceback, settleFinal, settleRetry, settleReady} {
			ack := b.postText("/api/v1/launches/s3/lines?server=vllm", batch)
			seen = append(seen, ack.Status, b.now("s3").Status)
		}
		b.clock.Advance(10 * time.Second)
		v := b.get("/api/v1/launches/s3")
		seen = append(seen, v.Status)
		for _, s := range seen {
			if s == "alarm" || s == "crashed" {
				t.Fatalf("statuses %q: the withdrawn traceback showed as a verdict", seen)
			}
		}
		if v.Status != "ready" || v.Settling || len(v.Alarms) != 0 {
			t.Errorf("final %+v, want ready with no alarm", v)
		}
	})

	t.Run("AReaderRightAfterTheLastBatchGetsTheSettledStatus", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		b.postText("/api/v1/launches/s4/lines?server=vllm", settleLoading+settleTraceback+settleFinal)
		got := make(chan settleView, 1)
		waiting := b.clock.Waiting()
		go func() { got <- b.get("/api/v1/launches/s4") }()
		<-waiting // the reader (or the settler) waits on the clock now
		select {
		case v := <-got:
			if v.Status != "alarm" {
				t.Fatalf("answered %+v before the deadline; want it to wait for the settled status", v)
			}
		default:
		}
		b.clock.Advance(2 * time.Second)
		if v := <-got; v.Status != "alarm" || v.Settling || !v.Alarms[0].Settled {
			t.Errorf("GET after the last batch: %+v, want the settled alarm", v)
		}
	})

	t.Run("AnExitReportSettlesAtOnce", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		b.postText("/api/v1/launches/s5/lines?server=vllm", settleLoading+settleTraceback+settleFinal)
		b.report("/api/v1/launches/s5/exit", `{"code": 1}`, "crashed")
		v := b.now("s5")
		if v.Status != "crashed" || v.Settling || len(v.Alarms) != 1 || !v.Alarms[0].Settled {
			t.Errorf("after the exit report: %+v, want crashed with the alarm settled and nothing settling", v)
		}
	})

	t.Run("ANetworkTracebackCutByABatchWaitsForItsNextLine", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		// A batch ends inside the traceback of a retried download: the
		// answer keeps the status (no alarm yet, nothing to wait for), the
		// settler leaves it alone, and the retry line withdraws it.
		netFrames := "Traceback (most recent call last):\n" +
			"  File \"/opt/venv/lib/python3.11/site-packages/httpx/_transports/default.py\", line 72, in map_httpcore_exceptions\n" +
			"    yield\n"
		ack := b.postText("/api/v1/launches/s8/lines?server=vllm", settleLoading+netFrames)
		if ack.Status == "" || ack.Status == "alarm" || !ack.Settling {
			t.Fatalf("ack inside a network traceback: status %q settling %v, want a status that is not alarm, and settling", ack.Status, ack.Settling)
		}
		sub := b.srv.Hub.Subscribe("s8")
		defer b.srv.Hub.Unsubscribe(sub)
		b.clock.Advance(2 * time.Second)
		v := b.untilSettled("s8", sub.Wake())
		if v.Status == "alarm" || len(v.Alarms) != 1 || v.Alarms[0].Settled {
			t.Fatalf("after the settler: %+v, want the alarm still unsettled and no alarm status", v)
		}
		ack = b.postText("/api/v1/launches/s8/lines", "httpx.ReadTimeout: The read operation timed out\n"+settleRetry+settleReady)
		if v := b.now("s8"); ack.Status != "ready" || v.Status != "ready" || len(v.Alarms) != 0 {
			t.Errorf("after the retry: ack %q, launch %+v; want ready with no alarm", ack.Status, v)
		}

		// The stream's end as a reader sees it after the bound counts it.
		ack = b.postText("/api/v1/launches/s9/lines?server=vllm", settleLoading+netFrames+"httpx.ReadTimeout: The read operation timed out\n")
		if ack.Status == "" || ack.Status == "alarm" {
			t.Fatalf("ack after the network exception: status %q, want one that is not alarm", ack.Status)
		}
		sub9 := b.srv.Hub.Subscribe("s9")
		defer b.srv.Hub.Unsubscribe(sub9)
		b.clock.Advance(2 * time.Second)
		b.untilSettled("s9", sub9.Wake())
		if v := b.get("/api/v1/launches/s9"); v.Status != "alarm" || len(v.Alarms) != 1 || !v.Alarms[0].Settled {
			t.Errorf("a reader after the bound: %+v, want the alarm settled and the status alarm", v)
		}
	})

	t.Run("ALaunchThatGoesQuietAfterItsFailureEndsItsStream", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		// A trailing ERROR run waits for the stream's end: the settler
		// leaves it alone at the bound, and counts it once the launch went
		// unheard for the stream-end bound (a reader need not ask).
		b.postText("/api/v1/launches/q1/lines?server=vllm", settleLoading+
			"ERROR 04-02 09:28:21 [loader.py:90] Failed to open shard 3 of 8: checksum mismatch\n")
		sub := b.srv.Hub.Subscribe("q1")
		defer b.srv.Hub.Unsubscribe(sub)
		b.clock.Advance(2 * time.Second)
		if v := b.untilSettled("q1", sub.Wake()); v.Status == "alarm" || len(v.Alarms) != 0 {
			t.Fatalf("at the settle bound: %+v, want no alarm yet", v)
		}
		b.clock.Advance(pipeline.DefaultStreamEndAfter)
		for {
			v := b.now("q1")
			if v.Status == "alarm" {
				if len(v.Alarms) != 1 || !v.Alarms[0].Settled || !strings.Contains(v.Alarms[0].Headline, "checksum mismatch") {
					t.Errorf("after the stream's end: %+v, want the ERROR run as one settled alarm", v)
				}
				break
			}
			select {
			case <-sub.Wake():
			case <-time.After(10 * time.Second):
				t.Fatalf("unheard for the stream-end bound: %+v, want alarm", v)
			}
		}
	})

	t.Run("ABatchWithTheReadyLineAndALaterCrashIsShownReadyFirst", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		// Line by line, the launch would have been ready before it crashed:
		// the batch that brings both is answered ready (wait exits 0 as it
		// would have), and the launch turns alarm at the settle bound.
		ack := b.postText("/api/v1/launches/rc/lines?server=vllm", settleLoading+settleReady+
			"INFO:     10.0.0.7:51234 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"+
			"!!!!!!! Segfault encountered !!!!!!!\nFatal Python error: Segmentation fault\n\nCurrent thread 0x00007f0000000001 (most recent call first):\n"+
			"  File \"/srv/engine.py\", line 12 in step\n"+"INFO 04-02 09:28:40 [loader.py:88] worker 3 exited\n")
		if ack.Status != "ready" || !ack.Settling {
			t.Fatalf("ack of the batch: status %q settling %v, want ready and settling", ack.Status, ack.Settling)
		}
		sub := b.srv.Hub.Subscribe("rc")
		defer b.srv.Hub.Unsubscribe(sub)
		b.clock.Advance(2 * time.Second)
		if v := b.untilSettled("rc", sub.Wake()); v.Status != "alarm" || len(v.Alarms) != 1 || !v.Alarms[0].Fatal {
			t.Errorf("after the bound: %+v, want alarm with the fatal alarm", v)
		}
	})

	t.Run("AStartupLineWaitsForItsBind", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		// uvicorn logs "Application startup complete." before it binds:
		// until the bind's line, an answered request or a quiet stream, the
		// launch is not ready, so a bind failure on the next line never
		// showed as readiness.
		startup := "INFO:     Started server process [4242]\nINFO:     Waiting for application startup.\nINFO:     Application startup complete.\n"
		if ack := b.postText("/api/v1/launches/u1/lines?server=lmdeploy", startup); ack.Status == "ready" {
			t.Fatalf("after uvicorn's startup line: status %q, want not ready until it bound", ack.Status)
		}
		b.postText("/api/v1/launches/u1/lines",
			"ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 23333): address already in use\nINFO:     Waiting for application shutdown.\n")
		sub := b.srv.Hub.Subscribe("u1")
		defer b.srv.Hub.Unsubscribe(sub)
		b.clock.Advance(2 * time.Second)
		if v := b.untilSettled("u1", sub.Wake()); v.Status != "alarm" || len(v.Alarms) != 1 || !v.Alarms[0].Fatal {
			t.Fatalf("after the bind failure: %+v, want alarm with one fatal alarm", v)
		}
		var l struct {
			ReadySeq *int64 `json:"ready_seq"`
		}
		r := b.do("GET", "/api/v1/launches/u1?wait=0", "", nil)
		if err := json.Unmarshal(r.body, &l); err != nil || l.ReadySeq != nil {
			t.Errorf("ready_seq %v (%v), want none: the server never served", l.ReadySeq, err)
		}

		// The same startup with nothing after it: a reader after the
		// settle bound is told the stream's end, and the bind succeeded.
		b.postText("/api/v1/launches/u2/lines?server=lmdeploy", startup)
		b.clock.Advance(2 * time.Second)
		r = b.do("GET", "/api/v1/launches/u2", "", nil)
		var quiet struct {
			Status   string `json:"status"`
			ReadySeq *int64 `json:"ready_seq"`
		}
		if err := json.Unmarshal(r.body, &quiet); err != nil || quiet.Status != "ready" || quiet.ReadySeq == nil || *quiet.ReadySeq != 3 {
			t.Errorf("a quiet launch after its startup line: %s (%v), want ready at line 3", r.body, err)
		}
	})

	t.Run("WaitZeroAndBadWait", func(t *testing.T) {
		t.Parallel()
		b := setupSettle(t)
		b.postText("/api/v1/launches/s7/lines?server=vllm", settleTraceback+settleFinal)
		if v := b.now("s7"); !v.Settling {
			t.Errorf("?wait=0: %+v, want settling", v)
		}
		if r := b.do("GET", "/api/v1/launches/s7?wait=2", "", nil); r.status != http.StatusBadRequest {
			t.Errorf("?wait=2: %d %s, want 400", r.status, r.body)
		}
	})
}
