package classify

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"launchwatch/internal/corpustest"
)

func result(fb *feedBuf) Result {
	var r Result
	fb.resultInto(&r)
	return r
}

// TestResultPutsRevisionsFirst checks the three ways a Feed's verdicts and
// its revisions of earlier lines become one list by seq: in the room left
// in front of the verdicts, in a new list when they do not fit, and sorted
// together when a revision is not of an earlier line.
func TestResultPutsRevisionsFirst(t *testing.T) {
	feed := func(revisions ...int64) (*feedBuf, []LineVerdict) {
		fb := &feedBuf{}
		fb.reserve(16) // room for 2
		for seq := int64(10); seq < 26; seq++ {
			fb.add(LineVerdict{Seq: seq, Kind: KindPlain})
		}
		for _, seq := range revisions {
			fb.revise(LineVerdict{Seq: seq, Kind: KindError})
		}
		return fb, result(fb).Lines
	}
	seqs := func(vs []LineVerdict) []int64 {
		var out []int64
		for _, v := range vs {
			out = append(out, v.Seq)
		}
		return out
	}
	want := func(revisions ...int64) []int64 {
		out := slices.Clone(revisions)
		for seq := int64(10); seq < 26; seq++ {
			if !slices.Contains(out, seq) {
				out = append(out, seq)
			}
		}
		slices.Sort(out)
		return out
	}
	fb, got := feed(7, 3)
	if !slices.Equal(seqs(got), want(7, 3)) || &got[0] != &fb.mem.verdicts[:1][0] {
		t.Fatalf("two revisions: %v (in the room: %v)", seqs(got), &got[0] == &fb.mem.verdicts[:1][0])
	}
	if got[0].Kind != KindError || got[2].Kind != KindPlain {
		t.Fatalf("two revisions: kinds %v %v", got[0].Kind, got[2].Kind)
	}
	if _, got := feed(9, 1, 5); !slices.Equal(seqs(got), want(9, 1, 5)) {
		t.Fatalf("three revisions: %v", seqs(got))
	}
	// A revision of this call's own line is made in place, not added.
	if _, got := feed(12, 4); !slices.Equal(seqs(got), want(4)) || got[3].Kind != KindError {
		t.Fatalf("a revision of an own line: %v", seqs(got))
	}
	// Not expected from Feed, but still sorted: a revision after the first
	// line that is not one of this call's (revise puts it aside).
	fb = &feedBuf{}
	fb.reserve(16)
	fb.add(LineVerdict{Seq: 10})
	fb.add(LineVerdict{Seq: 30})
	fb.revise(LineVerdict{Seq: 20})
	fb.revise(LineVerdict{Seq: 2})
	if got := seqs(result(fb).Lines); !slices.Equal(got, []int64{2, 10, 20, 30}) {
		t.Fatalf("a revision between this call's lines: %v", got)
	}
}

// TestFeedIntoIsFeed checks that FeedInto, reusing one Result for every
// call, gives each call the Result Feed gives, and that it does reuse its
// memory: the corpus and the families logs, one after the other through
// two States in batches of 500 lines (the tail of each log in a small
// batch, so that a call finds a buffer larger than it needs).
func TestFeedIntoIsFeed(t *testing.T) {
	feed, into := New(""), New("")
	var r Result
	var seq int64
	reused, calls := 0, 0
	lines := corpustest.Lines(t, "../../testdata/families")
	for start := 0; start < len(lines); {
		end := min(len(lines), start+500)
		if i := slices.IndexFunc(lines[start:end], func(l string) bool { return strings.HasPrefix(l, "Traceback") }); i > 0 {
			end = start + i + 1 // a call that ends in a traceback, revised by the next
		}
		batch := make([]Line, 0, end-start)
		for _, text := range lines[start:end] {
			seq++
			batch = append(batch, Line{Seq: seq, Text: text})
		}
		start = end
		prev := r.mem
		into.FeedInto(&r, batch)
		want := feed.Feed(batch)
		got := r
		got.mem = resultMem{}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("call %d (seqs %d..%d): FeedInto gave\n%+v\nFeed gave\n%+v", calls, batch[0].Seq, seq, got, want)
		}
		if cap(prev.verdicts) >= min(maxRevisionRoom, len(batch)/8)+len(batch) {
			if &r.mem.verdicts[:1][0] != &prev.verdicts[:1][0] {
				t.Fatalf("call %d: FeedInto did not reuse a buffer for %d verdicts large enough (%d)", calls, len(batch), cap(prev.verdicts))
			}
			reused++
		}
		calls++
	}
	if reused < calls/2 {
		t.Fatalf("FeedInto could reuse its verdicts' memory in %d of %d calls only", reused, calls)
	}
	if r.mem.config == nil || r.mem.phases == nil || r.mem.alarms == nil {
		t.Fatalf("FeedInto kept no map or array for the config, phases or alarms: %+v", r.mem)
	}
}
