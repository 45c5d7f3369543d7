package web_test

import (
	"context"
	"encoding/json"
	"testing"
)

// A launch whose saved classifier state cannot be read (written by an older
// classifier) is classified again from its lines by its next batch. A
// retried batch (every line a duplicate, as after a 503 during a deploy)
// instead saved a new, empty state over it: the launch lost its phase and
// progress until another line arrived.
func TestIngestRetryAfterUnreadableStateKeepsThePhase(t *testing.T) {
	t.Parallel()
	b := setup(t)
	batch := "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n" +
		"Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:03,  1.10s/it]\n"
	b.postText("/api/v1/launches/upgraded/lines?seq=1&server=sglang", batch)
	before := b.launchRaw("upgraded")
	if before["phase"] == "" || before["progress"] == nil {
		t.Fatalf("the test log puts the launch in no phase: %v", before)
	}
	if _, err := b.store.Pool().Exec(context.Background(),
		`UPDATE launches SET classifier_state = '\x7b7d7b'::bytea WHERE key = 'upgraded'`); err != nil {
		t.Fatal(err)
	}
	if ack := b.postText("/api/v1/launches/upgraded/lines?seq=1&server=sglang", batch); ack.Duplicates != 2 {
		t.Fatalf("retry ack = %+v, want 2 duplicates", ack)
	}
	after := b.launchRaw("upgraded")
	for _, k := range []string{"status", "phase", "progress"} {
		if a, w := jsonText(after[k]), jsonText(before[k]); a != w {
			t.Errorf("%s = %s after the retry, want %s", k, a, w)
		}
	}
}

func (b *testBundle) launchRaw(key string) map[string]any {
	b.t.Helper()
	r := b.do("GET", "/api/v1/launches/"+key, "", nil)
	var m map[string]any
	if r.status != 200 || json.Unmarshal(r.body, &m) != nil {
		b.t.Fatalf("GET launch %s: %d %s", key, r.status, r.body)
	}
	return m
}

func jsonText(v any) string {
	s, _ := json.Marshal(v)
	return string(s)
}
