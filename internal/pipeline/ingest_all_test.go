package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestIngestAllStoresAllOrNothing: a request carrying several launches'
// streams (a Loki push, an OTLP export) is one transaction. When one
// launch's batch is refused (its labels would exceed the limit), the other
// launch's lines are not stored either, and the retry without the refused
// stream stores them once.
func TestIngestAllStoresAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	p := New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), WithClock(clock.NewFake(time.Date(2026, 4, 2, 9, 30, 0, 0, time.UTC))))

	full := map[string]string{}
	for i := range MaxLaunchLabels {
		full[fmt.Sprintf("k%d", i)] = "v"
	}
	if _, err := p.Ingest(ctx, "full", launchid.Attrs{Labels: full}, []decode.Line{{Seq: 1, Text: "first"}}); err != nil {
		t.Fatal(err)
	}
	lines := func(texts ...string) []decode.Line {
		var ls []decode.Line
		for i, s := range texts {
			ls = append(ls, decode.Line{Seq: int64(i + 1), Text: s})
		}
		return ls
	}
	fresh := decode.Batch{Key: "fresh", Lines: lines("a", "b", "c")}
	refused := decode.Batch{Key: "full", Attrs: launchid.Attrs{Labels: map[string]string{"one": "more"}}, Lines: []decode.Line{{Seq: 2, Text: "second"}}}
	_, err := p.IngestAll(ctx, []decode.Batch{fresh, refused})
	var in *decode.InputError
	if !errors.As(err, &in) {
		t.Fatalf("IngestAll: %v, want the refused stream's input error", err)
	}
	for key, want := range map[string]int64{"fresh": 0, "full": 1} {
		l, err := st.LaunchByKey(ctx, key)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		if got := int64(0); l != nil {
			got = l.LastSeq
			if got != want {
				t.Errorf("%s holds lines up to %d after the refused request, want %d", key, got, want)
			}
		}
	}

	acks, err := p.IngestAll(ctx, []decode.Batch{fresh})
	if err != nil || len(acks) != 1 || acks[0].Accepted != 3 {
		t.Fatalf("the retry: %+v, %v; want 3 lines accepted", acks, err)
	}
	again, err := p.IngestAll(ctx, []decode.Batch{fresh, {Key: "full", Lines: []decode.Line{{Seq: 2, Text: "second"}}}})
	if err != nil || again[0].Duplicates != 3 || again[1].Accepted != 1 {
		t.Fatalf("a request over both launches: %+v, %v; want fresh's 3 lines duplicates and full's line stored", again, err)
	}
}
