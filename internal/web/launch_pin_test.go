package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchwatch/internal/store"
)

// TestLaunchPin pins and unpins a launch through the API (a review token)
// and the page's toggle (the admin's session): the page says who pinned
// it, each change is audited once, and an unknown launch is a 404.
func TestLaunchPin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.postText("/api/v1/launches/pin-1/lines", "INFO one line\n")
	reviewer := b.srv.NewToken(t, "review")

	got := b.apiJSON("POST", "/api/v1/launches/pin-1/pin", reviewer, "", 200)
	if got["pinned"] != true || got["launch"] != "pin-1" {
		t.Fatalf("pin answer %v", got)
	}
	b.apiJSON("POST", "/api/v1/launches/pin-1/pin", reviewer, "", 200) // again: no change
	l, err := b.store.LaunchByKey(ctx, "pin-1")
	if err != nil {
		t.Fatal(err)
	}
	pin, err := b.store.LaunchPin(ctx, l.ID)
	if err != nil || !pin.Pinned || !strings.HasPrefix(pin.By, "token:review-") {
		t.Fatalf("pin %+v %v, want pinned by the review token", pin, err)
	}
	page := string(b.do("GET", "/launches/pin-1", "", nil).body)
	if !strings.Contains(page, `data-testid="pinned"`) || !strings.Contains(page, `data-testid="unpin"`) {
		t.Error("the page of a pinned launch does not say so or offers no unpin")
	}

	res := b.postForm("/launches/pin-1/pin", url.Values{"pinned": {"false"}}, false)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unpin form: %d, want 303", res.StatusCode)
	}
	if pin, _ := b.store.LaunchPin(ctx, l.ID); pin.Pinned {
		t.Error("still pinned after the unpin form")
	}
	if res := b.postForm("/launches/pin-1/pin", url.Values{"pinned": {"maybe"}}, false); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("pin form with pinned=maybe: %d, want 422", res.StatusCode)
	}
	events, err := b.store.AuditFor(ctx, store.LaunchSubject("pin-1"))
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range events {
		actions = append(actions, e.Action+" by "+e.Actor)
	}
	if len(actions) != 2 || !strings.HasPrefix(actions[0], "launch.pin by token:review-") || actions[1] != "launch.unpin by ada" {
		t.Errorf("audit %q, want one pin by the token and one unpin by ada", actions)
	}
	if r := b.do("POST", "/api/v1/launches/pin-none/unpin", "", nil); r.status != http.StatusNotFound {
		t.Errorf("unpin of an unknown launch: %d, want 404", r.status)
	}
}
