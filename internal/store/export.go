package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ExportFilter selects decided alarms for the labeled-data export.
type ExportFilter struct {
	Since  time.Time // decided at or after; zero: any time
	Server string    // "" any
	State  string    // confirmed, dismissed, suppressed; "" all three
	// AfterLaunch and AfterNo: the page starts after this alarm, in
	// (launch id, alarm number) order.
	AfterLaunch int64
	AfterNo     int
	Limit       int
}

// ExportedAlarm is a decided alarm with its launch and, when a rule
// suppressed it, that rule.
type ExportedAlarm struct {
	LaunchID  int64
	LaunchKey string
	Server    string
	Labels    map[string]string
	Alarm     Alarm
	// DecidedAt is when a person decided, or when the rule suppressed it.
	DecidedAt time.Time
	Rule      *Rule // only Matcher, Pattern, Author, Reason and ID are set
}

// ExportAlarms returns up to f.Limit decided alarms (withdrawn ones left
// out) after the position in f, ordered by launch and alarm number. A
// suppressed alarm has no decided_at: the time it was suppressed
// (updated_at) stands for it.
func (s *Store) ExportAlarms(ctx context.Context, f ExportFilter) ([]ExportedAlarm, error) {
	var since *time.Time
	if !f.Since.IsZero() {
		since = &f.Since
	}
	rows, err := s.read(ctx).Query(ctx, `
		SELECT l.id, l.key, l.server, l.labels, COALESCE(a.decided_at, a.updated_at),
			r.id, r.matcher, r.pattern, r.author, r.reason, `+alarmColumns+`
		FROM alarms a JOIN launches l ON l.id = a.launch_id
			LEFT JOIN rules r ON r.id = a.rule_id AND a.state = 'suppressed'
		WHERE a.state IN ('confirmed', 'dismissed', 'suppressed') AND NOT a.withdrawn
			AND ($1 = '' OR a.state = $1) AND ($2 = '' OR l.server = $2)
			AND ($3::timestamptz IS NULL OR COALESCE(a.decided_at, a.updated_at) >= $3)
			AND (a.launch_id, a.alarm_no) > ($4, $5)
		ORDER BY a.launch_id, a.alarm_no LIMIT $6`,
		f.State, f.Server, since, f.AfterLaunch, f.AfterNo, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: export alarms: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ExportedAlarm, error) {
		var e ExportedAlarm
		var ruleID *int64
		var matcher, pattern, author, reason *string
		err := row.Scan(append([]any{&e.LaunchID, &e.LaunchKey, &e.Server, &e.Labels, &e.DecidedAt,
			&ruleID, &matcher, &pattern, &author, &reason}, e.Alarm.dest()...)...)
		if err == nil && ruleID != nil {
			e.Rule = &Rule{ID: *ruleID, Matcher: *matcher, Pattern: *pattern, Author: *author, Reason: *reason}
		}
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: export alarms: %w", err)
	}
	return out, nil
}

// AlarmExcerpt is an alarm's own lines and a few lines around them.
type AlarmExcerpt struct {
	Own       []Line // the lines that belong to the alarm, at most maxOwn
	Truncated bool   // it has more than maxOwn lines
	Before    []Line // up to `around` lines before its first line
	After     []Line // up to `around` lines after its last line
}

// AlarmExcerpt reads alarm a's own lines (those linked to it, not every
// line between its first and last) and up to around lines on each side,
// in one round trip over the lines' primary key.
func (s *Store) AlarmExcerpt(ctx context.Context, launchID int64, a Alarm, around, maxOwn int) (AlarmExcerpt, error) {
	own := lineRead{launch: "$1", lo: "$2", hi: "$3", cols: lineColumnList, conds: []string{"alarm_no = $4"}, uses: lineColumnList,
		limit: "$5", rowsOnly: true} // an alarm's lines are kept as rows
	before := lineRead{launch: "$1", hi: "$2::bigint - 1", cols: lineColumnList, back: true, limit: "$6"}
	after := lineRead{launch: "$1", lo: "$3::bigint + 1", cols: lineColumnList, limit: "$6"}
	q := s.read(ctx)
	rows, err := q.Query(ctx, `
		(SELECT 0, * FROM (`+own.sql()+`) o)
		UNION ALL
		(SELECT -1, * FROM (`+before.sql()+`) b)
		UNION ALL
		(SELECT 1, * FROM (`+after.sql()+`) a)`,
		launchID, a.FirstSeq, a.LastSeq, a.No, maxOwn+1, around)
	if err != nil {
		return AlarmExcerpt{}, fmt.Errorf("store: alarm excerpt: %w", err)
	}
	var ex AlarmExcerpt
	var all []Line
	var wheres []int
	var fill textFill
	defer rows.Close()
	for rows.Next() {
		var where int
		all = append(all, Line{})
		l := &all[len(all)-1]
		if err := rows.Scan(&where, &l.Seq, &l.TS, &l.ReceivedAt, &l.Stream, &l.Kind, &l.Level, &l.Rank, &l.AlarmNo, fill.scan(&l.Text, &l.Seq, len(all)-1)); err != nil {
			return AlarmExcerpt{}, fmt.Errorf("store: alarm excerpt: %w", err)
		}
		wheres = append(wheres, where)
	}
	if err := rows.Err(); err != nil {
		return AlarmExcerpt{}, fmt.Errorf("store: alarm excerpt: %w", err)
	}
	if err := fill.fill(ctx, q, launchID, func(i int, text string) { all[i].Text = text }); err != nil {
		return AlarmExcerpt{}, fmt.Errorf("store: alarm excerpt: %w", err)
	}
	for i, l := range all {
		switch wheres[i] {
		case -1:
			ex.Before = append([]Line{l}, ex.Before...) // read newest first
		case 0:
			ex.Own = append(ex.Own, l)
		default:
			ex.After = append(ex.After, l)
		}
	}
	if len(ex.Own) > maxOwn {
		ex.Own, ex.Truncated = ex.Own[:maxOwn], true
	}
	return ex, nil
}
