package decode

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func lineTexts(lines []Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// TestSeqlessLinesAreOrderedByTimeThenStream: the lines of one launch of a
// Loki push or an OTLP export are numbered by time, lines of one time by
// stream and then request order, and a line without a time stays after
// the line before it in its stream.
func TestSeqlessLinesAreOrderedByTimeThenStream(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ns := func(ms int) int64 { return t0.Add(time.Duration(ms) * time.Millisecond).UnixNano() }

	t.Run("OTLPBurstsOutOfOrder", func(t *testing.T) {
		t.Parallel()
		// The second burst (ms 1-2) was exported before the first (ms 5-6);
		// a record without any time follows its neighbour.
		body := fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"launchwatch.launch","value":{"stringValue":"o"}}]},
			"scopeLogs":[{"logRecords":[
				{"timeUnixNano":"%d","body":{"stringValue":"burst b 1"}},
				{"timeUnixNano":"%d","body":{"stringValue":"burst b 2"}},
				{"body":{"stringValue":"untimed after b 2"}},
				{"timeUnixNano":"%d","body":{"stringValue":"burst a 1"}},
				{"timeUnixNano":"%d","body":{"stringValue":"burst a 2"}}]}]}]}`, ns(5), ns(6), ns(1), ns(2))
		res, err := OTLP([]byte(body), OTLPJSON, DefaultMaxLineBytes)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"burst a 1", "burst a 2", "burst b 1", "burst b 2", "untimed after b 2"}
		if got := lineTexts(res.Batches[0].Lines); !slices.Equal(got, want) {
			t.Errorf("lines %q, want %q", got, want)
		}
	})

	t.Run("LokiStreamsInterleaveByTimeAndTiesByStream", func(t *testing.T) {
		t.Parallel()
		body := fmt.Sprintf(`{"streams":[
			{"stream":{"launch":"l","stream":"stdout"},"values":[["%d","out 3"],["%d","out 1"],["%d","out 5 tie"]]},
			{"stream":{"launch":"l","stream":"stderr"},"values":[["%d","err 5 tie"],["%d","err 2"]]}]}`,
			ns(3), ns(1), ns(5), ns(5), ns(2))
		batches, err := Loki([]byte(body), "application/json", LokiOptions{MaxBodyBytes: DefaultMaxBodyBytes, MaxLineBytes: DefaultMaxLineBytes})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"out 1", "err 2", "out 3", "out 5 tie", "err 5 tie"}
		if got := lineTexts(batches[0].Lines); !slices.Equal(got, want) {
			t.Errorf("lines %q, want %q", got, want)
		}
	})
}
