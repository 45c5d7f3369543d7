package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// MaxLaunchLabels bounds the labels of one launch: batches merge their
// labels into the launch's, and a client must not grow them without end.
const MaxLaunchLabels = 64

// checkLabels refuses a batch whose labels would give the launch more than
// MaxLaunchLabels.
func checkLabels(stored, added map[string]string) error {
	n := len(stored)
	for k := range added {
		if _, ok := stored[k]; !ok {
			n++
		}
	}
	if n > MaxLaunchLabels {
		return decode.BadRequest("a launch has at most %d labels; this batch would give it %d", MaxLaunchLabels, n)
	}
	return nil
}

// freshLines numbers lines that have no seq, sorts the batch by seq and
// splits off the lines already stored (earlier batches, or repeated inside
// this one) as duplicates.
func freshLines(ctx context.Context, tx *store.Tx, l *store.LaunchForUpdate, lines []decode.Line) ([]decode.Line, int, error) {
	if len(lines) == 0 {
		return nil, 0, nil
	}
	if lines[0].Seq == 0 {
		return seqlessLines(ctx, tx, l, lines)
	}
	bySeq := func(a, b decode.Line) int { return cmp.Compare(a.Seq, b.Seq) }
	if !slices.IsSortedFunc(lines, bySeq) { // the usual batch is in order already
		slices.SortStableFunc(lines, bySeq)
	}
	if err := checkSeqRange(l.LastSeq, lines[len(lines)-1].Seq); err != nil {
		return nil, 0, err
	}
	var old []int64
	for _, ln := range lines {
		if ln.Seq <= l.LastSeq {
			old = append(old, ln.Seq)
		}
	}
	stored := map[int64]bool{}
	if len(old) > 0 {
		var err error
		if stored, err = tx.ExistingSeqs(ctx, l.ID, old); err != nil {
			return nil, 0, err
		}
	}
	if len(old) == 0 && !repeats(lines) {
		return lines, 0, nil // the usual batch: every line is new
	}
	fresh := make([]decode.Line, 0, len(lines))
	dups := 0
	for i, ln := range lines {
		if stored[ln.Seq] || i > 0 && ln.Seq == lines[i-1].Seq {
			dups++
			continue
		}
		fresh = append(fresh, ln)
	}
	return fresh, dups, nil
}

// repeats reports whether a seq repeats in lines, sorted by seq.
func repeats(lines []decode.Line) bool {
	for i := 1; i < len(lines); i++ {
		if lines[i].Seq == lines[i-1].Seq {
			return true
		}
	}
	return false
}

// seqlessLines drops the lines of a seqless batch whose duplicate key is
// stored already or repeats inside the batch (a retried Loki push or OTLP
// export) and numbers the rest after the last stored line, in batch order.
// Lines without a key are always new.
func seqlessLines(ctx context.Context, tx *store.Tx, l *store.LaunchForUpdate, lines []decode.Line) ([]decode.Line, int, error) {
	var keys [][]byte
	for _, ln := range lines {
		if ln.Key != nil {
			keys = append(keys, ln.Key)
		}
	}
	stored, err := tx.ExistingLineKeys(ctx, l.ID, keys)
	if err != nil {
		return nil, 0, err
	}
	seen := make(map[string]bool, len(keys))
	fresh := make([]decode.Line, 0, len(lines))
	for _, ln := range lines {
		if ln.Key != nil {
			k := string(ln.Key)
			if stored[k] || seen[k] {
				continue
			}
			seen[k] = true
		}
		fresh = append(fresh, ln)
	}
	if l.LastSeq > math.MaxInt64-int64(len(fresh)) {
		return nil, 0, decode.BadRequest("cannot number %d more lines after seq %d: send explicit seqs", len(fresh), l.LastSeq)
	}
	for i := range fresh {
		fresh[i].Seq = l.LastSeq + 1 + int64(i)
	}
	return fresh, len(lines) - len(fresh), nil
}

// lineKeys lists the duplicate keys of the lines that have one.
func lineKeys(lines []decode.Line) []store.LineKey {
	var out []store.LineKey
	for _, ln := range lines {
		if ln.Key != nil {
			out = append(out, store.LineKey{Key: ln.Key, Seq: ln.Seq})
		}
	}
	return out
}

// Bounds on a batch's seqs. A stray seq far beyond the launch's last one
// leaves a gap that every later batch would fill by reclassifying the whole
// launch, and one near 2^63 makes every unnumbered batch overflow: both are
// a shipper's bug, refused with a 400 that says so rather than stored.
const maxSeqJump = 1_000_000

// checkSeqRange refuses a batch whose highest seq is above decode.MaxSeq
// or more than maxSeqJump beyond the launch's last stored seq.
func checkSeqRange(last, highest int64) error {
	switch {
	case highest > decode.MaxSeq:
		return decode.SeqAboveMax(fmt.Sprintf("seq %d", highest))
	case highest-last > maxSeqJump:
		return decode.BadRequest("seq %d is more than %d beyond the launch's last line (%d): send the lines in between first, or number them from %d", highest, maxSeqJump, last, last+1)
	}
	return nil
}

// checkBeforeCreate refuses, before the launch is created, a batch that
// would be refused once it is: a refused batch creates nothing. Its seqs
// are checked against the launch's last line, 0 for a launch that does
// not exist yet (only a batch that reaches past maxSeqJump asks which).
func (p *Pipeline) checkBeforeCreate(ctx context.Context, key string, lines []decode.Line) error {
	var highest int64
	for _, l := range lines {
		highest = max(highest, l.Seq)
	}
	if highest <= maxSeqJump {
		return nil
	}
	if highest > decode.MaxSeq {
		return checkSeqRange(0, highest)
	}
	_, err := p.store.LaunchByKey(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return checkSeqRange(0, highest)
	}
	return err // an existing launch is checked under its lock
}
