package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/classify"
)

// Checkpoint is a saved classifier state of a launch: the state after the
// line with Seq.
type Checkpoint struct {
	Seq   int64
	State []byte
}

// CheckpointsAround returns the launch's latest checkpoint before seq (nil
// if none) and up to limit checkpoints after that one, in seq order, in
// one query.
func (t *Tx) CheckpointsAround(ctx context.Context, launchID, seq int64, limit int) (*Checkpoint, []Checkpoint, error) {
	rows, err := t.tx.Query(ctx, `
		SELECT seq, state FROM classifier_checkpoints
		WHERE launch_id = $1 AND seq >= COALESCE(
			(SELECT max(seq) FROM classifier_checkpoints WHERE launch_id = $1 AND seq < $2), 0)
		ORDER BY seq LIMIT $3`, launchID, seq, limit+1)
	if err != nil {
		return nil, nil, fmt.Errorf("store: checkpoints: %w", err)
	}
	cps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Checkpoint, error) {
		var c Checkpoint
		return c, row.Scan(&c.Seq, &c.State)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: checkpoints: %w", err)
	}
	if len(cps) > 0 && cps[0].Seq < seq {
		return &cps[0], cps[1:], nil
	}
	if len(cps) > limit {
		cps = cps[:limit]
	}
	return nil, cps, nil
}

// SaveCheckpoints writes checkpoints of the launch, replacing those at the
// same seqs. Those past the launch's latest stored one (a growing
// launch's) are COPYed: 8 ms for a 50,000-line batch's 196, where the
// upsert took 13.
func (t *Tx) SaveCheckpoints(ctx context.Context, launchID int64, cs []Checkpoint) error {
	if len(cs) == 0 {
		return nil
	}
	cs = slices.SortedFunc(slices.Values(cs), func(a, b Checkpoint) int { return cmp.Compare(a.Seq, b.Seq) })
	err := t.upsertOrCopy(ctx, "classifier_checkpoints", "seq", []string{"launch_id", "seq", "state"}, launchID, len(cs),
		func(i int) int64 { return cs[i].Seq },
		func(stored int) error {
			seqs := make([]int64, stored)
			states := make([][]byte, stored)
			for i, c := range cs[:stored] {
				seqs[i], states[i] = c.Seq, c.State
			}
			_, err := t.tx.Exec(ctx, `
				INSERT INTO classifier_checkpoints (launch_id, seq, state)
				SELECT $1, s, st FROM unnest($2::bigint[], $3::bytea[]) AS c(s, st)
				ON CONFLICT (launch_id, seq) DO UPDATE SET state = EXCLUDED.state`,
				launchID, seqs, states)
			return err
		},
		func(i int) []any { return []any{launchID, cs[i].Seq, cs[i].State} })
	if err != nil {
		return fmt.Errorf("store: save checkpoints: %w", err)
	}
	return nil
}

// DeleteCheckpoints removes the launch's checkpoints after seq after and
// before seq before (before <= 0: all after after): they no longer describe
// its lines.
func (t *Tx) DeleteCheckpoints(ctx context.Context, launchID, after, before int64) error {
	if before <= 0 {
		before = math.MaxInt64
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM classifier_checkpoints WHERE launch_id = $1 AND seq > $2 AND seq < $3`,
		launchID, after, before); err != nil {
		return fmt.Errorf("store: delete checkpoints: %w", err)
	}
	return nil
}

// DeletePhasesAfter removes the phases of a launch that begin after seq,
// before a classification rebuilt from there writes them again.
func (t *Tx) DeletePhasesAfter(ctx context.Context, launchID, seq int64) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM launch_phases WHERE launch_id = $1 AND begin_seq > $2`, launchID, seq); err != nil {
		return fmt.Errorf("store: delete phases: %w", err)
	}
	return nil
}

// StoredVerdict is the classification a line is stored with.
type StoredVerdict struct {
	Kind    string
	Level   string
	Rank    string
	AlarmNo int // 0: none
}

// Same reports whether writing v (UpdateVerdicts) would leave the stored
// verdict as it is.
func (s StoredVerdict) Same(v classify.LineVerdict) bool {
	return s.Kind == string(v.Kind) && (v.Level == "" || v.Level == s.Level) && s.Rank == v.Rank && s.AlarmNo == v.Alarm
}

// ScanLinesAfter reads the stored lines of a launch after seq in seq order,
// with their stored verdicts, and hands them to fn in chunks that end at
// the seqs of stops (sorted) as well as every scanPage lines, so a caller
// can look at its state exactly there. fn returns false to stop the scan;
// it must not use the transaction. The lines are read a page at a time: a
// scan that stops early reads no more than it needs.
func (t *Tx) ScanLinesAfter(ctx context.Context, launchID, seq int64, stops []int64, fn func([]classify.Line, []StoredVerdict) bool) error {
	buf := make([]classify.Line, 0, scanPage)
	vs := make([]StoredVerdict, 0, scanPage)
	for {
		// A page ends at the next stop, if one comes within it: a caller
		// that stops there has read no line more than it needed.
		through := int64(math.MaxInt64)
		for _, s := range stops {
			if s > seq {
				through = s
				break
			}
		}
		n, last, more, err := t.scanPage(ctx, launchID, seq, through, &stops, buf, vs, fn)
		if err != nil || !more || n < scanPage && last != through {
			return err
		}
		seq = last // the next page starts after the last line read
	}
}

// scanPage is how many lines ScanLinesAfter reads at a time.
const scanPage = 2048

var scanPageSQL = lineRead{launch: "$1", lo: "$2::bigint + 1", hi: "$3", cols: []string{"seq", "ts", "text", "kind", "level", "rank", "alarm_no"},
	order: true, limit: "$4"}.sql()

func (t *Tx) scanPage(ctx context.Context, launchID, after, through int64, stops *[]int64, buf []classify.Line, vs []StoredVerdict,
	fn func([]classify.Line, []StoredVerdict) bool) (n int, last int64, more bool, err error) {
	rows, err := t.tx.Query(ctx, scanPageSQL, launchID, after, through, scanPage)
	if err != nil {
		return 0, 0, false, fmt.Errorf("store: scan lines: %w", err)
	}
	buf, vs = buf[:0], vs[:0]
	var fill textFill
	for rows.Next() {
		var v StoredVerdict
		var ts time.Time
		var alarm *int
		buf = append(buf, classify.Line{})
		l := &buf[len(buf)-1]
		if err := rows.Scan(&l.Seq, &ts, fill.scan(&l.Text, &l.Seq, len(buf)-1), &v.Kind, &v.Level, &v.Rank, &alarm); err != nil {
			rows.Close()
			return 0, 0, false, fmt.Errorf("store: scan lines: %w", err)
		}
		l.Time = ts.UTC()
		l.Clock = l.Time // the stored time is on the launch clock
		if alarm != nil {
			v.AlarmNo = *alarm
		}
		vs = append(vs, v)
		n++
		last = l.Seq
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, false, fmt.Errorf("store: scan lines: %w", err)
	}
	if err := fill.fill(ctx, t.tx, launchID, func(i int, text string) { buf[i].Text = text }); err != nil {
		return 0, 0, false, fmt.Errorf("store: scan lines: %w", err)
	}
	// Hand the page over in chunks that end at the stops.
	for len(buf) > 0 {
		end := len(buf)
		for len(*stops) > 0 && (*stops)[0] < buf[0].Seq {
			*stops = (*stops)[1:]
		}
		if len(*stops) > 0 {
			if i, found := slices.BinarySearchFunc(buf, (*stops)[0], func(l classify.Line, s int64) int { return cmp.Compare(l.Seq, s) }); found {
				end = i + 1
			}
		}
		if !fn(buf[:end:end], vs[:end:end]) {
			return n, last, false, nil
		}
		buf, vs = buf[end:], vs[end:]
	}
	return n, last, true, nil
}
