package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"launchwatch/internal/classify"
)

// Phase is a stored startup phase of a launch.
type Phase struct {
	Name     string
	BeginSeq int64
	Begin    time.Time
	EndSeq   *int64     // nil while the phase runs
	End      *time.Time // nil while the phase runs
	Done     int
	Total    int
}

// UpsertPhases stores phases the classifier began, advanced or ended. A
// later report of the same phase (same name and first line) replaces the
// earlier one, except for its begin time: that was stored on the launch
// clock and moved with it (ShiftClock), while the classifier's saved state
// may hold the time the clock showed when the phase began.
//
// The reports are folded first (foldPhases): a 50,000-line batch
// reports some phases thousands of times. Phases that begin after the
// launch's latest stored one are new and are COPYed; the others are
// upserted in one statement. One statement per phase took 20 ms for the
// 1,300 phases such a batch of the corpus holds.
func (t *Tx) UpsertPhases(ctx context.Context, launchID int64, phases []classify.Phase) error {
	if len(phases) == 0 {
		return nil
	}
	phases = foldPhases(phases)
	slices.SortStableFunc(phases, func(a, b classify.Phase) int { return cmp.Compare(a.BeginSeq, b.BeginSeq) })
	// A running phase's end is NULL.
	endOf := func(p *classify.Phase) (*int64, *time.Time) {
		if p.EndSeq == 0 {
			return nil, nil
		}
		return &p.EndSeq, &p.End
	}
	row := func(i int) []any {
		p := &phases[i]
		endSeq, end := endOf(p)
		return []any{launchID, p.BeginSeq, p.Name, p.Begin, endSeq, end, int32(p.Done), int32(p.Total)}
	}
	err := t.upsertOrCopy(ctx, "launch_phases", "begin_seq",
		[]string{"launch_id", "begin_seq", "name", "begin_at", "end_seq", "end_at", "done", "total"}, launchID, len(phases),
		func(i int) int64 { return phases[i].BeginSeq },
		func(stored int) error {
			begins, names, beginAt := make([]int64, stored), make([]string, stored), make([]time.Time, stored)
			endSeqs, endAt, done, total := make([]*int64, stored), make([]*time.Time, stored), make([]int32, stored), make([]int32, stored)
			for i := range stored {
				p := &phases[i]
				begins[i], names[i], beginAt[i] = p.BeginSeq, p.Name, p.Begin
				endSeqs[i], endAt[i] = endOf(p)
				done[i], total[i] = int32(p.Done), int32(p.Total)
			}
			_, err := t.tx.Exec(ctx, `
				INSERT INTO launch_phases (launch_id, begin_seq, name, begin_at, end_seq, end_at, done, total)
				SELECT $1, p.* FROM unnest($2::bigint[], $3::text[], $4::timestamptz[], $5::bigint[], $6::timestamptz[], $7::integer[], $8::integer[])
					AS p(begin_seq, name, begin_at, end_seq, end_at, done, total)
				ON CONFLICT (launch_id, begin_seq, name) DO UPDATE SET
					end_seq = EXCLUDED.end_seq, end_at = EXCLUDED.end_at,
					done = EXCLUDED.done, total = EXCLUDED.total`,
				launchID, begins, names, beginAt, endSeqs, endAt, done, total)
			return err
		}, row)
	if err != nil {
		return fmt.Errorf("store: upsert phases: %w", err)
	}
	return nil
}

// foldPhases folds the reports of each phase into one: the last report,
// with the first one's begin time, in the order the phases first appear.
// Upserting that one stores what upserting them all in order would: the
// first report's insert sets the begin time, and each later one only
// replaces the end and the progress.
func foldPhases(phases []classify.Phase) []classify.Phase {
	if len(phases) < 2 {
		return phases
	}
	type key struct {
		name  string
		begin int64
	}
	at := make(map[key]int, len(phases))
	out := make([]classify.Phase, 0, len(phases))
	for _, p := range phases {
		k := key{p.Name, p.BeginSeq}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, p)
			continue
		}
		begin := out[i].Begin
		out[i] = p
		out[i].Begin = begin
	}
	return out
}

// DeletePhases removes every phase of a launch, before a rebuilt
// classification stores the phases it found again.
func (t *Tx) DeletePhases(ctx context.Context, launchID int64) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM launch_phases WHERE launch_id = $1`, launchID); err != nil {
		return fmt.Errorf("store: delete phases: %w", err)
	}
	return nil
}

// Phases returns the phases of a launch in the order they began.
//
// A long launch holds tens of thousands (a million-line launch of the
// corpus mix, 26,000), and the launch page reads them all: each row is
// scanned into plain values, the ends' pointers point into one slice
// allocated for them all, and the few distinct names are shared, so a
// row costs no allocation of its own (scanning into *int64 and *time.Time
// cost two reflective allocations a row, and a page load 20 ms).
func (s *Store) Phases(ctx context.Context, launchID int64) ([]Phase, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT name, begin_seq, begin_at, end_seq, end_at, done, total
		FROM launch_phases WHERE launch_id = $1 ORDER BY begin_seq, name`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: phases: %w", err)
	}
	defer rows.Close()
	var (
		out   = make([]Phase, 0, 256)
		ends  []phaseEnd
		names = map[string]string{}
		// Scanned into the same variables row after row: each of them
		// escapes to the heap once, not once a row.
		p           Phase
		endSeq      pgtype.Int8
		end         pgtype.Timestamptz
		done, total int32
	)
	for rows.Next() {
		p = Phase{}
		if err := rows.Scan(nil, &p.BeginSeq, &p.Begin, &endSeq, &end, &done, &total); err != nil {
			return nil, fmt.Errorf("store: phases: %w", err)
		}
		raw := rows.RawValues()[0]
		name, ok := names[string(raw)]
		if !ok {
			name = string(raw)
			names[name] = name
		}
		p.Name, p.Done, p.Total = name, int(done), int(total)
		if endSeq.Valid || end.Valid {
			if len(ends) == cap(ends) {
				ends = make([]phaseEnd, 0, max(64, len(out)/2))
			}
			ends = append(ends, phaseEnd{endSeq.Int64, end.Time})
			e := &ends[len(ends)-1]
			if endSeq.Valid {
				p.EndSeq = &e.seq
			}
			if end.Valid {
				p.End = &e.at
			}
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: phases: %w", err)
	}
	return out, nil
}

// phaseEnd is where a phase's EndSeq and End point: ends are allocated a
// slice at a time.
type phaseEnd struct {
	seq int64
	at  time.Time
}
