package review

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"launchwatch/internal/classify"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
)

// DefaultRuleLife is how long a rule lives unless its author explicitly
// chooses that it never expires.
const DefaultRuleLife = 30 * 24 * time.Hour

// previewLimit bounds how many stored alarms a preview reads.
const previewLimit = 5000

// RuleDraft is a suppression rule as submitted by its author.
type RuleDraft struct {
	Matcher        string // template, substring or regex
	Pattern        string
	Scope          string // all, server or label
	ScopeValue     string // the server kind, or name=value
	Reason         string
	Author         string
	Expiry         string // "days" (the default) or "never", chosen explicitly
	ExpiryDays     int    // with "days": the rule expires this many days from now; 0 means 30
	FromLaunchKey  string // the alarm the rule came from, if any
	FromAlarmNo    int
	Override       bool   // hide confirmed alarms anyway
	OverrideReason string // required with Override
	// Admin is set when the author is an admin: only admins make rules for
	// all launches or rules that hide confirmed alarms.
	Admin bool
}

// checkRole refuses what only an admin may do: a rule for all launches,
// one that hides confirmed alarms, or a change to such a rule (old, when
// editing one).
func (d *RuleDraft) checkRole(old *store.Rule) error {
	switch {
	case d.Admin:
		return nil
	case d.Scope == "all":
		return &ForbiddenError{Reason: "a rule for all launches needs an admin: scope it to a server or a label"}
	case d.Override:
		return &ForbiddenError{Reason: "only an admin may make a rule that hides confirmed alarms"}
	case old != nil && old.Scope == "all":
		return &ForbiddenError{Reason: "this rule covers all launches: only an admin may change it"}
	case old != nil && old.OverrideReason != nil:
		return &ForbiddenError{Reason: "this rule may hide confirmed alarms: only an admin may change it"}
	}
	return nil
}

// Validate trims the draft and checks every field; messages are per form field.
func (d *RuleDraft) Validate() error {
	d.Pattern, d.ScopeValue = strings.TrimSpace(d.Pattern), strings.TrimSpace(d.ScopeValue)
	d.Reason, d.Author = strings.TrimSpace(d.Reason), strings.TrimSpace(d.Author)
	d.OverrideReason = strings.TrimSpace(d.OverrideReason)
	f := map[string]string{}
	if err := (classify.Rule{Matcher: d.Matcher, Pattern: d.Pattern}).Validate(); err != nil {
		f["pattern"] = strings.TrimPrefix(err.Error(), "classify: ")
	} else if len(d.Pattern) > 2000 {
		f["pattern"] = "a pattern is at most 2000 bytes"
	} else if why := blindReason(d.Matcher, d.Pattern); why != "" {
		f["pattern"] = why
	}
	if why := checkScope(d.Scope, &d.ScopeValue); why != "" {
		f["scope"] = why
	}
	if d.Reason == "" {
		f["reason"] = "a rule needs a reason: why are these alarms false?"
	} else if utf8.RuneCountInString(d.Reason) > 1000 {
		f["reason"] = "a reason is at most 1000 characters"
	}
	if d.Author == "" || utf8.RuneCountInString(d.Author) > 80 || strings.ContainsAny(d.Author, "\x00\n\r") {
		f["name"] = "enter your name (at most 80 characters): every rule records its author"
	}
	if d.Expiry == "" || d.Expiry == "30d" {
		d.Expiry = "days"
	}
	if d.ExpiryDays == 0 {
		d.ExpiryDays = int(DefaultRuleLife / (24 * time.Hour))
	}
	switch {
	case d.Expiry != "days" && d.Expiry != "never":
		f["expiry"] = "choose a number of days or never"
	case d.Expiry == "days" && (d.ExpiryDays < 1 || d.ExpiryDays > 365):
		f["expiry"] = "a rule lives 1 to 365 days, or never expires"
	}
	if d.Override && d.OverrideReason == "" {
		f["override"] = "say why this rule may hide alarms a person confirmed"
	}
	if len(f) > 0 {
		return &InvalidError{Fields: f}
	}
	return nil
}

// checkScope says what is wrong with a scope (all launches, a server kind
// or a label as name=value), "" if nothing; a scope of all launches has no
// value.
func checkScope(scope string, value *string) string {
	switch scope {
	case "all":
		*value = ""
	case "server":
		if !launchid.ServerPattern.MatchString(*value) {
			return "name the server kind, such as sglang or vllm"
		}
	case "label":
		if k, v, ok := strings.Cut(*value, "="); !ok || k == "" || v == "" || len(*value) > 200 {
			return "give the label as name=value"
		}
	default:
		return "choose all launches, a server kind or a label"
	}
	return ""
}

// checkAuthor says what is wrong with the name of who makes a change, ""
// if nothing.
func checkAuthor(name string) string {
	if name == "" || utf8.RuneCountInString(name) > 80 || strings.ContainsAny(name, "\x00\n\r") {
		return "enter your name (at most 80 characters): every change records its author"
	}
	return ""
}

func (d *RuleDraft) rule(now time.Time) store.Rule {
	r := store.Rule{Matcher: d.Matcher, Pattern: d.Pattern, Scope: d.Scope, ScopeValue: d.ScopeValue,
		Reason: d.Reason, Author: d.Author}
	if d.Expiry != "never" {
		exp := now.Add(time.Duration(d.ExpiryDays) * 24 * time.Hour)
		r.ExpiresAt = &exp
	}
	if d.Override {
		r.OverrideReason = &d.OverrideReason
	}
	return r
}

// Match is a stored alarm a rule matches.
type Match struct {
	LaunchID  int64
	LaunchKey string
	Alarm     store.Alarm
}

// Preview is what a rule would match among the stored alarms.
type Preview struct {
	Open       []Match // it will suppress these
	Dismissed  []Match // already judged false by a person
	Confirmed  []Match // real failures it would hide from now on
	Suppressed []Match // already suppressed by a rule
	Truncated  bool    // more alarms were in scope than the preview reads
}

// Total is how many alarms the rule matches.
func (p *Preview) Total() int {
	return len(p.Open) + len(p.Dismissed) + len(p.Confirmed) + len(p.Suppressed)
}

// PreviewRule matches the draft against the newest stored alarms (at most
// previewLimit) with the classifier's matcher, the one ingest uses.
func PreviewRule(ctx context.Context, st *store.Store, d RuleDraft) (*Preview, error) {
	return matchRule(ctx, st, d, previewLimit)
}

// matchRule matches the draft against the stored alarms in its scope,
// newest first, reading them a page at a time: at most limit of them, or
// all with limit 0. Saving a rule reads all, so no confirmed alarm and no
// open one escapes it however many alarms are stored.
func matchRule(ctx context.Context, st *store.Store, d RuleDraft, limit int) (*Preview, error) {
	r := d.rule(time.Now())
	p := &Preview{}
	rs, err := classify.CompileRules([]classify.Rule{r.Classify()})
	if err != nil {
		return p, nil // an invalid pattern matches nothing; Validate says why
	}
	for offset := 0; ; offset += previewLimit {
		n := previewLimit
		if limit > 0 {
			n = min(previewLimit, limit-offset)
		}
		cands, err := st.RuleCandidates(ctx, r, offset, n+1)
		if err != nil {
			return nil, err
		}
		more := len(cands) > n
		if more {
			cands = cands[:n]
		}
		p.match(rs, cands)
		if !more {
			return p, nil
		}
		if limit > 0 && offset+n >= limit {
			p.Truncated = true
			return p, nil
		}
	}
}

func (p *Preview) match(rs *classify.RuleSet, cands []store.RuleCandidate) {
	for i := range cands {
		c := &cands[i]
		if _, ok := rs.Match(c.Classify(), c.Server, c.Labels); !ok {
			continue
		}
		m := Match{LaunchID: c.LaunchID, LaunchKey: c.LaunchKey, Alarm: c.Alarm}
		switch c.Alarm.State {
		case "open":
			p.Open = append(p.Open, m)
		case "dismissed":
			p.Dismissed = append(p.Dismissed, m)
		case "confirmed":
			p.Confirmed = append(p.Confirmed, m)
		default:
			p.Suppressed = append(p.Suppressed, m)
		}
	}
}

// SaveRule validates the draft, refuses a rule that would hide confirmed
// alarms unless overridden with a reason, stores it and suppresses the
// open alarms it matches in every launch at once. It returns the rule's id
// and the preview it acted on.
func SaveRule(ctx context.Context, st *store.Store, d RuleDraft) (int64, *Preview, error) {
	if err := d.Validate(); err != nil {
		return 0, nil, err
	}
	if err := d.checkRole(nil); err != nil {
		return 0, nil, err
	}
	p, err := matchRule(ctx, st, d, 0)
	if err != nil {
		return 0, nil, err
	}
	if len(p.Confirmed) > 0 && !d.Override {
		return 0, p, &InvalidError{Fields: map[string]string{"override": "this rule would hide " +
			strconv.Itoa(len(p.Confirmed)) + " confirmed alarm(s): narrow it, or override with a reason"}}
	}
	r := d.rule(time.Now())
	if d.FromLaunchKey != "" {
		if l, err := st.LaunchByKey(ctx, d.FromLaunchKey); err == nil {
			r.FromLaunchID, r.FromAlarmNo = &l.ID, &d.FromAlarmNo
		}
	}
	var id int64
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if id, err = tx.InsertRule(ctx, r); err != nil {
			return err
		}
		launches := map[int64]string{}
		for _, m := range p.Open {
			if _, err := tx.SuppressByRule(ctx, m.LaunchID, m.Alarm.No, id); err != nil {
				return err
			}
			launches[m.LaunchID] = m.LaunchKey
		}
		if err := recompute(ctx, tx, launches); err != nil {
			return err
		}
		detail := map[string]any{"matcher": r.Matcher, "pattern": r.Pattern, "scope": r.Scope,
			"scope_value": r.ScopeValue, "reason": r.Reason, "expiry": d.Expiry, "expiry_days": d.ExpiryDays, "suppressed": len(p.Open),
			"confirmed_matched": len(p.Confirmed)}
		if d.Override {
			detail["override_reason"] = d.OverrideReason
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: d.Author, Action: "rule.create",
			Subject: RuleSubject(id), Detail: detail})
	})
	return id, p, err
}

// SetRuleEnabled enables or disables a rule, recording who did it and,
// when given, why. Disabling re-opens the alarms it suppressed that no
// person decided on; enabling suppresses the open alarms it matches again.
// Only an admin may switch a rule for all launches or one that hides
// confirmed alarms.
// An expired rule is not brought back into force: expiry is judged at now.
func SetRuleEnabled(ctx context.Context, st *store.Store, id int64, enabled bool, actor, reason string, admin bool, now time.Time) error {
	actor, reason = strings.TrimSpace(actor), strings.TrimSpace(reason)
	if actor == "" || utf8.RuneCountInString(actor) > 80 || strings.ContainsAny(actor, "\x00\n\r") {
		return &InvalidError{Fields: map[string]string{"name": "enter your name: every rule change records who made it"}}
	}
	if utf8.RuneCountInString(reason) > 1000 {
		return &InvalidError{Fields: map[string]string{"reason": "a reason is at most 1000 characters"}}
	}
	old, err := st.RuleByID(ctx, id)
	if err != nil {
		return err
	}
	d := RuleDraft{Admin: admin}
	if err := d.checkRole(&old); err != nil {
		return err
	}
	return st.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.SetRuleEnabled(ctx, id, enabled); err != nil {
			return err
		}
		action := "rule.disable"
		if enabled {
			action = "rule.enable"
			if err := suppressWithRule(ctx, st, tx, id, now); err != nil {
				return err
			}
		} else if err := reopen(ctx, tx, id); err != nil {
			return err
		}
		var detail map[string]any
		if reason != "" {
			detail = map[string]any{"reason": reason}
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: action, Subject: RuleSubject(id), Detail: detail})
	})
}

// ReopenExpired re-opens the alarms held by rules that have expired at now.
func ReopenExpired(ctx context.Context, st *store.Store, now time.Time) error {
	return st.WithTx(ctx, func(tx *store.Tx) error {
		ids, err := tx.ExpiredRulesWithAlarms(ctx, now)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := reopen(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

func reopen(ctx context.Context, tx *store.Tx, ruleID int64) error {
	ids, err := tx.ReopenByRule(ctx, ruleID)
	if err != nil {
		return err
	}
	launches := map[int64]string{}
	for _, id := range ids {
		launches[id] = ""
	}
	return recompute(ctx, tx, launches)
}

func suppressWithRule(ctx context.Context, st *store.Store, tx *store.Tx, id int64, now time.Time) error {
	rules, err := st.Rules(ctx)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(rules, func(r store.Rule) bool { return r.ID == id })
	if i < 0 {
		return store.ErrNotFound
	}
	r := rules[i]
	// r was read outside tx, before it was enabled: only its expiry counts.
	if r.ExpiresAt != nil && !r.ExpiresAt.After(now) {
		return nil // an expired rule suppresses nothing, enabled or not
	}
	d := RuleDraft{Matcher: r.Matcher, Pattern: r.Pattern, Scope: r.Scope, ScopeValue: r.ScopeValue}
	p, err := matchRule(ctx, st, d, 0)
	if err != nil {
		return err
	}
	launches := map[int64]string{}
	for _, m := range p.Open {
		if _, err := tx.SuppressByRule(ctx, m.LaunchID, m.Alarm.No, id); err != nil {
			return err
		}
		launches[m.LaunchID] = m.LaunchKey
	}
	return recompute(ctx, tx, launches)
}

// recompute refreshes the status of launches whose alarms changed.
func recompute(ctx context.Context, tx *store.Tx, launches map[int64]string) error {
	for id := range launches {
		if _, err := tx.RecomputeStatus(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// RuleSubject names a rule in the audit log.
func RuleSubject(id int64) string { return "rule:" + strconv.FormatInt(id, 10) }

// UpdateRule edits a rule with the same checks as SaveRule: the preview,
// and no hiding of confirmed alarms without an override and its reason.
// The alarms the rule held are re-opened and those the edited rule matches
// are suppressed again, in one transaction.
func UpdateRule(ctx context.Context, st *store.Store, id int64, d RuleDraft) (*Preview, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	old, err := st.RuleByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := d.checkRole(&old); err != nil {
		return nil, err
	}
	p, err := matchRule(ctx, st, d, 0)
	if err != nil {
		return nil, err
	}
	if len(p.Confirmed) > 0 && !d.Override {
		return p, &InvalidError{Fields: map[string]string{"override": "this rule would hide " +
			strconv.Itoa(len(p.Confirmed)) + " confirmed alarm(s): narrow it, or override with a reason"}}
	}
	// The edit form shows the days the rule has left, so saving it as it
	// came keeps its expiry (to the day) and changing them is explicit.
	r := d.rule(time.Now())
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateRule(ctx, id, r); err != nil {
			return err
		}
		if err := reopen(ctx, tx, id); err != nil {
			return err
		}
		launches := map[int64]string{}
		if old.Enabled {
			for _, m := range slices.Concat(p.Open, p.Suppressed) {
				held := m.Alarm.State == "suppressed"
				if held && (m.Alarm.RuleID == nil || *m.Alarm.RuleID != id) {
					continue // another rule holds it
				}
				var err error
				if held {
					err = tx.ResuppressByRule(ctx, m.LaunchID, m.Alarm.No, id)
				} else {
					_, err = tx.SuppressByRule(ctx, m.LaunchID, m.Alarm.No, id)
				}
				if err != nil {
					return err
				}
				launches[m.LaunchID] = m.LaunchKey
			}
		}
		if err := recompute(ctx, tx, launches); err != nil {
			return err
		}
		detail := map[string]any{
			"before": map[string]any{"matcher": old.Matcher, "pattern": old.Pattern, "scope": old.Scope,
				"scope_value": old.ScopeValue, "reason": old.Reason},
			"after": map[string]any{"matcher": r.Matcher, "pattern": r.Pattern, "scope": r.Scope,
				"scope_value": r.ScopeValue, "reason": r.Reason},
			"confirmed_matched": len(p.Confirmed)}
		if d.Override {
			detail["override_reason"] = d.OverrideReason
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: d.Author, Action: "rule.update", Subject: RuleSubject(id),
			Detail: detail})
	})
	return p, err
}
