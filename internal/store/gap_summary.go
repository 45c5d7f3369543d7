package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// GapFloor is the shortest stretch between consecutive lines the gap
// summary (launch_gaps, migration 00042) keeps: the shortest the timeline
// marks. Gaps asked for with a shorter threshold are found from the lines.
const GapFloor = 30 * time.Second

// GapRun is what a run of new lines, in seq order, adds to its launch's
// gap summary: its stretches longer than GapFloor between its own
// consecutive lines, and its first and last lines (the stretch from the
// launch's last stored line to First is the summary's to find).
type GapRun struct {
	Gaps              []Gap
	FirstSeq, LastSeq int64
	FirstTS, LastTS   time.Time
	started           bool
}

// Add notes the next line of the run (seqs increasing).
func (r *GapRun) Add(seq int64, ts time.Time) {
	if !r.started {
		r.started, r.FirstSeq, r.FirstTS = true, seq, ts
	} else if ts.Sub(r.LastTS) > GapFloor {
		r.Gaps = append(r.Gaps, Gap{From: r.LastTS, To: ts, AfterSeq: r.LastSeq, ToSeq: seq})
	}
	r.LastSeq, r.LastTS = seq, ts
}

// Empty says whether no line was added.
func (r *GapRun) Empty() bool { return !r.started }

// extendGapsSQL adds a run's stretches ($3–$6), and the one from the
// summary's last line to the run's first ($7, $8), to a summary that holds
// every stored line (gaps_through at or past $2, the launch's last seq
// before the run), and moves it to the run's last line ($9, $10). A
// summary cut back by a gap fill is left as it is.
const extendGapsSQL = `
	WITH s AS (
		SELECT gaps_last_seq AS seq, gaps_last_ts AS ts FROM launches WHERE id = $1 AND gaps_through >= $2
	), ins AS (
		INSERT INTO launch_gaps (launch_id, after_seq, to_seq, from_ts, to_ts)
		SELECT $1, s.seq, $7, s.ts, $8 FROM s WHERE $8::timestamptz - s.ts > $11::interval
		UNION ALL
		SELECT $1, u.a, u.t, u.f, u.tt FROM s, unnest($3::bigint[], $4::bigint[], $5::timestamptz[], $6::timestamptz[]) AS u(a, t, f, tt)
		ON CONFLICT (launch_id, after_seq) DO UPDATE SET to_seq = EXCLUDED.to_seq, from_ts = EXCLUDED.from_ts, to_ts = EXCLUDED.to_ts
	)
	UPDATE launches SET gaps_through = $9, gaps_last_seq = $9, gaps_last_ts = $10
	WHERE id = $1 AND gaps_through >= $2`

// ExtendGaps adds run, the new lines of an in-order batch (every seq past
// the launch's last stored seq, prevLast), to the launch's gap summary,
// in the transaction that stores them and locked the launch.
func (t *Tx) ExtendGaps(ctx context.Context, launchID, prevLast int64, run *GapRun) error {
	if run.Empty() {
		return nil
	}
	n := len(run.Gaps)
	after, to := make([]int64, n), make([]int64, n)
	from, till := make([]time.Time, n), make([]time.Time, n)
	for i, g := range run.Gaps {
		after[i], to[i], from[i], till[i] = g.AfterSeq, g.ToSeq, g.From, g.To
	}
	if _, err := t.tx.Exec(ctx, extendGapsSQL, launchID, prevLast, after, to, from, till,
		run.FirstSeq, run.FirstTS, run.LastSeq, run.LastTS, GapFloor); err != nil {
		return fmt.Errorf("store: extend gaps: %w", err)
	}
	return nil
}

// CutGaps cuts the launch's gap summary back to the stretches that end at
// or before seq through: lines were added or removed after it (a gap
// fill, a loss), so the stretches after it are no longer known. Store.Gaps
// reads the lines after it instead, until RepairGaps.
func (t *Tx) CutGaps(ctx context.Context, launchID, through int64) error {
	if _, err := t.tx.Exec(ctx, `
		WITH cut AS (DELETE FROM launch_gaps WHERE launch_id = $1 AND to_seq > $2)
		UPDATE launches SET gaps_through = $2, gaps_last_seq = NULL, gaps_last_ts = NULL
		WHERE id = $1 AND gaps_through > $2`, launchID, max(through, 0)); err != nil {
		return fmt.Errorf("store: cut gaps: %w", err)
	}
	return nil
}

// summaryGapsSQL reads the stretches longer than $2 the summary holds, up
// to $3 of them in seq order, with how far it holds (the first row) and
// the launch's last seq. A launch without lines, or a summary without a
// stretch, is one row of NULL stretch.
const summaryGapsSQL = `
	SELECT l.gaps_through, l.last_seq, g.from_ts, g.to_ts, g.after_seq, g.to_seq
	FROM launches l LEFT JOIN LATERAL (
		SELECT from_ts, to_ts, after_seq, to_seq FROM launch_gaps
		WHERE launch_id = l.id AND to_seq <= l.gaps_through AND to_ts - from_ts > $2
		ORDER BY after_seq LIMIT $3
	) g ON true
	WHERE l.id = $1
	ORDER BY g.after_seq`

// summaryGaps returns the summary's stretches longer than min (at most
// limit), how far the summary holds and the launch's last seq.
func (s *Store) summaryGaps(ctx context.Context, q querier, launchID int64, min time.Duration, limit int) ([]Gap, int64, int64, error) {
	rows, err := q.Query(ctx, summaryGapsSQL, launchID, min, limit)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("store: gap summary: %w", err)
	}
	defer rows.Close()
	var out []Gap
	var through, last int64
	for rows.Next() {
		var from, to *time.Time
		var after, toSeq *int64
		if err := rows.Scan(&through, &last, &from, &to, &after, &toSeq); err != nil {
			return nil, 0, 0, fmt.Errorf("store: gap summary: %w", err)
		}
		if after != nil {
			out = append(out, Gap{From: *from, To: *to, AfterSeq: *after, ToSeq: *toSeq})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, fmt.Errorf("store: gap summary: %w", err)
	}
	return out, through, last, nil
}

// GapRepairCandidates returns up to limit launches quiet since quietSince
// whose gap summary does not hold all their lines (a gap fill cut it
// back, or it was never made), but for those in skip.
func (s *Store) GapRepairCandidates(ctx context.Context, quietSince time.Time, limit int, skip []int64) ([]int64, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT id FROM launches
		WHERE gaps_through < last_seq AND last_line_at < $1 AND id <> ALL($3::bigint[])
		ORDER BY last_line_at LIMIT $2`, quietSince, limit, skip)
	if err != nil {
		return nil, fmt.Errorf("store: gap repair candidates: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: gap repair candidates: %w", err)
	}
	return ids, nil
}

// RepairGaps brings the launch's gap summary up to its last line: the
// stretches after where it holds are found from the lines (as Gaps does
// for the lines after it) and written. It holds the launch's row lock and
// takes it without waiting: a launch busy with a batch is skipped (busy).
func (s *Store) RepairGaps(ctx context.Context, launchID int64) (busy bool, err error) {
	err = s.WithTx(ctx, func(t *Tx) error {
		var through, last int64
		err := t.tx.QueryRow(ctx, `SELECT gaps_through, last_seq FROM launches WHERE id = $1 FOR UPDATE SKIP LOCKED`, launchID).Scan(&through, &last)
		if errors.Is(err, pgx.ErrNoRows) {
			busy = true
			return nil
		}
		if err != nil || through >= last {
			return err
		}
		gaps, err := scanGaps(ctx, t.tx, launchID, through, GapFloor, 0)
		if err != nil {
			return err
		}
		if _, err := t.tx.Exec(ctx, `DELETE FROM launch_gaps WHERE launch_id = $1 AND to_seq > $2`, launchID, through); err != nil {
			return fmt.Errorf("store: repair gaps: %w", err)
		}
		if len(gaps) > 0 {
			if _, err := t.tx.CopyFrom(ctx, pgx.Identifier{"launch_gaps"}, []string{"launch_id", "after_seq", "to_seq", "from_ts", "to_ts"},
				pgx.CopyFromSlice(len(gaps), func(i int) ([]any, error) {
					g := gaps[i]
					return []any{launchID, g.AfterSeq, g.ToSeq, g.From, g.To}, nil
				})); err != nil {
				return fmt.Errorf("store: repair gaps: %w", err)
			}
		}
		lastLine := lineRead{launch: "$1", hi: "$2", cols: []string{"seq", "ts"}, limit: "1", back: true}
		if _, err := t.tx.Exec(ctx, `
			UPDATE launches l SET gaps_through = GREATEST($2, x.seq), gaps_last_seq = x.seq, gaps_last_ts = x.ts
			FROM (SELECT 1) one LEFT JOIN LATERAL (`+lastLine.sql()+`) x ON true WHERE l.id = $1`, launchID, last); err != nil {
			return fmt.Errorf("store: repair gaps: %w", err)
		}
		return nil
	})
	return busy, err
}

// shiftGaps moves the times of the launch's gap summary by delta, with
// every time on its clock (ShiftClock).
func (t *Tx) shiftGaps(ctx context.Context, launchID int64, delta time.Duration) error {
	for _, q := range []string{
		`UPDATE launch_gaps SET from_ts = from_ts + $2, to_ts = to_ts + $2 WHERE launch_id = $1`,
		`UPDATE launches SET gaps_last_ts = gaps_last_ts + $2 WHERE id = $1 AND gaps_last_ts IS NOT NULL`,
	} {
		if _, err := t.tx.Exec(ctx, q, launchID, delta); err != nil {
			return fmt.Errorf("store: shift gaps: %w", err)
		}
	}
	return nil
}

// retimeGaps is RetimeBefore's change to the gap summary: every line
// before seq is at ts now, so no stretch ends before seq. A summary that
// holds lines at or after seq is cut back to before it (their stretch
// from the lines before changed).
func (t *Tx) retimeGaps(ctx context.Context, launchID, seq int64, ts time.Time) error {
	if err := t.CutGaps(ctx, launchID, seq-1); err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, `
		WITH gone AS (DELETE FROM launch_gaps WHERE launch_id = $1 AND to_seq < $2)
		UPDATE launches SET gaps_last_ts = $3 WHERE id = $1 AND gaps_last_seq < $2`, launchID, seq, ts); err != nil {
		return fmt.Errorf("store: retime gaps: %w", err)
	}
	return nil
}
