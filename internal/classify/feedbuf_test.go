package classify

import (
	"slices"
	"testing"
)

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
		return fb, fb.result().Lines
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
	if !slices.Equal(seqs(got), want(7, 3)) || &got[0] != &fb.buf[0] {
		t.Fatalf("two revisions: %v (in the room: %v)", seqs(got), &got[0] == &fb.buf[0])
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
	if got := seqs(fb.result().Lines); !slices.Equal(got, []int64{2, 10, 20, 30}) {
		t.Fatalf("a revision between this call's lines: %v", got)
	}
}
