package client

import (
	"slices"
	"testing"
)

func TestMissing(t *testing.T) {
	t.Parallel()
	runs := []SeqRun{{1, 3}, {7, 8}, {12, 12}}
	for _, tt := range []struct {
		from, to int64
		want     []SeqRun
	}{
		{1, 12, []SeqRun{{4, 6}, {9, 11}}},
		{1, 15, []SeqRun{{4, 6}, {9, 11}, {13, 15}}},
		{2, 3, nil},
		{5, 7, []SeqRun{{5, 6}}},
		{13, 20, []SeqRun{{13, 20}}},
		{8, 8, nil},
	} {
		if got := Missing(runs, tt.from, tt.to); !slices.Equal(got, tt.want) {
			t.Errorf("Missing(%d, %d) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
	if got := Missing(nil, 1, 5); !slices.Equal(got, []SeqRun{{1, 5}}) {
		t.Errorf("Missing of nothing held = %v", got)
	}
	if n := Count([]SeqRun{{4, 6}, {9, 11}}); n != 6 {
		t.Errorf("Count = %d, want 6", n)
	}
}

func TestHistoryCountsChanges(t *testing.T) {
	t.Parallel()
	var h history
	for _, v := range []string{"", "a", "a", "", "b", "b", "a"} {
		h.note(v)
	}
	if h.value != "a" || h.changes != 2 {
		t.Errorf("history %q with %d changes, want a after 2", h.value, h.changes)
	}
}
