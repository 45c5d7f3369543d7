package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/classify"
)

// Rule is a stored suppression rule.
type Rule struct {
	ID             int64
	Matcher        string // template, substring or regex
	Pattern        string
	Scope          string // all, server or label
	ScopeValue     string // the server kind, or the label as name=value
	Reason         string
	Author         string
	FromLaunchID   *int64
	FromAlarmNo    *int
	ExpiresAt      *time.Time // nil: never expires (chosen explicitly)
	Enabled        bool
	OverrideReason *string // why it may hide confirmed alarms, if it may
	Hits           int64
	LastHitAt      *time.Time
	CreatedAt      time.Time
	Stale          bool // matched nothing in the last 50 launches
}

// Classify returns the rule as the classifier matches it.
func (r *Rule) Classify() classify.Rule {
	cr := classify.Rule{ID: r.ID, Matcher: r.Matcher, Pattern: r.Pattern}
	switch r.Scope {
	case "server":
		cr.Server = r.ScopeValue
	case "label":
		k, v, _ := strings.Cut(r.ScopeValue, "=")
		cr.Labels = map[string]string{k: v}
	}
	return cr
}

// InForce reports whether the rule suppresses alarms at t.
func (r *Rule) InForce(t time.Time) bool {
	return r.Enabled && (r.ExpiresAt == nil || r.ExpiresAt.After(t))
}

// inRuleScope is true for the launches l that rule r applies to.
const inRuleScope = `(r.scope = 'all'
	OR (r.scope = 'server' AND l.server = r.scope_value)
	OR (r.scope = 'label' AND l.labels ->> split_part(r.scope_value, '=', 1) = substr(r.scope_value, strpos(r.scope_value, '=') + 1)))`

// ruleColumns ends with "stale": the rule matched nothing in the last 50
// launches it applies to (and there have been 50 since it was made).
const ruleColumns = `r.id, r.matcher, r.pattern, r.scope, r.scope_value, r.reason, r.author, r.from_launch_id,
	r.from_alarm_no, r.expires_at, r.enabled, r.override_reason, r.hits, r.last_hit_at, r.created_at,
	(r.last_hit_at IS NULL OR r.last_hit_at < (SELECT l.created_at FROM launches l WHERE ` + inRuleScope + `
		ORDER BY l.created_at DESC OFFSET 49 LIMIT 1))
		AND (SELECT count(*) FROM launches l WHERE ` + inRuleScope + ` AND l.created_at > r.created_at) >= 50`

func collectRules(rows pgx.Rows) ([]Rule, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Rule, error) {
		var r Rule
		err := row.Scan(&r.ID, &r.Matcher, &r.Pattern, &r.Scope, &r.ScopeValue, &r.Reason, &r.Author, &r.FromLaunchID,
			&r.FromAlarmNo, &r.ExpiresAt, &r.Enabled, &r.OverrideReason, &r.Hits, &r.LastHitAt, &r.CreatedAt, &r.Stale)
		return r, err
	})
}

// Rules returns every rule, newest first.
func (s *Store) Rules(ctx context.Context) ([]Rule, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+ruleColumns+` FROM rules r ORDER BY r.id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: rules: %w", err)
	}
	out, err := collectRules(rows)
	if err != nil {
		return nil, fmt.Errorf("store: rules: %w", err)
	}
	return out, nil
}

// RulesInForce returns the enabled, unexpired rules, oldest first so the
// first rule made wins when several match.
func (t *Tx) RulesInForce(ctx context.Context) ([]Rule, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+ruleColumns+` FROM rules r
		WHERE r.enabled AND (r.expires_at IS NULL OR r.expires_at > now()) ORDER BY r.id`)
	if err != nil {
		return nil, fmt.Errorf("store: rules in force: %w", err)
	}
	out, err := collectRules(rows)
	if err != nil {
		return nil, fmt.Errorf("store: rules in force: %w", err)
	}
	return out, nil
}

// InsertRule stores a new rule and returns its id.
func (t *Tx) InsertRule(ctx context.Context, r Rule) (int64, error) {
	var id int64
	err := t.tx.QueryRow(ctx, `
		INSERT INTO rules (matcher, pattern, scope, scope_value, reason, author, from_launch_id, from_alarm_no,
			expires_at, enabled, override_reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, true, $10) RETURNING id`,
		r.Matcher, r.Pattern, r.Scope, r.ScopeValue, r.Reason, r.Author, r.FromLaunchID, r.FromAlarmNo, r.ExpiresAt,
		r.OverrideReason).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: insert rule: %w", err)
	}
	return id, nil
}

// SetRuleEnabled enables or disables a rule; ErrNotFound if there is none.
func (t *Tx) SetRuleEnabled(ctx context.Context, id int64, enabled bool) error {
	tag, err := t.tx.Exec(ctx, `UPDATE rules SET enabled = $2, updated_at = now() WHERE id = $1`, id, enabled)
	if err != nil {
		return fmt.Errorf("store: set rule enabled: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// RuleCandidate is a stored alarm with what a rule's scope looks at.
type RuleCandidate struct {
	LaunchID  int64
	LaunchKey string
	Server    string
	Labels    map[string]string
	Alarm     Alarm
}

// Classify returns the candidate's alarm as the classifier matches it.
func (c *RuleCandidate) Classify() classify.Alarm {
	a := &c.Alarm
	return classify.Alarm{ID: a.No, Kind: classify.AlarmKind(a.Kind), Fatal: a.Fatal, Headline: a.Headline,
		Template: a.Template, Fingerprint: a.Fingerprint}
}

// RuleCandidates returns up to limit stored alarms after the first offset,
// newest launches first, in the scope of r (its server or label); the
// caller matches the pattern, with the classifier's matcher, so preview and
// ingest agree.
func (s *Store) RuleCandidates(ctx context.Context, r Rule, offset, limit int) ([]RuleCandidate, error) {
	cr := r.Classify()
	var labelName, labelValue *string
	for k, v := range cr.Labels {
		labelName, labelValue = &k, &v
	}
	rows, err := s.read(ctx).Query(ctx, `
		SELECT l.id, l.key, l.server, l.labels, `+alarmColumns+`
		FROM alarms a JOIN launches l ON l.id = a.launch_id
		WHERE ($1 = '' OR l.server = $1)
			AND ($2::text IS NULL OR l.labels @> jsonb_build_object($2::text, $3::text))
			AND ($4 <> 'template' OR a.template = $5 OR a.fingerprint = $5)
		ORDER BY l.created_at DESC, l.id DESC, a.alarm_no LIMIT $6 OFFSET $7`,
		cr.Server, labelName, labelValue, r.Matcher, strings.TrimSpace(r.Pattern), limit, offset)
	if err != nil {
		return nil, fmt.Errorf("store: rule candidates: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (RuleCandidate, error) {
		var c RuleCandidate
		err := row.Scan(append([]any{&c.LaunchID, &c.LaunchKey, &c.Server, &c.Labels}, c.Alarm.dest()...)...)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: rule candidates: %w", err)
	}
	return out, nil
}

// SuppressByRule suppresses an open alarm that no person decided on, and
// counts the hit on the rule. It reports whether the alarm was suppressed.
func (t *Tx) SuppressByRule(ctx context.Context, launchID int64, no int, ruleID int64) (bool, error) {
	tag, err := t.tx.Exec(ctx, `
		UPDATE alarms SET state = 'suppressed', rule_id = $3, updated_at = now()
		WHERE launch_id = $1 AND alarm_no = $2 AND state = 'open' AND decided_by IS NULL`, launchID, no, ruleID)
	if err != nil {
		return false, fmt.Errorf("store: suppress alarm: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if _, err := t.tx.Exec(ctx, `UPDATE rules SET hits = hits + 1, last_hit_at = now() WHERE id = $1`, ruleID); err != nil {
		return false, fmt.Errorf("store: count rule hit: %w", err)
	}
	return true, nil
}

// ReopenByRule re-opens the alarms a rule suppressed that no person decided
// on, and returns the ids of their launches.
func (t *Tx) ReopenByRule(ctx context.Context, ruleID int64) ([]int64, error) {
	rows, err := t.tx.Query(ctx, `
		UPDATE alarms SET state = 'open', rule_id = NULL, updated_at = now()
		WHERE rule_id = $1 AND state = 'suppressed' AND decided_by IS NULL
		RETURNING launch_id`, ruleID)
	if err != nil {
		return nil, fmt.Errorf("store: reopen alarms: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: reopen alarms: %w", err)
	}
	return ids, nil
}

// ExpiredRulesWithAlarms returns the ids of expired rules that still hold
// suppressed alarms, so they can be re-opened.
func (t *Tx) ExpiredRulesWithAlarms(ctx context.Context, now time.Time) ([]int64, error) {
	rows, err := t.tx.Query(ctx, `
		SELECT DISTINCT r.id FROM rules r JOIN alarms a ON a.rule_id = r.id AND a.state = 'suppressed'
		WHERE r.expires_at <= $1`, now)
	if err != nil {
		return nil, fmt.Errorf("store: expired rules: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: expired rules: %w", err)
	}
	return ids, nil
}

// NextRuleExpiry returns when the next enabled rule expires after now
// (nil when none will).
func (s *Store) NextRuleExpiry(ctx context.Context, now time.Time) (*time.Time, error) {
	var next *time.Time
	if err := s.read(ctx).QueryRow(ctx, `SELECT min(expires_at) FROM rules WHERE enabled AND expires_at > $1`, now).Scan(&next); err != nil {
		return nil, fmt.Errorf("store: next rule expiry: %w", err)
	}
	return next, nil
}

// RuleByID returns one rule, or ErrNotFound.
func (s *Store) RuleByID(ctx context.Context, id int64) (Rule, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+ruleColumns+` FROM rules r WHERE r.id = $1`, id)
	if err != nil {
		return Rule{}, fmt.Errorf("store: rule: %w", err)
	}
	rules, err := collectRules(rows)
	if err != nil {
		return Rule{}, fmt.Errorf("store: rule: %w", err)
	}
	if len(rules) == 0 {
		return Rule{}, ErrNotFound
	}
	return rules[0], nil
}

// UpdateRule rewrites what a rule matches, its scope, reason, expiry and
// override; its author, origin and hits stay.
func (t *Tx) UpdateRule(ctx context.Context, id int64, r Rule) error {
	tag, err := t.tx.Exec(ctx, `
		UPDATE rules SET matcher = $2, pattern = $3, scope = $4, scope_value = $5, reason = $6, expires_at = $7,
			override_reason = $8, updated_at = now()
		WHERE id = $1`, id, r.Matcher, r.Pattern, r.Scope, r.ScopeValue, r.Reason, r.ExpiresAt, r.OverrideReason)
	if err != nil {
		return fmt.Errorf("store: update rule: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// ResuppressByRule suppresses again an alarm the rule held before an edit
// re-opened it; unlike SuppressByRule it is not a new hit.
func (t *Tx) ResuppressByRule(ctx context.Context, launchID int64, no int, ruleID int64) error {
	_, err := t.tx.Exec(ctx, `
		UPDATE alarms SET state = 'suppressed', rule_id = $3, updated_at = now()
		WHERE launch_id = $1 AND alarm_no = $2 AND state = 'open' AND decided_by IS NULL`, launchID, no, ruleID)
	if err != nil {
		return fmt.Errorf("store: suppress alarm: %w", err)
	}
	return nil
}
