package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
)

// QualityCell counts decisions on alarms: what people confirmed as real,
// what they dismissed as false, and what rules suppressed.
type QualityCell struct {
	Confirmed, Dismissed, Suppressed int
}

// Precision is confirmed / (confirmed + dismissed): the share of the
// alarms people judged that were real. ok is false when nobody judged any.
func (c QualityCell) Precision() (p float64, ok bool) {
	n := c.Confirmed + c.Dismissed
	if n == 0 {
		return 0, false
	}
	return float64(c.Confirmed) / float64(n), true
}

func (c *QualityCell) add(o QualityCell) {
	c.Confirmed += o.Confirmed
	c.Dismissed += o.Dismissed
	c.Suppressed += o.Suppressed
}

// QualityRow is one value of a dimension (a kind, a server, a signature)
// with its counts per week and in all.
type QualityRow struct {
	Key   string // the kind, server or fingerprint
	Label string // a signature's template; "" otherwise
	Weeks []QualityCell
	Total QualityCell
}

// QualityTable is the decisions by one dimension over the report's weeks.
type QualityTable struct {
	Dim       string // kind, server or signature
	Rows      []QualityRow
	Truncated bool // more values than shown (signatures)
}

// QualityReport is the classifier's precision from people's decisions:
// overall and by kind, server and signature, week by week.
type QualityReport struct {
	Weeks   []time.Time // the Monday (UTC) each column starts, oldest first
	Overall QualityRow
	Tables  []QualityTable
}

// qualityDims are the dimensions of the report with their SQL (fixed
// strings, never input).
var qualityDims = []struct{ name, key, label string }{
	{"kind", "a.kind", "''"},
	{"server", "CASE WHEN l.server = '' THEN '(unknown)' ELSE l.server END", "''"},
	{"signature", "a.fingerprint", "min(a.template)"},
}

// MaxQualitySignatures bounds the signature rows of the report (the most
// decided first).
const MaxQualitySignatures = 50

// Quality reads the decisions of the weeks weeks up to now (weeks of
// decisions by when they were made; a suppressed alarm by when its rule
// hid it). Withdrawn alarms do not count.
func (s *Store) Quality(ctx context.Context, now time.Time, weeks int) (QualityReport, error) {
	var r QualityReport
	monday := weekStart(now)
	for i := weeks - 1; i >= 0; i-- {
		r.Weeks = append(r.Weeks, monday.AddDate(0, 0, -7*i))
	}
	col := make(map[time.Time]int, weeks)
	for i, w := range r.Weeks {
		col[w] = i
	}
	r.Overall = QualityRow{Key: "all", Weeks: make([]QualityCell, weeks)}
	for di, d := range qualityDims {
		rows, err := s.read(ctx).Query(ctx, `
			SELECT `+d.key+`, `+d.label+`, date_trunc('week', COALESCE(a.decided_at, a.updated_at) AT TIME ZONE 'UTC'),
				count(*) FILTER (WHERE a.state = 'confirmed'), count(*) FILTER (WHERE a.state = 'dismissed'),
				count(*) FILTER (WHERE a.state = 'suppressed')
			FROM alarms a JOIN launches l ON l.id = a.launch_id
			WHERE a.state IN ('confirmed', 'dismissed', 'suppressed') AND NOT a.withdrawn
				AND COALESCE(a.decided_at, a.updated_at) >= $1
			GROUP BY 1, 3`, r.Weeks[0])
		if err != nil {
			return r, fmt.Errorf("store: quality by %s: %w", d.name, err)
		}
		byKey := map[string]*QualityRow{}
		var key, label string
		var week time.Time
		var c QualityCell
		_, err = pgx.ForEachRow(rows, []any{&key, &label, &week, &c.Confirmed, &c.Dismissed, &c.Suppressed}, func() error {
			i, ok := col[week.UTC()]
			if !ok {
				return nil // decided after now (a clock ahead of the page's)
			}
			row := byKey[key]
			if row == nil {
				row = &QualityRow{Key: key, Label: label, Weeks: make([]QualityCell, weeks)}
				byKey[key] = row
			}
			row.Weeks[i].add(c)
			row.Total.add(c)
			if di == 0 {
				r.Overall.Weeks[i].add(c)
				r.Overall.Total.add(c)
			}
			return nil
		})
		if err != nil {
			return r, fmt.Errorf("store: quality by %s: %w", d.name, err)
		}
		t := QualityTable{Dim: d.name}
		for _, row := range byKey {
			t.Rows = append(t.Rows, *row)
		}
		// The most judged first: their precision means the most.
		sort.Slice(t.Rows, func(i, j int) bool {
			a, b := t.Rows[i].Total, t.Rows[j].Total
			na, nb := a.Confirmed+a.Dismissed+a.Suppressed, b.Confirmed+b.Dismissed+b.Suppressed
			if na != nb {
				return na > nb
			}
			return t.Rows[i].Key < t.Rows[j].Key
		})
		if d.name == "signature" && len(t.Rows) > MaxQualitySignatures {
			t.Rows, t.Truncated = t.Rows[:MaxQualitySignatures], true
		}
		r.Tables = append(r.Tables, t)
	}
	return r, nil
}

// weekStart is the Monday 00:00 UTC of t's week, as date_trunc('week') has it.
func weekStart(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// RuleHits is a rule with what it holds now.
type RuleHits struct {
	Rule
	Suppressed      int // alarms it suppresses now
	SuppressedFatal int // of them, fatal-looking ones
}

// RulesWithHits returns every rule, newest first, with its hit count and
// the alarms it suppresses now.
func (s *Store) RulesWithHits(ctx context.Context) ([]RuleHits, error) {
	rules, err := s.Rules(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.read(ctx).Query(ctx, `
		SELECT rule_id, count(*), count(*) FILTER (WHERE fatal) FROM alarms
		WHERE state = 'suppressed' AND rule_id IS NOT NULL AND NOT withdrawn GROUP BY rule_id`)
	if err != nil {
		return nil, fmt.Errorf("store: rule hits: %w", err)
	}
	held := map[int64][2]int{}
	var id int64
	var n, fatal int
	if _, err := pgx.ForEachRow(rows, []any{&id, &n, &fatal}, func() error {
		held[id] = [2]int{n, fatal}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: rule hits: %w", err)
	}
	out := make([]RuleHits, len(rules))
	for i, r := range rules {
		out[i] = RuleHits{Rule: r, Suppressed: held[r.ID][0], SuppressedFatal: held[r.ID][1]}
	}
	return out, nil
}
