package web_test

import (
	"net/http"
	"strconv"
	"testing"
)

// TestLaunchVolume: the histogram counts every line of the launch once (or
// of the zoom's range), and a malformed range or an unknown launch is a
// 4xx, never a 500.
func TestLaunchVolume(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
	count := func(path string) (lines, errs int) {
		t.Helper()
		doc := b.page(path, http.StatusOK)
		for _, bar := range testid(doc, "volume-bar").EachIter() {
			n, _ := strconv.Atoi(bar.AttrOr("data-lines", ""))
			e, _ := strconv.Atoi(bar.AttrOr("data-errors", ""))
			lines, errs = lines+n, errs+e
		}
		return lines, errs
	}
	if lines, errs := count("/launches/crash-1/volume"); lines != 13 || errs != 6 {
		t.Errorf("whole launch: %d lines, %d errors; want 13 and 6", lines, errs)
	}
	// From 40 s on: the weights' end, the capture's begin and the traceback.
	if lines, errs := count("/launches/crash-1/volume?from=40&to=91"); lines != 8 || errs != 6 {
		t.Errorf("zoomed: %d lines, %d errors; want 8 and 6", lines, errs)
	}
	for path, want := range map[string]int{
		"/launches/crash-1/volume?from=soon":       http.StatusBadRequest,
		"/launches/crash-1/volume?from=90&to=10":   http.StatusBadRequest,
		"/launches/crash-1/volume?from=-1":         http.StatusBadRequest,
		"/launches/nobody/volume":                  http.StatusNotFound,
		"/launches/crash-1/volume?from=1e8&to=2e8": http.StatusOK, // beyond the launch: all of it
	} {
		if r := b.do("GET", path, "", nil); r.status != want {
			t.Errorf("GET %s: %d, want %d", path, r.status, want)
		}
	}
}
