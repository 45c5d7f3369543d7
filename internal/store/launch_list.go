package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// LaunchFilter narrows the launches list. Empty fields do not filter.
type LaunchFilter struct {
	// Status is the status a viewer sees: a starting or loading launch not
	// heard from for SilentAfter is silent, as status.Observed says.
	Status      string
	SilentAfter time.Duration
	// Now is when silence is measured (the server's clock, which tests
	// move); zero is the database's now().
	Now        time.Time
	Server     string
	LabelName  string
	LabelValue string // with LabelName: the label must have this value; alone: the label must exist
	Search     string // part of the key or the name, case-insensitive
	// AfterKey is a cursor: only launches listed after the launch with
	// this key (older, in the list's newest-first order).
	AfterKey string
	// Sort orders the list by one of LaunchSorts (newest first when "");
	// Asc turns it around. Ties keep the newest first.
	Sort   string
	Asc    bool
	Limit  int
	Offset int
}

// firstLineTS and readyLineTS are a listed launch's line times: point
// lookups on the primary keys of lines and line_blocks.
var (
	firstLineTS = "(SELECT ts FROM (" + lineRead{launch: "l.id", cols: []string{"seq", "ts"}, limit: "1"}.sql() + ") x)"
	readyLineTS = "(SELECT ts FROM (" + lineRead{launch: "l.id", lo: "l.ready_seq", hi: "l.ready_seq", cols: []string{"ts"}}.sql() + ") x)"
)

// LaunchSorts are the columns the list sorts by, as SQL over launches l.
var LaunchSorts = map[string]string{
	"key":    "l.key",
	"status": "l.status",
	"server": "l.server",
	"host":   "l.host",
	// When the launch's first line arrived, on the server's clock: the
	// list's one clock ("start" is its old name; a log's own start, on
	// its launch clock, may be months before it was shipped).
	"received": "l.created_at",
	"start":    "l.created_at",
	// Launches that never became ready sort after those that did, either way.
	"ready":  readyLineTS + " - " + firstLineTS,
	"alarms": "(SELECT count(*) FROM alarms a WHERE a.launch_id = l.id AND NOT a.withdrawn AND a.state = 'open')",
}

// orderBy is the list's ORDER BY clause for f.
func orderBy(f LaunchFilter) string {
	expr, ok := LaunchSorts[f.Sort]
	if !ok {
		return "l.created_at DESC, l.id DESC"
	}
	dir := " DESC NULLS LAST"
	if f.Asc {
		dir = " ASC NULLS LAST"
	}
	return expr + dir + ", l.created_at DESC, l.id DESC"
}

// LaunchListItem is a launch in the list, with the line times the list
// shows: start and time to ready are taken from the lines themselves so a
// replayed log shows its own times, not when it was uploaded.
type LaunchListItem struct {
	Launch
	FirstLineTS *time.Time // the time of the first line
	ReadyLineTS *time.Time // the time of the readiness line
	// DecidingHeadline is the headline of the alarm that decides the
	// launch's fate: its first fatal alarm still open or confirmed.
	DecidingHeadline *string
}

// TimeToReady is how long the launch took from its first line to ready.
func (l *LaunchListItem) TimeToReady() *time.Duration {
	if l.FirstLineTS == nil || l.ReadyLineTS == nil {
		return nil
	}
	d := l.ReadyLineTS.Sub(*l.FirstLineTS)
	return &d
}

// launchQuery builds the WHERE clause of a launch listing, numbering
// placeholders from the argument count so values never enter the SQL text.
type launchQuery struct {
	conds []string
	args  []any
}

func (q *launchQuery) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

func (q *launchQuery) where() string {
	if len(q.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(q.conds, " AND ")
}

// silentBefore is the time before which a launch not heard from is silent.
func (q *launchQuery) silentBefore(f LaunchFilter) string {
	if f.Now.IsZero() {
		return "now() - " + q.arg(f.SilentAfter) + "::interval"
	}
	return q.arg(f.Now.Add(-f.SilentAfter))
}

func newLaunchQuery(f LaunchFilter) *launchQuery {
	q := &launchQuery{}
	// lastHeard mirrors Launch.LastHeard: the latest of creation, last line
	// and last heartbeat.
	const lastHeard = "GREATEST(l.created_at, l.last_line_at, l.last_heartbeat_at)"
	switch {
	case f.Status == "silent" && f.SilentAfter > 0:
		q.conds = append(q.conds, "l.status IN ('starting', 'loading') AND "+lastHeard+" < "+q.silentBefore(f))
	case (f.Status == "starting" || f.Status == "loading") && f.SilentAfter > 0:
		q.conds = append(q.conds, "l.status = "+q.arg(f.Status)+" AND "+lastHeard+" >= "+q.silentBefore(f))
	case f.Status != "":
		q.conds = append(q.conds, "l.status = "+q.arg(f.Status))
	}
	if f.Server != "" {
		q.conds = append(q.conds, "l.server = "+q.arg(f.Server))
	}
	switch {
	case f.LabelName != "" && f.LabelValue != "":
		q.conds = append(q.conds, "l.labels @> jsonb_build_object("+q.arg(f.LabelName)+"::text, "+q.arg(f.LabelValue)+"::text)")
	case f.LabelName != "":
		q.conds = append(q.conds, "l.labels ? "+q.arg(f.LabelName))
	}
	if f.Search != "" {
		p := q.arg("%" + likeEscaper.Replace(f.Search) + "%")
		q.conds = append(q.conds, "(l.key ILIKE "+p+" OR l.name ILIKE "+p+")")
	}
	if f.AfterKey != "" {
		// The list's order is (created_at, id) descending; the cursor is a
		// launch key, so a page stays put when newer launches arrive.
		q.conds = append(q.conds, "(l.created_at, l.id) < (SELECT c.created_at, c.id FROM launches c WHERE c.key = "+q.arg(f.AfterKey)+")")
	}
	return q
}

// likeEscaper makes a search string match literally inside LIKE.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// ListLaunches returns one page of launches matching f, newest first, and
// how many match in all.
func (s *Store) ListLaunches(ctx context.Context, f LaunchFilter) ([]LaunchListItem, int, error) {
	q := newLaunchQuery(f)
	var total int
	if err := s.read(ctx).QueryRow(ctx, `SELECT count(*) FROM launches l`+q.where(), q.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count launches: %w", err)
	}
	limit, offset := q.arg(f.Limit), q.arg(f.Offset)
	// The line times are point lookups on the lines primary key, so the
	// page costs two index probes per launch whatever the launch's size;
	// the deciding alarm is one probe of the alarms primary key.
	rows, err := s.read(ctx).Query(ctx, `
		SELECT `+launchColumns+`,
			`+firstLineTS+`,
			`+readyLineTS+`,
			(SELECT a.headline FROM alarms a WHERE a.launch_id = l.id AND a.fatal AND a.state IN ('open', 'confirmed')
				ORDER BY a.alarm_no LIMIT 1)
		FROM launches l`+q.where()+`
		ORDER BY `+orderBy(f)+` LIMIT `+limit+` OFFSET `+offset, q.args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list launches: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (LaunchListItem, error) {
		var it LaunchListItem
		l := &it.Launch
		err := row.Scan(append(l.dest(), &it.FirstLineTS, &it.ReadyLineTS, &it.DecidingHeadline)...)
		l.countAlarms()
		return it, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store: list launches: %w", err)
	}
	return items, total, nil
}

// LaunchServers returns the server kinds of all launches, for filters.
func (s *Store) LaunchServers(ctx context.Context) ([]string, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT DISTINCT server FROM launches WHERE server <> '' ORDER BY server`)
	if err != nil {
		return nil, fmt.Errorf("store: launch servers: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: launch servers: %w", err)
	}
	return out, nil
}

// HasLaunches reports whether any launch is stored.
func (s *Store) HasLaunches(ctx context.Context) (bool, error) {
	var ok bool
	if err := s.read(ctx).QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM launches)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("store: has launches: %w", err)
	}
	return ok, nil
}
