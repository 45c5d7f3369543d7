package web_test

import (
	"slices"
	"testing"
)

// An unknown server that announces where it listens, after loading its
// model, is ready, and the launch JSON lists the address; a launch that
// announced nothing lists none (an empty array, not null).
func TestLaunchEndpoints(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/ep-1/lines?seq=1", "acme-serve 0.4 starting\n"+
		"Loading model acme-3b from /models/acme-3b\n"+
		"Loaded acme-3b in 4.1 s\n"+
		"server listen http://0.0.0.0:7070\n")
	l := b.launch("ep-1")
	if l.Status != "ready" || l.ReadySeq == nil || *l.ReadySeq != 4 {
		t.Fatalf("status %q ready_seq %v, want ready at 4", l.Status, l.ReadySeq)
	}
	if l.Endpoints == nil || !slices.Equal(*l.Endpoints, []string{"http://0.0.0.0:7070"}) {
		t.Fatalf("endpoints = %v", l.Endpoints)
	}

	b.postText("/api/v1/launches/ep-2/lines?seq=1", "acme-serve 0.4 starting\n")
	l = b.launch("ep-2")
	if l.Status == "ready" || l.Endpoints == nil || len(*l.Endpoints) != 0 {
		t.Fatalf("status %q endpoints %v, want not ready and []", l.Status, l.Endpoints)
	}
}
