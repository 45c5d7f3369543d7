package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// The usual batch continues its launch, and its lines are classified and
// stored at once: the classifier (Go, one goroutine) works on the lines
// after the ones whose rows and index another goroutine builds, and those
// after the ones the COPY (its encoder and zstd in a third, the database)
// is storing, instead of them all taking turns. A line is handed to the COPY once the classifier
// holds nothing of it any more (classify.State.Held), so its verdict is
// final; a verdict that changes after all is rewritten after the COPY, as
// for the lines of earlier batches.
const (
	// streamPiece is about how many lines the COPY is handed at a time.
	streamPiece = 1024
	// streamDepth bounds the pieces classified ahead of the COPY: the
	// memory of rows waiting for the database.
	streamDepth = 4
	// judgedDepth bounds the ranges of lines the classifier hands on
	// ahead of the rows built from them: a range is two ints (the
	// verdicts are in the streamer already), so the classifier goes on
	// while the COPY is cut (streamCutFrom) and the rows wait.
	judgedDepth = 64
)

// streamCutFrom is the fewest lines of a run (a batch that holds every
// seq from its first to its last) whose blocks are written by two COPYs
// instead of one: the first ends at a block about two thirds into the
// run, and the search filters of its lines and the checkpoints up to
// there are written then, while the classifier works on the last third,
// instead of all of them after the classifier's last line.
const streamCutFrom = 8192

// copyInOrder classifies fresh lines that continue the launch from state,
// in pieces that end where the seqs cross a multiple of checkpointEvery,
// and COPYs them with their verdicts while it does.
// It returns the alarms, phases, configuration and readiness found (not
// the line verdicts: they are stored) and the checkpoints of the crossings
// it did not save itself, and rewrites the verdicts it revised of lines
// stored before.
func (b *batch) copyInOrder(ctx context.Context, state *classify.State, fresh []decode.Line, times []lineTime) (classify.Result, []store.Checkpoint, error) {
	first, last := fresh[0].Seq, fresh[len(fresh)-1].Seq
	run := last-first+1 == int64(len(fresh)) // every seq of the run (fresh is sorted, without repeats)
	// cut, when not 0, is where the run's blocks are cut in two COPYs:
	// the first block of the run's last third.
	var cut int64
	if run && len(fresh) >= cmp.Or(b.cutFrom, streamCutFrom) {
		if c := store.BlockStart(first + int64(len(fresh))*2/3); c > first {
			cut = c
		}
	}
	// Three goroutines, one after the other on each piece of lines: the
	// classifier (judged, the ranges of fresh whose verdicts are final),
	// the rows and the index (pieces: the piece's rows, once the search
	// filters and the template summary hold them), and the COPY (its
	// encoding and zstd, in pgconn's goroutine, reading next). The
	// classifier alone is what a batch must wait for; the other two work
	// beside it on the pieces before.
	judged := make(chan [2]int, judgedDepth)
	pieces := make(chan []store.Line, streamDepth)
	stop := make(chan struct{})
	classified, indexed := make(chan struct{}), make(chan struct{})
	// The search filters of the lines before cut (head), and those of
	// the others with the template summary of all (index).
	head, index := store.NewLineIndex(), store.NewLineIndex()
	s := streamer{state: state, fresh: fresh, times: times, received: b.received, piece: cmp.Or(b.piece, streamPiece),
		verdicts: make([]classify.LineVerdict, len(fresh)), judged: make([]bool, len(fresh)), revised: map[int64]classify.LineVerdict{}}
	go func() {
		defer close(classified)
		defer close(judged)
		defer func() {
			if r := recover(); r != nil { // a classifier bug answers this request, as it would have in the handler
				s.err = fmt.Errorf("ingest: classify: panic: %v", r)
			}
		}()
		s.run(func(from, to int) bool {
			select {
			case judged <- [2]int{from, to}:
				return true
			case <-stop:
				return false
			}
		})
	}()
	var indexErr error // set before pieces closes
	go func() {
		defer close(indexed)
		defer func() {
			r := recover()
			if r != nil {
				indexErr = fmt.Errorf("ingest: index lines: panic: %v", r)
			}
			close(pieces) // the COPY ends, with indexErr if set
			if r != nil {
				for range judged { // let the classifier finish
				}
			}
		}()
		headDone := cut == 0
		for r := range judged {
			// The verdicts of fresh[r[0]:r[1]] are final: the classifier
			// writes only those after them now.
			rows := s.rows(r[0], r[1])
			k := 0 // rows[:k] are before cut
			if !headDone {
				k, _ = slices.BinarySearchFunc(rows, cut, func(l store.Line, seq int64) int { return cmp.Compare(l.Seq, seq) })
				head.AddSearch(rows[:k])
				// head is complete once a line at or after cut is indexed;
				// the first COPY reads it after that line's piece.
				headDone = k < len(rows)
			}
			index.AddSearch(rows[k:])
			index.AddTemplates(rows)
			select {
			case pieces <- rows:
			case <-stop:
				return
			}
		}
	}()
	next := func() ([]store.Line, error) {
		select {
		case rows, ok := <-pieces:
			if ok {
				return rows, nil
			}
			// Every piece is indexed, and the classifier is done: s.err
			// was set before judged closed, indexErr before pieces did.
			return nil, cmp.Or(s.err, indexErr)
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	var err error
	var saved int // s.cps[:saved] are saved between the two COPYs
	switch {
	case cut != 0:
		// The first COPY ends before the line at cut; its piece's lines
		// from there on begin the second.
		var rest []store.Line
		ended := false
		before := func() ([]store.Line, error) {
			if ended {
				return nil, nil
			}
			rows, err := next()
			if err != nil || rows == nil {
				return nil, cmp.Or(err, fmt.Errorf("ingest: the lines ended before seq %d", cut))
			}
			k, _ := slices.BinarySearchFunc(rows, cut, func(l store.Line, seq int64) int { return cmp.Compare(l.Seq, seq) })
			if k == len(rows) {
				return rows, nil
			}
			rows, rest, ended = rows[:k], rows[k:], true
			if k == 0 {
				return nil, nil
			}
			return rows, nil
		}
		after := func() ([]store.Line, error) {
			if rows := rest; rows != nil {
				rest = nil
				return rows, nil
			}
			return next()
		}
		if err = b.tx.CopyLineRun(ctx, b.launch.ID, head, first, cut-1, before); err != nil {
			break
		}
		s.cpMu.Lock()
		cps := s.cps[:len(s.cps):len(s.cps)] // the classifier appends after them, never into them
		s.cpMu.Unlock()
		if err = b.tx.SaveCheckpoints(ctx, b.launch.ID, cps); err != nil {
			break
		}
		saved = len(cps)
		err = b.tx.CopyLineRun(ctx, b.launch.ID, index, cut, last, after)
	case run:
		// The blocks the run completes are written as blocks
		// (store.CopyLineRun).
		err = b.tx.CopyLineRun(ctx, b.launch.ID, index, first, last, next)
	default:
		err = b.tx.CopyLineStream(ctx, b.launch.ID, index, next)
	}
	close(stop)
	<-classified
	<-indexed
	if err == nil {
		err = cmp.Or(s.err, indexErr)
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
	return s.res, s.cps[saved:], nil
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
	cpMu     sync.Mutex      // guards cps' length: copyInOrder saves those before its cut while more are made
	cps      []store.Checkpoint
	err      error
}

// run feeds the lines and hands the ranges of fresh whose verdicts are
// final to emit, which returns false when the COPY is gone.
func (s *streamer) run(emit func(from, to int) bool) {
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
			s.cpMu.Lock()
			s.cps = append(s.cps, store.Checkpoint{Seq: last, State: saved})
			s.cpMu.Unlock()
			prev = last
		}
		start = end
		if end-s.emitted >= s.piece || end == len(lines) {
			through := end // hand on what the state no longer holds
			if held := s.state.Held().FromSeq; held != 0 && end < len(lines) {
				through, _ = slices.BinarySearchFunc(lines[:end], held, func(l decode.Line, seq int64) int { return cmp.Compare(l.Seq, seq) })
				through = max(through, s.emitted)
			}
			if through > s.emitted && !emit(s.emitted, through) {
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
