package store

import (
	"context"
	"fmt"
	"math"

	"launchwatch/internal/linesearch"
)

// searchGroupSeqs is how many seqs of candidate chunks one query reads: a
// search whose window fills early stops after a group, one that matches
// little reads every candidate in a few queries.
const searchGroupSeqs = 256 * linesearch.ChunkSize

// indexedSearch answers a search (f.Contains or f.Match) from the search
// index when it can: the chunks whose filters hold every trigram the
// search requires, then the lines of those chunks alone, in the reading
// direction until the window is full. It covers the whole range (no scan
// bound: ScannedFrom–ScannedTo is all of it unless the window filled).
// ok is false when the index cannot serve f: no search, or a search with
// no trigram to look for (`.*`, a two-letter word); FilteredWindow then
// scans a bounded range. A launch stored before the index existed is
// indexed first (buildSearchIndex).
func (s *Store) indexedSearch(ctx context.Context, launchID int64, f LineFilter, lastSeq int64) (LineWindow, bool, error) {
	var w LineWindow
	var p linesearch.Prefilter
	switch {
	case f.Match != nil:
		p = linesearch.Regexp(f.Match.String())
	case f.Contains != "":
		p = linesearch.Substring(f.Contains)
	default:
		return w, false, nil
	}
	cq := &launchQuery{}
	cq.arg(launchID)
	cond := bloomCondition(cq, p)
	if cond == "" {
		return w, false, nil
	}
	switch ok, err := s.searchIndexed(ctx, launchID); {
	case err != nil:
		return w, false, err
	case !ok:
		if err := s.buildSearchIndex(ctx, launchID); err != nil {
			return w, false, err
		}
	}
	back := f.Before > 0
	lo, hi := f.After+1, lastSeq
	if lastSeq <= 0 {
		hi = math.MaxInt64 >> 1
	}
	if back {
		lo, hi = 1, f.Before-1
	}
	if f.InRange {
		lo, hi = max(lo, f.MinSeq), min(hi, f.MaxSeq)
	}
	w.ScannedFrom, w.ScannedTo = lo, hi
	if lo > hi {
		return w, true, nil
	}
	ranges, err := s.candidateRanges(ctx, cq, cond, lo, hi, back)
	if err != nil {
		return w, true, err
	}
	// The lines of each candidate range are read by its own probe of the
	// primary key (the subquery depends on the range, and OFFSET 0 keeps
	// the filters out of it): left to itself the planner, which takes a
	// substring for rare, would rather filter every line of the launch.
	q := &launchQuery{}
	q.arg(launchID)
	// The search's literals chose the chunks; its lines are matched in Go
	// alone (collect), on the texts of their blocks.
	f.lineConds(q)
	los, his := q.arg([]int64(nil)), q.arg([]int64(nil))
	order := "seq"
	if back {
		order = "seq DESC"
	}
	inRange := lineRead{launch: "$1", lo: "r.lo", hi: "r.hi", cols: append([]string{"launch_id"}, lineColumnList...)}
	sql := `SELECT ` + lineColumns + ` FROM unnest(` + los + `::bigint[], ` + his + `::bigint[]) AS r(lo, hi)
		CROSS JOIN LATERAL (SELECT * FROM (` + inRange.sql() + `) x OFFSET 0) AS lines` + q.where() + `
		ORDER BY ` + order
	for _, g := range rangeGroups(ranges, searchGroupSeqs) {
		q.args[len(q.args)-2], q.args[len(q.args)-1] = rangeBounds(g)
		rows, err := s.read(ctx).Query(ctx, sql, q.args...)
		if err != nil {
			return w, true, fmt.Errorf("store: search lines: %w", err)
		}
		if _, err := w.collect(ctx, s.read(ctx), launchID, rows, f); err != nil {
			return w, true, err
		}
		if w.More {
			break
		}
	}
	w.finish(back)
	if !back && lastSeq > 0 {
		w.ScannedTo = min(w.ScannedTo, max(lastSeq, f.After))
	}
	return w, true, nil
}
