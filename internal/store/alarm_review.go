package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// alarmColumns are an alarm's columns (alarms a) and the time of its
// first line. That line is nearly always a row (an alarm's lines are kept
// as rows): a probe of the primary key of lines, and only when it is not,
// the time at its place in its block's arrays. Reading it as any line
// (the union of rows and the block unnested) unpacked a block for each
// alarm: 180 ms for a page of 2,700 alarms.
var alarmColumns = `a.alarm_no, a.first_seq, a.last_seq, a.kind, a.fatal, a.headline, a.headline_seq, a.template,
	a.fingerprint, a.ranks, a.occurred_at, a.state, a.rule_id, a.decided_by, a.decided_at, a.reason,
	COALESCE((SELECT fl.ts FROM lines fl WHERE fl.launch_id = a.launch_id AND fl.seq = a.first_seq),
		(SELECT fb.ts[array_position(fb.seq, a.first_seq)] FROM line_blocks fb
		WHERE fb.launch_id = a.launch_id AND fb.block = a.first_seq >> ` + fmt.Sprint(blockShift) + `)), a.settled, a.cause_no,
	a.health_ok_since, a.health_ok_last, a.health_ok_detail`

func scanAlarm(row pgx.Row) (Alarm, error) {
	var a Alarm
	err := row.Scan(a.dest()...)
	return a, err
}

// dest is where a row of alarmColumns scans into, in order.
func (a *Alarm) dest() []any {
	return []any{&a.No, &a.FirstSeq, &a.LastSeq, &a.Kind, &a.Fatal, &a.Headline, &a.HeadlineSeq, &a.Template,
		&a.Fingerprint, &a.Ranks, &a.OccurredAt, &a.State, &a.RuleID, &a.DecidedBy, &a.DecidedAt, &a.Reason,
		&a.FirstTS, &a.Settled, &a.Cause, &a.HealthOKSince, &a.HealthOKLast, &a.HealthOKDetail}
}

// Alarm returns alarm no of a launch, or ErrNotFound.
func (s *Store) Alarm(ctx context.Context, launchID int64, no int) (Alarm, error) {
	a, err := scanAlarm(s.read(ctx).QueryRow(ctx, `SELECT `+alarmColumns+` FROM alarms a
		WHERE a.launch_id = $1 AND a.alarm_no = $2`, launchID, no))
	if errors.Is(err, pgx.ErrNoRows) {
		return a, ErrNotFound
	}
	if err != nil {
		return a, fmt.Errorf("store: alarm: %w", err)
	}
	return a, nil
}

// SetAlarmDecision records a person's verdict on an alarm (confirmed or
// dismissed) with who and why, and returns the state it had before. A
// person's decision replaces a rule's: rule_id is cleared.
func (t *Tx) SetAlarmDecision(ctx context.Context, launchID int64, no int, state, actor, reason string) (string, error) {
	var prev string
	err := t.tx.QueryRow(ctx, `
		WITH prev AS (SELECT state FROM alarms WHERE launch_id = $1 AND alarm_no = $2 FOR UPDATE)
		UPDATE alarms a SET state = $3, decided_by = $4, decided_at = now(), reason = NULLIF($5, ''),
			rule_id = NULL, updated_at = now()
		FROM prev WHERE a.launch_id = $1 AND a.alarm_no = $2
		RETURNING prev.state`, launchID, no, state, actor, reason).Scan(&prev)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("store: decide alarm: %w", err)
	}
	return prev, nil
}

// DecideConsequences gives the open consequences of alarm cause (alarms
// whose cause_no it is) the same decision, and returns their numbers: an
// engineer triages the root cause, and what it brought down goes with it.
func (t *Tx) DecideConsequences(ctx context.Context, launchID int64, cause int, state, actor, reason string) ([]int, error) {
	rows, err := t.tx.Query(ctx, `
		UPDATE alarms SET state = $3, decided_by = $4, decided_at = now(), reason = NULLIF($5, ''),
			rule_id = NULL, updated_at = now()
		WHERE launch_id = $1 AND cause_no = $2 AND state = 'open' AND NOT withdrawn
		RETURNING alarm_no`, launchID, cause, state, actor, reason)
	if err != nil {
		return nil, fmt.Errorf("store: decide consequences: %w", err)
	}
	nos, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fmt.Errorf("store: decide consequences: %w", err)
	}
	return nos, nil
}

// DecideOpenAlarm records a decision on an alarm only if it is still open,
// and reports whether it was. A bulk decision uses it so that an alarm a
// person (or a rule) decided in the meantime keeps that decision.
func (t *Tx) DecideOpenAlarm(ctx context.Context, launchID int64, no int, state, actor, reason string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `
		UPDATE alarms SET state = $3, decided_by = $4, decided_at = now(), reason = NULLIF($5, ''),
			rule_id = NULL, updated_at = now()
		WHERE launch_id = $1 AND alarm_no = $2 AND state = 'open'`, launchID, no, state, actor, reason)
	if err != nil {
		return false, fmt.Errorf("store: decide open alarm: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// AuditEvent is one recorded decision or rule change.
type AuditEvent struct {
	Actor   string
	Action  string // alarm.confirm, alarm.dismiss, rule.create ...
	Subject string // what it was done to, e.g. alarm:KEY/3
	Detail  map[string]any
	At      time.Time // set by the database when recorded
}

// AddAudit records an audit event in the transaction of the change itself,
// so there is never a change without its record. The row is written when
// the transaction's work is done, just before it commits (flushAudit):
// chaining a row holds the audit chain's lock to the end of its
// transaction (migration 00030), and a transaction that waited for any
// other lock while it held that one could deadlock with another that holds
// that lock and waits to chain its own row.
func (t *Tx) AddAudit(ctx context.Context, e AuditEvent) error {
	detail := e.Detail
	if detail == nil {
		detail = map[string]any{}
	}
	raw, err := json.Marshal(detail) // now: the caller may change its map after
	if err != nil {
		return fmt.Errorf("store: add audit event: %w", err)
	}
	t.audits = append(t.audits, pendingAudit{actor: e.Actor, action: e.Action, subject: e.Subject, detail: string(raw)})
	return nil
}

// pendingAudit is an audit event waiting for its transaction's end.
type pendingAudit struct{ actor, action, subject, detail string }

// flushAudit writes the transaction's audit events, in the order they were
// added, as the transaction's last statement.
func (t *Tx) flushAudit(ctx context.Context) error {
	if len(t.audits) == 0 {
		return nil
	}
	cols := make([][]string, 4)
	for _, a := range t.audits {
		cols[0], cols[1] = append(cols[0], a.actor), append(cols[1], a.action)
		cols[2], cols[3] = append(cols[2], a.subject), append(cols[3], a.detail)
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO audit_events (actor, action, subject, detail)
		SELECT actor, action, subject, detail::jsonb
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS e(actor, action, subject, detail, n)
		ORDER BY n`, cols[0], cols[1], cols[2], cols[3])
	if err != nil {
		return fmt.Errorf("store: add audit events: %w", err)
	}
	t.audits = nil
	return nil
}

// AuditFor returns the audit events of a subject, oldest first.
func (s *Store) AuditFor(ctx context.Context, subject string) ([]AuditEvent, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT actor, action, subject, detail, at FROM audit_events
		WHERE subject COLLATE "C" = $1 ORDER BY id`, subject)
	return collectAudit(rows, err)
}

// collectAudit reads the rows of an audit query.
func collectAudit(rows pgx.Rows, err error) ([]AuditEvent, error) {
	if err != nil {
		return nil, fmt.Errorf("store: audit events: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditEvent, error) {
		var e AuditEvent
		return e, row.Scan(&e.Actor, &e.Action, &e.Subject, &e.Detail, &e.At)
	})
	if err != nil {
		return nil, fmt.Errorf("store: audit events: %w", err)
	}
	return out, nil
}

// AuditWithPrefix returns the audit events whose subject starts with
// prefix (all alarms of a launch: "alarm:KEY/"), oldest first.
func (s *Store) AuditWithPrefix(ctx context.Context, prefix string) ([]AuditEvent, error) {
	// The subjects that start with prefix are, in byte order, those from
	// prefix up to (not including) prefix with its last byte incremented: an
	// index range on audit_events_subject_idx instead of a scan.
	upper := []byte(prefix)
	if len(upper) == 0 || upper[len(upper)-1] >= 0x7f {
		return nil, fmt.Errorf("store: audit prefix %q must end in an ASCII character", prefix)
	}
	upper[len(upper)-1]++
	rows, err := s.read(ctx).Query(ctx, `SELECT actor, action, subject, detail, at FROM audit_events
		WHERE subject COLLATE "C" >= $1 AND subject COLLATE "C" < $2 ORDER BY id`, prefix, string(upper))
	return collectAudit(rows, err)
}

// alarmMarkColumns are the columns of an alarm (alarms a) that AlarmMarks
// reads, and the time of its first line as alarmColumns reads it.
var alarmMarkColumns = `a.alarm_no, a.first_seq, a.last_seq, a.kind, a.fatal, a.headline, a.state, a.rule_id,
	COALESCE((SELECT fl.ts FROM lines fl WHERE fl.launch_id = a.launch_id AND fl.seq = a.first_seq),
		(SELECT fb.ts[array_position(fb.seq, a.first_seq)] FROM line_blocks fb
		WHERE fb.launch_id = a.launch_id AND fb.block = a.first_seq >> ` + fmt.Sprint(blockShift) + `)), a.settled, a.cause_no`

// AlarmMarks returns every alarm of a launch (but the withdrawn), in
// order, with what a page needs of each of them — its timeline's marks,
// its counts, its verdict, which cards it shows: number, seqs, kind,
// fatal, headline, state, rule, first line's time, settled and cause; the
// other fields are zero (AlarmsByNo reads the whole of the few a page
// shows). A crash loop's thousands of alarms cost half as much this way.
func (s *Store) AlarmMarks(ctx context.Context, launchID int64) ([]Alarm, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+alarmMarkColumns+` FROM alarms a WHERE a.launch_id = $1 AND NOT a.withdrawn ORDER BY a.alarm_no`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: alarm marks: %w", err)
	}
	defer rows.Close()
	var out []Alarm
	for rows.Next() {
		out = append(out, Alarm{})
		a := &out[len(out)-1]
		if err := rows.Scan(&a.No, &a.FirstSeq, &a.LastSeq, &a.Kind, &a.Fatal, &a.Headline, &a.State, &a.RuleID,
			&a.FirstTS, &a.Settled, &a.Cause); err != nil {
			return nil, fmt.Errorf("store: alarm marks: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: alarm marks: %w", err)
	}
	return out, nil
}

// AlarmsByNo returns the alarms of a launch numbered nos (but the
// withdrawn), whole, in order of number.
func (s *Store) AlarmsByNo(ctx context.Context, launchID int64, nos []int) ([]Alarm, error) {
	if len(nos) == 0 {
		return nil, nil
	}
	rows, err := s.read(ctx).Query(ctx, `SELECT `+alarmColumns+` FROM alarms a
		WHERE a.launch_id = $1 AND a.alarm_no = ANY($2) AND NOT a.withdrawn ORDER BY a.alarm_no`, launchID, nos)
	if err != nil {
		return nil, fmt.Errorf("store: alarms by number: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Alarm, error) { return scanAlarm(row) })
	if err != nil {
		return nil, fmt.Errorf("store: alarms by number: %w", err)
	}
	return out, nil
}
