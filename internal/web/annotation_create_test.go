package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestAnnotationCreate(t *testing.T) {
	t.Parallel()

	t.Run("NoteAtALineShowsOnPageAndTimeline", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		res := b.postForm("/launches/crash-1/annotations",
			url.Values{"seq": {"7"}, "body": {"graph capture <starts> here"}}, false)
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/launches/crash-1#note-") {
			t.Fatalf("add note: %d %q", res.StatusCode, res.Header.Get("Location"))
		}
		doc := b.page("/launches/crash-1", 200)
		note := testid(doc, "note")
		if note.Length() != 1 || !strings.Contains(note.Text(), "graph capture <starts> here") || !strings.Contains(note.Text(), "line 7") {
			t.Errorf("note %q", note.Text())
		}
		mark := testid(doc, "timeline-note")
		if mark.Length() != 1 || !strings.Contains(mark.Text(), "ada: graph capture") {
			t.Errorf("timeline note marker: %d %q", mark.Length(), mark.Text())
		}
		res = b.postForm("/launches/crash-1/annotations", url.Values{"body": {" "}}, false)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(readBody(t, res), "write a note") {
			t.Errorf("empty note: %d", res.StatusCode)
		}
	})
}
