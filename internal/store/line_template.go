package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/classify"
	"launchwatch/internal/templates"
)

// MaxLineTemplates bounds the template summary of one launch. Over it the
// least severe templates go first, and of equally severe ones the latest
// (ordered by severity, then non-noise before noise, then first seq).
const MaxLineTemplates = 1000

// maxTemplateRevisions: a batch that revises more verdicts than this (a
// classification rebuilt from every stored line) marks the summary stale
// instead of reading the text of every revised line again; the next
// comparison rebuilds it.
const maxTemplateRevisions = 5000

// TemplateSummary is a launch's lines by template, at most
// MaxLineTemplates of them.
type TemplateSummary struct {
	Templates []templates.LineTemplate
	// Evicted is how many templates were dropped over the cap: when it is
	// not zero, a late, unsevere template of the launch may be missing.
	Evicted int64
}

// AlarmHeadline is an alarm for ranking and grouping comparisons: the
// line its headline quotes (a fatal alarm's headline is the error to read
// first) and the range of its event's lines (a traceback's frames are one
// event, not one entry each).
type AlarmHeadline struct {
	No    int
	Fatal bool
	Cause *int // the alarm this one is a consequence of; nil for a root cause
	Seq   int64
	Text  string // the whole stored line
	// FirstSeq and LastSeq bound the event's lines (0 when unknown: the
	// headline's line alone).
	FirstSeq, LastSeq int64
	// State is open, confirmed, dismissed or suppressed: only open and
	// confirmed alarms lead a comparison.
	State string
}

// addLineTemplates adds the templates of new lines of a launch (LineIndex)
// to its template summary, in the transaction that writes them, and keeps
// the summary within MaxLineTemplates.
func (t *Tx) addLineTemplates(ctx context.Context, launchID int64, acc *templates.Acc) error {
	if acc.Len() == 0 {
		return nil
	}
	ts := acc.Kept()
	n := len(ts)
	hashes, templates, sevs, noise := make([]int64, n), make([]string, n), make([]int16, n), make([]bool, n)
	firsts, counts, samples := make([]int64, n), make([]int64, n), make([]string, n)
	for i, tm := range ts {
		hashes[i], templates[i], sevs[i], noise[i] = tm.Hash, tm.Template, int16(tm.Severity), tm.Noise
		firsts[i], counts[i], samples[i] = tm.FirstSeq, tm.Count, tm.Sample
	}
	var inserted int64
	err := t.tx.QueryRow(ctx, `
		WITH up AS (
			INSERT INTO line_templates AS t (launch_id, hash, template, severity, noise, first_seq, line_count, sample)
			SELECT $1, v.* FROM unnest($2::bigint[], $3::text[], $4::smallint[], $5::boolean[], $6::bigint[], $7::bigint[], $8::text[])
				AS v(hash, template, severity, noise, first_seq, line_count, sample)
			ON CONFLICT (launch_id, hash) DO UPDATE SET
				severity = GREATEST(t.severity, excluded.severity),
				line_count = t.line_count + excluded.line_count,
				first_seq = LEAST(t.first_seq, excluded.first_seq),
				sample = CASE WHEN excluded.first_seq < t.first_seq THEN excluded.sample ELSE t.sample END
			RETURNING (xmax = 0) AS inserted)
		SELECT count(*) FILTER (WHERE inserted) FROM up`,
		launchID, hashes, templates, sevs, noise, firsts, counts, samples).Scan(&inserted)
	if err != nil {
		return fmt.Errorf("store: add line templates: %w", err)
	}
	if inserted == 0 {
		return nil // no new template: the summary cannot have grown past the cap
	}
	// The hashes past the cap are picked once (ARRAY of a subquery is an
	// InitPlan): as a join, the planner of a launch whose statistics
	// predate its templates looped over the sorted summary once per row,
	// 60 ms a batch for a 1,000-template summary.
	_, err = t.tx.Exec(ctx, `
		WITH gone AS (
			DELETE FROM line_templates
			WHERE launch_id = $1 AND hash = ANY (ARRAY(
				SELECT hash FROM line_templates WHERE launch_id = $1
				ORDER BY severity DESC, noise, first_seq, hash OFFSET $2))
			RETURNING 1)
		UPDATE launches SET templates_evicted = templates_evicted + (SELECT count(*) FROM gone)
		WHERE id = $1 AND EXISTS (SELECT 1 FROM gone)`, launchID, MaxLineTemplates)
	if err != nil {
		return fmt.Errorf("store: trim line templates: %w", err)
	}
	return nil
}

// revisedLinesSQL reads the kind and text of the lines of seqs ($4) in
// [$2, $3].
var revisedLinesSQL = lineRead{launch: "$1", lo: "$2", hi: "$3", cols: []string{"seq", "kind", "text"}, conds: []string{"seq = ANY($4)"},
	uses: []string{"seq"}, order: true}.sql()

// reviseLineTemplates raises the severity of the templates of lines whose
// verdicts were revised (a traceback's lines join their alarm once its
// headline is known). A severity never goes down: a summary holds the
// worst its lines ever were.
func (t *Tx) reviseLineTemplates(ctx context.Context, launchID int64, vs []classify.LineVerdict) error {
	sev := map[int64]int{}
	for _, v := range vs {
		if s := templates.LineSeverity(string(v.Kind), v.Level, v.Alarm != 0); s > templates.SeverityOther {
			sev[v.Seq] = s
		}
	}
	switch {
	case len(sev) == 0:
		return nil
	case len(vs) > maxTemplateRevisions:
		if _, err := t.tx.Exec(ctx, `UPDATE launches SET templates_built = false WHERE id = $1`, launchID); err != nil {
			return fmt.Errorf("store: mark line templates stale: %w", err)
		}
		return nil
	}
	seqs := slices.Sorted(maps.Keys(sev))
	// Bounded and ordered by seq so that the primary key serves it (see ExistingSeqs).
	rows, err := t.tx.Query(ctx, revisedLinesSQL, launchID, seqs[0], seqs[len(seqs)-1], seqs)
	if err != nil {
		return fmt.Errorf("store: revise line templates: %w", err)
	}
	raised := map[int64]int{}
	type revised struct {
		seq        int64
		kind, text string
	}
	var rs []revised
	var fill textFill
	for rows.Next() {
		rs = append(rs, revised{})
		r := &rs[len(rs)-1]
		if err := rows.Scan(&r.seq, &r.kind, fill.scan(&r.text, &r.seq, len(rs)-1)); err != nil {
			rows.Close()
			return fmt.Errorf("store: revise line templates: %w", err)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: revise line templates: %w", err)
	}
	if err := fill.fill(ctx, t.tx, launchID, func(i int, text string) { rs[i].text = text }); err != nil {
		return fmt.Errorf("store: revise line templates: %w", err)
	}
	for _, r := range rs {
		if r.kind == string(classify.KindConfig) {
			continue
		}
		tmpl, _ := classify.LineTemplate(r.text)
		h := templates.Hash(tmpl)
		raised[h] = max(raised[h], sev[r.seq])
	}
	hashes := slices.Collect(maps.Keys(raised))
	sevs := make([]int16, len(hashes))
	for i, h := range hashes {
		sevs[i] = int16(raised[h])
	}
	_, err = t.tx.Exec(ctx, `
		UPDATE line_templates t SET severity = v.severity
		FROM unnest($2::bigint[], $3::smallint[]) AS v(hash, severity)
		WHERE t.launch_id = $1 AND t.hash = v.hash AND t.severity < v.severity`, launchID, hashes, sevs)
	if err != nil {
		return fmt.Errorf("store: revise line templates: %w", err)
	}
	return nil
}

// LineTemplates returns the template summary of a launch. A launch stored
// before the summary existed, or whose classification was rebuilt, has
// none that covers all its lines: it is built here, once, from every stored
// line (a derived cache, like an index; the launch's row lock keeps ingest
// out meanwhile).
func (s *Store) LineTemplates(ctx context.Context, launchID int64) (TemplateSummary, error) {
	var sum TemplateSummary
	var built bool
	err := s.read(ctx).QueryRow(ctx, `SELECT templates_built, templates_evicted FROM launches WHERE id = $1`, launchID).
		Scan(&built, &sum.Evicted)
	if errors.Is(err, pgx.ErrNoRows) {
		return sum, ErrNotFound
	}
	if err != nil {
		return sum, fmt.Errorf("store: line templates: %w", err)
	}
	if !built {
		if sum.Evicted, err = s.buildLineTemplates(ctx, launchID); err != nil {
			return sum, err
		}
	}
	rows, err := s.read(ctx).Query(ctx, `
		SELECT hash, template, severity, noise, first_seq, line_count, sample
		FROM line_templates WHERE launch_id = $1`, launchID)
	if err != nil {
		return sum, fmt.Errorf("store: line templates: %w", err)
	}
	sum.Templates, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (templates.LineTemplate, error) {
		var t templates.LineTemplate
		var sev int16
		err := row.Scan(&t.Hash, &t.Template, &sev, &t.Noise, &t.FirstSeq, &t.Count, &t.Sample)
		t.Severity = int(sev)
		return t, err
	})
	if err != nil {
		return sum, fmt.Errorf("store: line templates: %w", err)
	}
	return sum, nil
}

// buildLineTemplates replaces the template summary of a launch with one
// read from all its lines and returns how many templates the cap dropped.
// Memory stays bounded: the summary is pruned whenever it reaches four
// times the cap.
func (s *Store) buildLineTemplates(ctx context.Context, launchID int64) (int64, error) {
	var evicted int64
	err := s.WithTx(ctx, func(t *Tx) error {
		var built bool
		err := t.tx.QueryRow(ctx, `SELECT templates_built, templates_evicted FROM launches WHERE id = $1 FOR UPDATE`, launchID).
			Scan(&built, &evicted)
		if err != nil || built {
			return err // another request built it while this one waited
		}
		evicted = 0
		var last int64
		if err := t.tx.QueryRow(ctx, lastSeqSQL, launchID).Scan(&last); err != nil {
			return err
		}
		// A span of seqs at a time: the texts of its blocks are filled in
		// (textFill) before its lines are summarized.
		type line struct {
			seq               int64
			kind, level, text string
			inAlarm           bool
		}
		acc := &templates.Acc{}
		for from := int64(0); from <= last; from += templateSpan {
			rows, err := t.tx.Query(ctx, templateSpanSQL, launchID, from, from+templateSpan-1)
			if err != nil {
				return err
			}
			var ls []line
			var fill textFill
			for rows.Next() {
				ls = append(ls, line{})
				l := &ls[len(ls)-1]
				if err := rows.Scan(&l.seq, &l.kind, &l.level, &l.inAlarm, fill.scan(&l.text, &l.seq, len(ls)-1)); err != nil {
					rows.Close()
					return err
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if err := fill.fill(ctx, t.tx, launchID, func(i int, text string) { ls[i].text = text }); err != nil {
				return err
			}
			for _, l := range ls {
				acc.Add(l.seq, l.text, l.kind, l.level, l.inAlarm)
				if acc.Len() >= 4*MaxLineTemplates {
					evicted += acc.Prune(MaxLineTemplates)
				}
			}
		}
		evicted += acc.Prune(MaxLineTemplates)
		if _, err := t.tx.Exec(ctx, `DELETE FROM line_templates WHERE launch_id = $1`, launchID); err != nil {
			return err
		}
		ts := slices.Collect(acc.All())
		_, err = t.tx.CopyFrom(ctx, pgx.Identifier{"line_templates"},
			[]string{"launch_id", "hash", "template", "severity", "noise", "first_seq", "line_count", "sample"},
			pgx.CopyFromSlice(len(ts), func(i int) ([]any, error) {
				tm := ts[i]
				return []any{launchID, tm.Hash, tm.Template, int16(tm.Severity), tm.Noise, tm.FirstSeq, tm.Count, tm.Sample}, nil
			}))
		if err != nil {
			return err
		}
		_, err = t.tx.Exec(ctx, `UPDATE launches SET templates_built = true, templates_evicted = $2 WHERE id = $1`, launchID, evicted)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: build line templates: %w", err)
	}
	return evicted, nil
}

// templateSpan is how many seqs buildLineTemplates reads at a time.
const templateSpan = 1 << 16

// templateSpanSQL reads the lines of the launch ($1) with seq in [$2, $3]
// that a template summary counts.
var templateSpanSQL = `SELECT seq, kind, level, alarm_no IS NOT NULL, text FROM (` +
	lineRead{launch: "$1", lo: "$2", hi: "$3", cols: []string{"seq", "kind", "level", "alarm_no", "text"}}.sql() + `) l`

// AlarmHeadlines returns the alarms of a launch that were not withdrawn, with
// the lines their headlines quote and their events' ranges: the open and
// confirmed ones first (what a comparison puts first), then the others
// (whose events it folds all the same), at most 400, each part in order.
func (s *Store) AlarmHeadlines(ctx context.Context, launchID int64) ([]AlarmHeadline, error) {
	q := s.read(ctx)
	rows, err := q.Query(ctx, `
		SELECT a.alarm_no, a.fatal, a.cause_no, a.headline_seq, l.text, a.first_seq, a.last_seq, a.state
		FROM alarms a CROSS JOIN LATERAL (`+lineRead{launch: "a.launch_id", lo: "a.headline_seq", hi: "a.headline_seq", cols: []string{"text"}}.sql()+`) l
		WHERE a.launch_id = $1 AND NOT a.withdrawn
		ORDER BY a.state NOT IN ('open', 'confirmed'), a.alarm_no LIMIT 400`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: alarm headlines: %w", err)
	}
	var out []AlarmHeadline
	var fill textFill
	defer rows.Close()
	for rows.Next() {
		out = append(out, AlarmHeadline{})
		a := &out[len(out)-1]
		if err := rows.Scan(&a.No, &a.Fatal, &a.Cause, &a.Seq, fill.scan(&a.Text, &a.Seq, len(out)-1), &a.FirstSeq, &a.LastSeq, &a.State); err != nil {
			return nil, fmt.Errorf("store: alarm headlines: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: alarm headlines: %w", err)
	}
	if err := fill.fill(ctx, q, launchID, func(i int, text string) { out[i].Text = text }); err != nil {
		return nil, fmt.Errorf("store: alarm headlines: %w", err)
	}
	return out, nil
}
