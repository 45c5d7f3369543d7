package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// The usual batch continues its launch, and its lines are classified and
// stored at once: the classifier (Go, one core) works on the lines after
// the ones the COPY (the database, the other core) is storing, instead of
// the two taking turns. A line is handed to the COPY once the classifier
// holds nothing of it any more (classify.State.Held), so its verdict is
// final; a verdict that changes after all is rewritten after the COPY, as
// for the lines of earlier batches.
const (
	// streamPiece is about how many lines the COPY is handed at a time.
	streamPiece = 1024
	// streamDepth bounds the pieces classified ahead of the COPY: the
	// memory of rows waiting for the database.
	streamDepth = 4
)

// copyInOrder classifies fresh lines that continue the launch from state,
// in pieces that end where the seqs cross a multiple of checkpointEvery,
// and COPYs them with their verdicts while it does.
// It returns the alarms, phases, configuration and readiness found (not
// the line verdicts: they are stored) and a checkpoint for each crossing,
// and rewrites the verdicts it revised of lines stored before.
func (b *batch) copyInOrder(ctx context.Context, state *classify.State, fresh []decode.Line, times []lineTime) (classify.Result, []store.Checkpoint, error) {
	pieces := make(chan []store.Line, streamDepth)
	stop := make(chan struct{})
	done := make(chan struct{})
	index := store.NewLineIndex()
	s := streamer{state: state, fresh: fresh, times: times, received: b.received, piece: cmp.Or(b.piece, streamPiece),
		verdicts: make([]classify.LineVerdict, len(fresh)), judged: make([]bool, len(fresh)), revised: map[int64]classify.LineVerdict{}}
	go func() {
		defer close(done)
		defer close(pieces)
		defer func() {
			if r := recover(); r != nil { // a classifier bug answers this request, as it would have in the handler
				s.err = fmt.Errorf("ingest: classify: panic: %v", r)
			}
		}()
		s.run(func(rows []store.Line) bool {
			index.Add(rows) // here, not on the COPY's path: one busy goroutine beside the database, not two
			select {
			case pieces <- rows:
				return true
			case <-stop:
				return false
			}
		})
	}()
	next := func() ([]store.Line, error) {
		select {
		case rows, ok := <-pieces:
			if ok {
				return rows, nil
			}
			return nil, s.err // the classifier is done; s.err was set before pieces closed
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	var err error
	if first, last := fresh[0].Seq, fresh[len(fresh)-1].Seq; last-first+1 == int64(len(fresh)) {
		// Every seq of the run (fresh is sorted, without repeats): the
		// blocks it completes are written as blocks (store.CopyLineRun).
		err = b.tx.CopyLineRun(ctx, b.launch.ID, index, first, last, next)
	} else {
		err = b.tx.CopyLineStream(ctx, b.launch.ID, index, next)
	}
	close(stop)
	<-done
	if err == nil {
		err = s.err
	}
	if err != nil {
		return classify.Result{}, nil, err
	}
	revised := make([]classify.LineVerdict, 0, len(s.revised))
	for _, v := range s.revised {
		revised = append(revised, v)
	}
	slices.SortFunc(revised, func(a, c classify.LineVerdict) int { return cmp.Compare(a.Seq, c.Seq) })
	if err := b.tx.UpdateVerdicts(ctx, b.launch.ID, revised); err != nil {
		return classify.Result{}, nil, err
	}
	return s.res, s.cps, nil
}

// streamer classifies the fresh lines of a batch in a goroutine of its
// own and hands their rows on as their verdicts become final.
type streamer struct {
	piece    int
	state    *classify.State
	fresh    []decode.Line
	times    []lineTime
	received time.Time
	verdicts []classify.LineVerdict // the latest verdict of each fresh line
	judged   []bool                 // whether it has one (else it is plain)
	emitted  int                    // fresh[:emitted] are handed on
	revised  map[int64]classify.LineVerdict
	res      classify.Result // without Lines: they go to the rows
	fed      classify.Result // the last Feed's, whose memory the next reuses
	cps      []store.Checkpoint
	err      error
}

// run feeds the lines and hands their rows to emit, which returns false
// when the COPY is gone.
func (s *streamer) run(emit func([]store.Line) bool) {
	lines := s.fresh
	prev := s.state.LastSeq()
	var feed []classify.Line
	for start := 0; start < len(lines); {
		end := len(lines)
		for i := start + 1; i < len(lines); i++ {
			if checkpointBlock(lines[i].Seq) != checkpointBlock(lines[i-1].Seq) {
				end = i
				break
			}
		}
		feed = classifierLines(feed[:0], lines[start:end], s.times[start:end], s.received)
		s.state.FeedInto(&s.fed, feed)
		s.note(s.fed)
		last := lines[end-1].Seq
		if checkpointBlock(last) > checkpointBlock(prev) {
			saved, err := s.state.MarshalBinary()
			if err != nil {
				s.err = fmt.Errorf("ingest: save checkpoint: %w", err)
				return
			}
			s.cps = append(s.cps, store.Checkpoint{Seq: last, State: saved})
			prev = last
		}
		start = end
		if end-s.emitted >= s.piece || end == len(lines) {
			through := end // hand on what the state no longer holds
			if held := s.state.Held().FromSeq; held != 0 && end < len(lines) {
				through, _ = slices.BinarySearchFunc(lines[:end], held, func(l decode.Line, seq int64) int { return cmp.Compare(l.Seq, seq) })
				through = max(through, s.emitted)
			}
			if through > s.emitted && !emit(s.rows(s.emitted, through)) {
				return
			}
			s.emitted = through
		}
	}
}

// note records the result of one feed: the verdicts of lines not handed on
// yet go to their rows, the others are revisions rewritten after the COPY.
func (s *streamer) note(r classify.Result) {
	next := 0 // where the next verdict's line usually is: r.Lines and s.fresh are in seq order
	for _, v := range r.Lines {
		i := next
		if i >= len(s.fresh) || s.fresh[i].Seq != v.Seq {
			i, _ = slices.BinarySearchFunc(s.fresh, v.Seq, func(l decode.Line, seq int64) int { return cmp.Compare(l.Seq, seq) })
		}
		found := i < len(s.fresh) && s.fresh[i].Seq == v.Seq
		next = i + 1
		if found && i >= s.emitted {
			s.verdicts[i], s.judged[i] = v, true
			continue
		}
		s.revised[v.Seq] = v
	}
	mergeFindings(&s.res, r)
}

// rows builds the rows of fresh[from:to] with their verdicts.
func (s *streamer) rows(from, to int) []store.Line {
	out := make([]store.Line, to-from)
	for i := from; i < to; i++ {
		v := s.verdicts[i]
		if !s.judged[i] {
			v = classify.LineVerdict{Kind: classify.KindPlain}
		}
		out[i-from] = lineRow(&s.fresh[i], &s.times[i], v, s.received)
	}
	return out
}

// lineRow is the stored row of a fresh line with verdict v.
func lineRow(l *decode.Line, t *lineTime, v classify.LineVerdict, received time.Time) store.Line {
	return store.Line{Seq: l.Seq, TS: t.ts, ReceivedAt: received, LoggedAt: t.logged,
		Stream: l.Stream, Kind: string(v.Kind), Level: cmp.Or(v.Level, l.Level), Rank: v.Rank,
		AlarmNo: alarmNo(v.Alarm), Text: l.Text}
}
