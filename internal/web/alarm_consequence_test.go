package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchwatch/internal/review"
)

// engineThenAPIServerLog is a launch whose engine fails to start and whose
// API server then reports it: two events, the second a consequence.
const engineThenAPIServerLog = `(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1] EngineCore failed to start.
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1] Traceback (most recent call last):
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1]   File "/x/core.py", line 70, in __init__
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1]     self._init_kv_cache()
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1] ValueError: No available memory for the cache blocks. Try increasing gpu_memory_utilization.
(APIServer pid=8) Traceback (most recent call last):
(APIServer pid=8)   File "/x/bin/vllm", line 8, in <module>
(APIServer pid=8)     sys.exit(main())
(APIServer pid=8) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
(APIServer pid=8) INFO 06-01 12:00:01 [launcher.py:1] Shutting down FastAPI HTTP server.
`

// A consequence is linked to its root cause in the API and on the page, and
// a decision on the root cause decides it too.
func TestConsequenceIsDecidedWithItsCause(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/eng-1/lines?server=vllm", engineThenAPIServerLog)

	r := b.do("GET", "/api/v1/launches/eng-1", "", nil)
	var l struct {
		Alarms []struct {
			No    int  `json:"no"`
			Cause *int `json:"cause"`
		} `json:"alarms"`
	}
	if err := json.Unmarshal(r.body, &l); err != nil || len(l.Alarms) != 2 {
		t.Fatalf("launch: %v %s", err, r.body)
	}
	if l.Alarms[0].Cause != nil || l.Alarms[1].Cause == nil || *l.Alarms[1].Cause != 1 {
		t.Fatalf("causes: %s, want alarm 2 caused by alarm 1", r.body)
	}
	doc := b.page("/launches/eng-1", 200)
	if c := doc.Find(`#alarm-2 [data-testid="alarm-cause"]`); c.Length() != 1 || !strings.Contains(c.Text(), "alarm 1") {
		t.Errorf("the consequence's card does not name its cause: %q", c.Text())
	}

	res := b.postForm("/launches/eng-1/alarms/1/decide", url.Values{"verdict": {"confirm"}, "reason": {"KV cache too small"}}, false)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirm: %d", res.StatusCode)
	}
	a := b.alarm("eng-1", 2)
	if a.State != "confirmed" || a.DecidedBy == nil || *a.DecidedBy != "ada" || a.Reason == nil || *a.Reason != "with alarm 1: KV cache too small" {
		t.Errorf("consequence after confirming its cause: %+v", a)
	}
	audit, err := b.store.AuditFor(context.Background(), review.Subject("eng-1", 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(audit) != 1 || audit[0].Action != "alarm.confirm" || audit[0].Actor != "ada" {
		t.Errorf("audit of the consequence: %+v", audit)
	}
}
