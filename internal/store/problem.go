package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Problem is one recurring event across launches: the alarms that share a
// fingerprint, whatever their review state (withdrawn ones left out).
type Problem struct {
	Fingerprint string
	Kind        string
	Template    string
	Headline    string // the newest alarm's headline
	Fatal       bool   // any of them fatal
	Alarms      int
	Launches    int // launches affected
	Open        int
	Confirmed   int
	Dismissed   int
	Suppressed  int
	FirstSeen   time.Time
	LastSeen    time.Time
	// Trend is the launches affected per day over the last TrendDays days,
	// oldest first (the last entry is the day up to now).
	Trend []int
}

// TrendDays is how many days a problem's trend covers.
const TrendDays = 14

// seenAt is when Launchwatch first stored an alarm, on the server's clock:
// the problems' one clock. A trend counts days back from now, so it must
// not read a backfilled log's own times (months old: "quiet" for a problem
// shipped today); the alarm's time on its launch's clock is on its launch.
const seenAt = `a.created_at`

const problemColumns = `a.fingerprint, min(a.kind), min(a.template), (array_agg(a.headline ORDER BY ` + seenAt + ` DESC))[1],
	bool_or(a.fatal), count(*), count(DISTINCT a.launch_id),
	count(*) FILTER (WHERE a.state = 'open'), count(*) FILTER (WHERE a.state = 'confirmed'),
	count(*) FILTER (WHERE a.state = 'dismissed'), count(*) FILTER (WHERE a.state = 'suppressed'),
	min(` + seenAt + `), max(` + seenAt + `)`

func scanProblem(row pgx.Row) (Problem, error) {
	var p Problem
	err := row.Scan(&p.Fingerprint, &p.Kind, &p.Template, &p.Headline, &p.Fatal, &p.Alarms, &p.Launches,
		&p.Open, &p.Confirmed, &p.Dismissed, &p.Suppressed, &p.FirstSeen, &p.LastSeen)
	return p, err
}

// ProblemFilter selects problems for the list.
type ProblemFilter struct {
	OpenOnly bool   // only problems with open alarms
	Server   string // only alarms of launches of this server kind; "" any
	Limit    int
}

// Problems returns up to f.Limit problems, the most recently seen first,
// each with its trend up to now.
func (s *Store) Problems(ctx context.Context, now time.Time, f ProblemFilter) ([]Problem, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT `+problemColumns+`
		FROM alarms a JOIN launches l ON l.id = a.launch_id
		WHERE NOT a.withdrawn AND ($1 = '' OR l.server = $1)
		GROUP BY a.fingerprint
		HAVING NOT $2 OR count(*) FILTER (WHERE a.state = 'open') > 0
		ORDER BY max(`+seenAt+`) DESC, a.fingerprint LIMIT $3`, f.Server, f.OpenOnly, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: problems: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Problem, error) { return scanProblem(row) })
	if err != nil {
		return nil, fmt.Errorf("store: problems: %w", err)
	}
	if err := s.addTrends(ctx, now, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Problem returns the problem of one fingerprint, or ErrNotFound.
func (s *Store) Problem(ctx context.Context, now time.Time, fingerprint string) (Problem, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+problemColumns+` FROM alarms a
		WHERE NOT a.withdrawn AND a.fingerprint = $1 GROUP BY a.fingerprint`, fingerprint)
	if err != nil {
		return Problem{}, fmt.Errorf("store: problem: %w", err)
	}
	ps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Problem, error) { return scanProblem(row) })
	if err != nil {
		return Problem{}, fmt.Errorf("store: problem: %w", err)
	}
	if len(ps) == 0 {
		return Problem{}, ErrNotFound
	}
	if err := s.addTrends(ctx, now, ps); err != nil {
		return Problem{}, err
	}
	return ps[0], nil
}

// addTrends fills each problem's Trend: distinct launches per day, by
// days counted back from now.
func (s *Store) addTrends(ctx context.Context, now time.Time, ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	fps := make([]string, len(ps))
	idx := make(map[string]int, len(ps))
	for i, p := range ps {
		fps[i], idx[p.Fingerprint] = p.Fingerprint, i
		ps[i].Trend = make([]int, TrendDays)
	}
	// An alarm seen "after" now counts as today: its time is on its
	// launch's clock, which a time-zone estimate may put a little ahead.
	rows, err := s.read(ctx).Query(ctx, `
		SELECT a.fingerprint, GREATEST(floor(extract(epoch FROM $2::timestamptz - `+seenAt+`) / 86400), 0)::int,
			count(DISTINCT a.launch_id)
		FROM alarms a
		WHERE NOT a.withdrawn AND a.fingerprint = ANY($1) AND `+seenAt+` > $2::timestamptz - make_interval(days => $3)
		GROUP BY 1, 2`, fps, now, TrendDays)
	if err != nil {
		return fmt.Errorf("store: problem trends: %w", err)
	}
	var fp string
	var ago, n int
	_, err = pgx.ForEachRow(rows, []any{&fp, &ago, &n}, func() error {
		if ago >= 0 && ago < TrendDays {
			ps[idx[fp]].Trend[TrendDays-1-ago] = n
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: problem trends: %w", err)
	}
	return nil
}

// ProblemAlarm is one alarm of a problem with its launch.
type ProblemAlarm struct {
	LaunchKey    string
	Server       string
	LaunchStatus string
	No           int
	State        string
	Fatal        bool
	Headline     string
	SeenAt       time.Time
	DecidedBy    *string
	Reason       *string
}

// ProblemAlarms returns up to limit alarms of a problem (only its open
// ones with openOnly), the newest first.
func (s *Store) ProblemAlarms(ctx context.Context, fingerprint string, openOnly bool, limit int) ([]ProblemAlarm, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT l.key, l.server, l.status, a.alarm_no, a.state, a.fatal, a.headline, `+seenAt+`, a.decided_by, a.reason
		FROM alarms a JOIN launches l ON l.id = a.launch_id
		WHERE NOT a.withdrawn AND a.fingerprint = $1 AND (NOT $3 OR a.state = 'open')
		ORDER BY `+seenAt+` DESC, a.launch_id DESC, a.alarm_no LIMIT $2`, fingerprint, limit, openOnly)
	if err != nil {
		return nil, fmt.Errorf("store: problem alarms: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ProblemAlarm, error) {
		var p ProblemAlarm
		err := row.Scan(&p.LaunchKey, &p.Server, &p.LaunchStatus, &p.No, &p.State, &p.Fatal, &p.Headline, &p.SeenAt,
			&p.DecidedBy, &p.Reason)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: problem alarms: %w", err)
	}
	return out, nil
}

// HeadlineCount is one distinct headline of a problem and how many alarms
// carry it.
type HeadlineCount struct {
	Headline string
	Alarms   int
}

// ProblemHeadlines returns a problem's distinct headlines, the most
// frequent first (one template, different values: sizes, ranks, names).
func (s *Store) ProblemHeadlines(ctx context.Context, fingerprint string, limit int) ([]HeadlineCount, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT headline, count(*) FROM alarms WHERE NOT withdrawn AND fingerprint = $1
		GROUP BY headline ORDER BY count(*) DESC, headline LIMIT $2`, fingerprint, limit)
	if err != nil {
		return nil, fmt.Errorf("store: problem headlines: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (HeadlineCount, error) {
		var h HeadlineCount
		return h, row.Scan(&h.Headline, &h.Alarms)
	})
	if err != nil {
		return nil, fmt.Errorf("store: problem headlines: %w", err)
	}
	return out, nil
}

// OpenProblemAlarms returns the open alarms of a problem (withdrawn ones
// left out), ordered by launch so that callers lock launches in one order.
func (s *Store) OpenProblemAlarms(ctx context.Context, fingerprint string, limit int) ([]AlarmRef, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT a.launch_id, l.key, a.alarm_no FROM alarms a JOIN launches l ON l.id = a.launch_id
		WHERE a.state = 'open' AND NOT a.withdrawn AND a.fingerprint = $1
		ORDER BY a.launch_id, a.alarm_no LIMIT $2`, fingerprint, limit)
	if err != nil {
		return nil, fmt.Errorf("store: open problem alarms: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AlarmRef, error) {
		var r AlarmRef
		return r, row.Scan(&r.LaunchID, &r.LaunchKey, &r.No)
	})
	if err != nil {
		return nil, fmt.Errorf("store: open problem alarms: %w", err)
	}
	return out, nil
}
