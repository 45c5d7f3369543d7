package store_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestFilteredWindow pages a 1000-line launch both ways and searches it
// with a scan bound, as the log view does on a million-line launch.
func TestFilteredWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "w", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	lines := make([]store.Line, 1000)
	for i := range lines {
		lines[i] = store.Line{Seq: int64(i + 1), TS: now, ReceivedAt: now, Kind: "plain", Level: "INFO",
			Text: fmt.Sprintf("line %d", i+1)}
		if (i+1)%100 == 0 {
			lines[i].Level, lines[i].Text = "ERROR", fmt.Sprintf("Boom at %d", i+1)
		}
	}
	if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.CopyLines(ctx, id, lines) }); err != nil {
		t.Fatal(err)
	}
	seqs := func(w store.LineWindow) string {
		if len(w.Lines) == 0 {
			return "none"
		}
		return fmt.Sprintf("%d-%d (%d)", w.Lines[0].Seq, w.Lines[len(w.Lines)-1].Seq, len(w.Lines))
	}
	for name, tc := range map[string]struct {
		f          store.LineFilter
		want       string
		more       bool
		cursor     int64
		from, upto int64
	}{
		"Forward":         {f: store.LineFilter{After: 0, Limit: 300}, want: "1-300 (300)", more: true, cursor: 300, from: 1, upto: 300},
		"ForwardToEnd":    {f: store.LineFilter{After: 800, Limit: 300}, want: "801-1000 (200)", from: 801, upto: 1000},
		"BackwardFromEnd": {f: store.LineFilter{Before: 1001, Limit: 300}, want: "701-1000 (300)", more: true, cursor: 701, from: 701, upto: 1000},
		"BackwardToStart": {f: store.LineFilter{Before: 201, Limit: 300}, want: "1-200 (200)", from: 1, upto: 200},
		"LevelUnbounded":  {f: store.LineFilter{Level: "ERROR", Limit: 300}, want: "100-1000 (10)", from: 1, upto: 1000},
		// Words of fewer than three letters have no trigram for the search
		// index: they are searched by a bounded scan.
		"SubstringBoundedStops":     {f: store.LineFilter{Contains: "oo", Limit: 300, ScanLimit: 250}, want: "100-200 (2)", more: true, cursor: 250, from: 1, upto: 250},
		"SubstringBoundedContinues": {f: store.LineFilter{After: 250, Contains: "OO", Limit: 300, ScanLimit: 250}, want: "300-500 (3)", more: true, cursor: 500, from: 251, upto: 500},
		"SubstringBoundedLast":      {f: store.LineFilter{After: 750, Contains: "oo", Limit: 300, ScanLimit: 250}, want: "800-1000 (3)", from: 751, upto: 1000},
		"RegexpFillsWindow":         {f: store.LineFilter{Match: regexp.MustCompile(`^line 1\d$`), Limit: 5, ScanLimit: 250}, want: "10-14 (5)", more: true, cursor: 14, from: 1, upto: 14},
		"RegexpBackwardBounded":     {f: store.LineFilter{Before: 1001, Match: regexp.MustCompile(`^B\w\wm`), Limit: 5, ScanLimit: 250}, want: "800-1000 (3)", more: true, cursor: 751, from: 751, upto: 1000},
		// The search index serves words of three letters or more: the
		// whole launch in one call, whatever the scan bound.
		"SubstringIndexed":         {f: store.LineFilter{Contains: "boom", Limit: 300, ScanLimit: 250}, want: "100-1000 (10)", from: 1, upto: 1000},
		"SubstringIndexedBackward": {f: store.LineFilter{Before: 1001, Contains: "BOOM at", Limit: 3, ScanLimit: 250}, want: "800-1000 (3)", more: true, cursor: 800, from: 800, upto: 1000},
		"RegexpIndexedFills":       {f: store.LineFilter{Match: regexp.MustCompile(`Boom at [0-9]+`), Limit: 5, ScanLimit: 250}, want: "100-500 (5)", more: true, cursor: 500, from: 1, upto: 500},
		"RegexpIndexedInRange":     {f: store.LineFilter{Match: regexp.MustCompile(`Boom at [0-9]+`), Limit: 5, InRange: true, MinSeq: 150, MaxSeq: 420}, want: "200-400 (3)", from: 150, upto: 420},
		"LikeWildcardsAreLiteral":  {f: store.LineFilter{Contains: "%", Limit: 5, ScanLimit: 250}, want: "none", more: true, cursor: 250, from: 1, upto: 250},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, err := st.FilteredWindow(ctx, id, tc.f, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if got := seqs(w); got != tc.want || w.More != tc.more || w.Cursor != tc.cursor {
				t.Errorf("window %s more=%v cursor=%d, want %s more=%v cursor=%d", got, w.More, w.Cursor, tc.want, tc.more, tc.cursor)
			}
			if w.ScannedFrom != tc.from || w.ScannedTo != tc.upto {
				t.Errorf("scanned %d-%d, want %d-%d", w.ScannedFrom, w.ScannedTo, tc.from, tc.upto)
			}
		})
	}
}
