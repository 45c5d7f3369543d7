package pipeline

import (
	"context"
	"log/slog"
	"sort"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

// Ack is the answer to a stored batch.
type Ack struct {
	Launch     string `json:"launch"`
	Accepted   int    `json:"accepted"`         // lines stored by this batch
	Duplicates int    `json:"duplicates"`       // lines of this batch that were already stored (a retry)
	LastSeq    int64  `json:"last_seq"`         // the highest seq stored for the launch
	Status     string `json:"status,omitempty"` // the settled status; absent while a fatal alarm settles, unless ready
	// Settling is set while a fatal alarm waits to settle (at most the
	// settle bound after the last line): Status may still become alarm.
	Settling bool `json:"settling,omitempty"`
}

// Pipeline stores batches of lines: it numbers them, drops the ones already
// stored, classifies the new ones in seq order and writes lines, alarms and
// the launch's new state in one transaction.
type Pipeline struct {
	store *store.Store
	log   *slog.Logger
	clock clock.Clock
	// settleAfter bounds how long an unsettled fatal alarm waits for a
	// line that could still change it (settle.go).
	settleAfter time.Duration
	// streamEndAfter is how long a launch goes unheard before its stream
	// has ended (settle.go).
	streamEndAfter time.Duration
	// deadlines wakes this process's settler when a batch sets a settle
	// deadline; buffered, so a wake is never lost and never blocks.
	deadlines chan struct{}
	// piece is about how many lines a COPY is handed at a time (stream.go).
	piece int
	// cutFrom is the fewest lines of a run whose blocks' COPY is cut in
	// two (stream.go).
	cutFrom int
	// sigs compiles the taught signatures batches classify with.
	sigs *sigCache
}

// Option configures a Pipeline.
type Option func(*Pipeline)

// WithClock makes the pipeline read the time from c (tests move a fake one).
func WithClock(c clock.Clock) Option { return func(p *Pipeline) { p.clock = c } }

// WithSettleAfter sets the settle bound; d <= 0 keeps DefaultSettleAfter.
func WithSettleAfter(d time.Duration) Option {
	return func(p *Pipeline) {
		if d > 0 {
			p.settleAfter = d
		}
	}
}

// WithStreamEndAfter sets how long a launch must go unheard (no line, no
// heartbeat) before its stream is taken to have ended; d <= 0 keeps
// DefaultStreamEndAfter.
func WithStreamEndAfter(d time.Duration) Option {
	return func(p *Pipeline) {
		if d > 0 {
			p.streamEndAfter = d
		}
	}
}

// New returns a Pipeline writing to st.
func New(st *store.Store, log *slog.Logger, opts ...Option) *Pipeline {
	p := &Pipeline{store: st, log: log, clock: clock.Real{}, settleAfter: DefaultSettleAfter, streamEndAfter: DefaultStreamEndAfter,
		deadlines: make(chan struct{}, 1), piece: streamPiece, cutFrom: streamCutFrom, sigs: newSigCache()}
	for _, o := range opts {
		o(p)
	}
	return p
}

func (p *Pipeline) now() time.Time { return p.clock.Now() }

// Ingest stores lines as the next batch of the launch key, creating the
// launch with attrs when this is its first batch. Lines with Seq 0 are
// numbered after the last stored line. A line whose seq is stored already,
// or a seqless line whose Key is, is a duplicate and is not stored again,
// so a retried batch is harmless.
func (p *Pipeline) Ingest(ctx context.Context, key string, attrs launchid.Attrs, lines []decode.Line) (Ack, error) {
	acks, err := p.IngestAll(ctx, []decode.Batch{{Key: key, Attrs: attrs, Lines: lines}})
	if err != nil {
		return Ack{}, err
	}
	return acks[0], nil
}

// IngestAll stores the batches of one request (a Loki push or an OTLP
// export may carry several launches' streams) in one transaction, as
// Ingest stores one: every batch is stored or none is, so a client that
// retries a refused request never finds half of it stored. The launches
// are locked in the order of their ids, so two requests over the same
// launches cannot deadlock. Acks are in the order of batches.
func (p *Pipeline) IngestAll(ctx context.Context, batches []decode.Batch) ([]Ack, error) {
	for _, b := range batches {
		if len(b.Lines) > decode.MaxBatchLines { // the decoders refuse earlier; this holds for every protocol
			return nil, decode.TooManyLines()
		}
		// A batch refused for its seqs creates nothing, not even its
		// launch, and neither does the request it came in.
		if err := p.checkBeforeCreate(ctx, b.Key, b.Lines); err != nil {
			return nil, err
		}
	}
	ids := make([]int64, len(batches))
	for i, b := range batches {
		id, err := p.store.EnsureLaunch(ctx, b.Key, b.Attrs)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	order := make([]int, len(batches))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ids[order[a]] < ids[order[b]] })
	received := p.now().UTC()
	acks := make([]Ack, len(batches))
	settling := false
	err := p.store.WithTx(ctx, func(tx *store.Tx) error {
		settling = false // WithTx may be retried by callers; start clean
		for _, i := range order {
			b := batches[i]
			ack, settles, err := p.ingestTx(ctx, tx, ids[i], b.Key, b.Attrs, b.Lines, received)
			if err != nil {
				return err
			}
			acks[i] = ack
			settling = settling || settles
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if settling {
		p.wakeSettler()
	}
	return acks, nil
}

// ingestTx stores one batch of launch id in tx and reports whether a
// verdict now waits to settle.
func (p *Pipeline) ingestTx(ctx context.Context, tx *store.Tx, id int64, key string, attrs launchid.Attrs, lines []decode.Line, received time.Time) (Ack, bool, error) {
	ack := Ack{Launch: key}
	l, err := tx.LockLaunch(ctx, id)
	if err != nil {
		return ack, false, err
	}
	if err := checkLabels(l.Labels, attrs.Labels); err != nil {
		return ack, false, err
	}
	fresh, dups, err := freshLines(ctx, tx, l, lines)
	if err != nil {
		return ack, false, err
	}
	ack.Duplicates = dups
	if len(fresh) > 0 {
		// New lines among compacted ones (a gap fill, a launch that
		// spoke again after a quiet spell) turn those blocks back into
		// rows first; for a launch's growing tail this is no statement.
		if err := tx.ThawLines(ctx, id, fresh[0].Seq, fresh[len(fresh)-1].Seq); err != nil {
			return ack, false, err
		}
	}
	b := batch{tx: tx, launch: l, received: received, settleAfter: p.settleAfter, clock: l.Clock, piece: p.piece, cutFrom: p.cutFrom,
		cache: p.sigs, log: p.log}
	if err := b.apply(ctx, fresh, attrs); err != nil {
		return ack, false, err
	}
	if err := tx.CopyLineKeys(ctx, id, lineKeys(fresh)); err != nil {
		return ack, false, err
	}
	ack.Accepted, ack.LastSeq, ack.Status, ack.Settling = len(fresh), b.lastSeq, b.status, b.settleAt != nil
	if b.unsettled && ack.Status != status.Ready {
		// No status while a fatal alarm is not settled: a client that
		// needs one reads the launch, which answers once it is. (A ready
		// launch is ready whatever an alarm after its ready line turns
		// out to be.) A trailing ERROR run alone leaves the status as it
		// is: the lines that follow decide it, or a reader after the
		// bound. A crash log cut in the middle of its traceback needs the
		// read to be decided at all, which is why an unfinished
		// traceback counts here too.
		ack.Status = ""
	}
	if len(fresh) == 0 {
		return ack, false, nil // nothing changed: a retry
	}
	return ack, b.settleAt != nil, tx.Notify(ctx, key)
}
