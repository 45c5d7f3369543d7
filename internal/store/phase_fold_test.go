package store

import (
	"reflect"
	"testing"
	"time"

	"launchwatch/internal/classify"
)

// TestFoldPhases: the reports of one phase fold into its last one with
// its first begin time, in the order the phases first appeared.
func TestFoldPhases(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 4, 2, 9, 28, 0, 0, time.UTC)
	in := []classify.Phase{
		{Name: "weights", BeginSeq: 10, Begin: t0, Done: 1, Total: 4},
		{Name: "init", BeginSeq: 2, Begin: t0.Add(-time.Minute), EndSeq: 9, End: t0},
		{Name: "weights", BeginSeq: 10, Begin: t0.Add(time.Second), Done: 2, Total: 4},
		{Name: "weights", BeginSeq: 40, Begin: t0.Add(time.Hour), Done: 1, Total: 2}, // the same name again, later: another phase
		{Name: "weights", BeginSeq: 10, Begin: t0.Add(2 * time.Second), Done: 4, Total: 4, EndSeq: 30, End: t0.Add(3 * time.Second)},
	}
	want := []classify.Phase{
		{Name: "weights", BeginSeq: 10, Begin: t0, Done: 4, Total: 4, EndSeq: 30, End: t0.Add(3 * time.Second)},
		in[1], in[3],
	}
	if got := foldPhases(in); !reflect.DeepEqual(got, want) {
		t.Errorf("foldPhases =\n%+v\nwant\n%+v", got, want)
	}
}
