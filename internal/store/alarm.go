package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/classify"
)

// Alarm is a stored error event with its review state.
type Alarm struct {
	No          int
	FirstSeq    int64
	LastSeq     int64
	Kind        string
	Fatal       bool
	Headline    string
	HeadlineSeq int64
	Template    string
	Fingerprint string
	Ranks       int
	OccurredAt  *time.Time
	State       string
	RuleID      *int64
	DecidedBy   *string
	DecidedAt   *time.Time
	Reason      *string
	FirstTS     *time.Time // the time of the alarm's first line
	// Cause is the number of the alarm this one is a consequence of (a
	// launcher reporting its child, "See root cause above"), nil for a
	// root cause. A consequence is decided with its cause.
	Cause *int
	// Settled: the event can no longer change; only settled fatal alarms
	// count for the status (an unsettled one shows as settling).
	Settled bool
	// HealthOKSince and HealthOKLast are the first and the latest health
	// probe that passed after this fatal alarm said the engine died, nil
	// when none did; HealthOKDetail is what answered (migrations/00023).
	HealthOKSince, HealthOKLast *time.Time
	HealthOKDetail              string
}

// UpsertAlarms stores alarms the classifier created or extended. The
// classifier owns an alarm's extent and headline; its review state (owned by
// people and rules) is left as it is.
func (t *Tx) UpsertAlarms(ctx context.Context, launchID int64, alarms []classify.Alarm) error {
	if len(alarms) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, a := range alarms {
		var occurred *time.Time
		if !a.Time.IsZero() {
			occurred = &a.Time
		}
		batch.Queue(`
			INSERT INTO alarms (launch_id, alarm_no, first_seq, last_seq, kind, fatal, headline, headline_seq,
				template, fingerprint, ranks, occurred_at, withdrawn, settled, cause_no)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, NULLIF($15, 0))
			ON CONFLICT (launch_id, alarm_no) DO UPDATE SET
				first_seq = EXCLUDED.first_seq, last_seq = EXCLUDED.last_seq, kind = EXCLUDED.kind,
				fatal = EXCLUDED.fatal, headline = EXCLUDED.headline, headline_seq = EXCLUDED.headline_seq,
				template = EXCLUDED.template, fingerprint = EXCLUDED.fingerprint, ranks = EXCLUDED.ranks,
				occurred_at = COALESCE(alarms.occurred_at, EXCLUDED.occurred_at), withdrawn = EXCLUDED.withdrawn, settled = EXCLUDED.settled,
				cause_no = EXCLUDED.cause_no, updated_at = now()`,
			launchID, a.ID, a.FirstSeq, a.LastSeq, string(a.Kind), a.Fatal, a.Headline, a.HeadlineSeq,
			a.Template, a.Fingerprint, max(a.Ranks, 1), occurred, a.Withdrawn, a.Settled, a.Cause)
	}
	if err := t.tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("store: upsert alarms: %w", err)
	}
	return nil
}

// DeleteAlarmsAfter removes alarms numbered above no; a rebuilt
// classification that found fewer events than before uses it.
func (t *Tx) DeleteAlarmsAfter(ctx context.Context, launchID int64, no int) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM alarms WHERE launch_id = $1 AND alarm_no > $2`, launchID, no); err != nil {
		return fmt.Errorf("store: delete alarms: %w", err)
	}
	return nil
}

// AlarmFacts counts a launch's fatal alarms by review state, for its status.
type AlarmFacts struct {
	OpenFatal      int // settled open fatal alarms: only these make a launch alarm
	ConfirmedFatal int // a person's confirmation counts whether settled or not
	// PendingFatal counts unsettled open fatal alarms that start before the
	// ready line (all of them while not ready): no verdict yet, and one that
	// would outrank a readiness that came after it. An alarm after the
	// ready line does not hold readiness: the launch was ready before it.
	PendingFatal int
	// OpenFatalAfterReady counts the settled open fatal alarms that start
	// after the ready line (0 while not ready).
	OpenFatalAfterReady int
}

// alarmFactsSelect computes AlarmFacts over the alarms joined as a; ready is
// the SQL expression of the launch's ready seq (NULL when not ready).
func alarmFactsSelect(ready string) string {
	return `
	count(a.*) FILTER (WHERE a.fatal AND a.state = 'open' AND a.settled),
	count(a.*) FILTER (WHERE a.fatal AND a.state = 'confirmed'),
	count(a.*) FILTER (WHERE a.fatal AND a.state = 'open' AND NOT a.settled AND (` + ready + ` IS NULL OR a.first_seq < ` + ready + `)),
	count(a.*) FILTER (WHERE a.fatal AND a.state = 'open' AND a.settled AND a.first_seq > ` + ready + `)`
}

// AlarmFacts returns the fatal-alarm counts of a launch whose ready line is
// readySeq (nil when not ready).
func (t *Tx) AlarmFacts(ctx context.Context, launchID int64, readySeq *int64) (AlarmFacts, error) {
	var f AlarmFacts
	err := t.tx.QueryRow(ctx, `SELECT `+alarmFactsSelect("$2::bigint")+`
		FROM alarms a WHERE a.launch_id = $1 AND NOT a.withdrawn`, launchID, readySeq).Scan(&f.OpenFatal, &f.ConfirmedFatal, &f.PendingFatal,
		&f.OpenFatalAfterReady)
	if err != nil {
		return f, fmt.Errorf("store: alarm facts: %w", err)
	}
	return f, nil
}

// Alarms returns the alarms of a launch in order.
func (s *Store) Alarms(ctx context.Context, launchID int64) ([]Alarm, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+alarmColumns+` FROM alarms a WHERE a.launch_id = $1 AND NOT a.withdrawn ORDER BY a.alarm_no`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: alarms: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Alarm, error) { return scanAlarm(row) })
	if err != nil {
		return nil, fmt.Errorf("store: alarms: %w", err)
	}
	return out, nil
}
