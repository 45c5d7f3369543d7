package review

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchwatch/internal/classify"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
)

// SignatureDraft is a taught signature as submitted by its author: what a
// line means (ready, fatal, error, phase), how it is matched (as rules
// match: a template, a substring, a regular expression) and where it
// applies (all launches, a server kind, a label).
type SignatureDraft struct {
	Meaning    string // ready | fatal | error | phase
	Phase      string // with phase: the phase it begins
	Kind       string // with fatal and error: the alarm's kind; "" is other
	Matcher    string // template | substring | regex
	Pattern    string
	Scope      string // all | server | label
	ScopeValue string // the server kind, or name=value
	Reason     string
	Author     string
	// FromLaunchKey and FromSeq are the line it was taught from, if any.
	FromLaunchKey string
	FromSeq       int64
	// ApplyToStored also reclassifies the stored launches its preview
	// lists as changed.
	ApplyToStored bool
	// Admin is set when the author is an admin: only admins teach
	// signatures for all launches, or apply one to stored launches that
	// people confirmed alarms of.
	Admin bool
}

// SignatureSubject names a signature in the audit log.
func SignatureSubject(id int64) string { return "signature:" + strconv.FormatInt(id, 10) }

// user is the draft as the classifier compiles it (id 0: a draft).
func (d *SignatureDraft) user() classify.UserSignature {
	return classify.UserSignature{Meaning: d.Meaning, Phase: d.Phase, Kind: classify.AlarmKind(d.Kind), Matcher: d.Matcher,
		Pattern: d.Pattern}
}

// Validate trims the draft and checks every field; messages are per form
// field. A catch-all pattern is refused as for rules (blindReason).
func (d *SignatureDraft) Validate() error {
	d.Meaning, d.Phase, d.Kind = strings.TrimSpace(d.Meaning), strings.TrimSpace(d.Phase), strings.TrimSpace(d.Kind)
	d.Pattern, d.ScopeValue = strings.TrimSpace(d.Pattern), strings.TrimSpace(d.ScopeValue)
	d.Reason, d.Author = strings.TrimSpace(d.Reason), strings.TrimSpace(d.Author)
	f := map[string]string{}
	switch d.Meaning {
	case classify.MeaningReady, classify.MeaningFatal, classify.MeaningError:
		d.Phase = ""
	case classify.MeaningPhase:
		if !classify.PhaseName.MatchString(d.Phase) {
			f["phase"] = "name the phase it begins, in lower case (weights, kv_cache, cuda_graph ...)"
		}
	default:
		f["meaning"] = "choose what the line means: ready, fatal, error or phase"
	}
	if d.Meaning != classify.MeaningFatal && d.Meaning != classify.MeaningError {
		d.Kind = ""
	} else if d.Kind == string(classify.AlarmOther) {
		d.Kind = ""
	}
	switch {
	case d.Matcher != classify.MatchTemplate && d.Matcher != classify.MatchSubstring && d.Matcher != classify.MatchRegex:
		f["matcher"] = "choose template, substring or regex"
	case len(d.Pattern) > 2000:
		f["pattern"] = "a pattern is at most 2000 bytes"
	case d.Pattern == "":
		f["pattern"] = "give the pattern a line must match"
	default:
		if why := blindReason(d.Matcher, d.Pattern); why != "" {
			f["pattern"] = why
		} else if _, bad := f["meaning"]; !bad && f["phase"] == "" {
			if err := classify.CheckSignature(d.user()); err != nil {
				field := "pattern"
				if strings.Contains(err.Error(), "alarm kind") {
					field = "kind"
				}
				f[field] = strings.TrimPrefix(lastCause(err.Error()), "classify: ")
			}
		}
	}
	if why := checkScope(d.Scope, &d.ScopeValue); why != "" {
		f["scope"] = why
	}
	if d.Reason == "" {
		f["reason"] = "a signature needs a reason: how do you know what this line means?"
	} else if utf8.RuneCountInString(d.Reason) > 1000 {
		f["reason"] = "a reason is at most 1000 characters"
	}
	if why := checkAuthor(d.Author); why != "" {
		f["name"] = why
	}
	if len(f) > 0 {
		return &InvalidError{Fields: f}
	}
	return nil
}

// lastCause is the innermost message of a chain "a: b: c" of the
// classifier's errors that name a signature first.
func lastCause(msg string) string {
	if i := strings.LastIndex(msg, "classify: "); i > 0 {
		return msg[i:]
	}
	return msg
}

// checkRole refuses what only an admin may do: a signature for all
// launches, or a change to one (old).
func (d *SignatureDraft) checkRole(old *store.Signature) error {
	switch {
	case d.Admin:
		return nil
	case d.Scope == "all":
		return &ForbiddenError{Reason: "a signature for all launches needs an admin: scope it to a server or a label"}
	case old != nil && old.Scope == "all":
		return &ForbiddenError{Reason: "this signature covers all launches: only an admin may change it"}
	}
	return nil
}

func (d *SignatureDraft) signature() store.Signature {
	return store.Signature{Meaning: d.Meaning, Phase: d.Phase, Kind: d.Kind, Matcher: d.Matcher, Pattern: d.Pattern,
		Scope: d.Scope, ScopeValue: d.ScopeValue, Reason: d.Reason, Author: d.Author}
}

func signatureDetail(s store.Signature) map[string]any {
	d := map[string]any{"meaning": s.Meaning, "matcher": s.Matcher, "pattern": s.Pattern, "scope": s.Scope,
		"scope_value": s.ScopeValue, "reason": s.Reason}
	if s.Phase != "" {
		d["phase"] = s.Phase
	}
	if s.Kind != "" {
		d["kind"] = s.Kind
	}
	return d
}

// insertSignature stores a validated draft with the lines it matched and
// audits it, in tx.
func insertSignature(ctx context.Context, st *store.Store, tx *store.Tx, d SignatureDraft, examples []string, extra map[string]any) (int64, error) {
	s := d.signature()
	s.Examples = examples
	if d.FromLaunchKey != "" {
		if l, err := st.LaunchByKey(ctx, d.FromLaunchKey); err == nil {
			s.FromLaunchID = &l.ID
			if d.FromSeq > 0 {
				s.FromSeq = &d.FromSeq
			}
		}
	}
	id, err := tx.InsertSignature(ctx, s)
	if err != nil {
		return 0, err
	}
	detail := signatureDetail(s)
	for k, v := range extra {
		detail[k] = v
	}
	if d.FromLaunchKey != "" {
		detail["from_launch"], detail["from_seq"] = d.FromLaunchKey, d.FromSeq
	}
	return id, tx.AddAudit(ctx, store.AuditEvent{Actor: d.Author, Action: "signature.create", Subject: SignatureSubject(id),
		Detail: detail})
}

// SignaturePatch is a change to a signature: absent fields stay.
type SignaturePatch struct {
	Enabled *bool
	Reason  *string
	Actor   string
	Admin   bool
}

// UpdateSignature enables or disables a signature or rewrites its reason,
// recording who did it. Only an admin may change a signature for all
// launches. It applies to the lines classified from now on; stored
// launches keep their verdicts until they are reclassified.
func UpdateSignature(ctx context.Context, st *store.Store, id int64, p SignaturePatch) error {
	p.Actor = strings.TrimSpace(p.Actor)
	f := map[string]string{}
	if why := checkAuthor(p.Actor); why != "" {
		f["name"] = why
	}
	if p.Reason != nil {
		r := strings.TrimSpace(*p.Reason)
		p.Reason = &r
		switch {
		case r == "":
			f["reason"] = "a signature needs a reason"
		case utf8.RuneCountInString(r) > 1000:
			f["reason"] = "a reason is at most 1000 characters"
		}
	}
	if p.Enabled == nil && p.Reason == nil {
		f["enabled"] = `give "enabled" or "reason"`
	}
	if len(f) > 0 {
		return &InvalidError{Fields: f}
	}
	return st.WithTx(ctx, func(tx *store.Tx) error {
		old, err := tx.LockSignature(ctx, id)
		if err != nil {
			return err
		}
		d := SignatureDraft{Admin: p.Admin}
		if err := d.checkRole(&old); err != nil {
			return err
		}
		if err := tx.UpdateSignature(ctx, id, p.Enabled, p.Reason); err != nil {
			return err
		}
		detail := map[string]any{}
		action := "signature.update"
		if p.Enabled != nil && *p.Enabled != old.Enabled {
			action = "signature.disable"
			if *p.Enabled {
				action = "signature.enable"
			}
		}
		if p.Reason != nil && *p.Reason != old.Reason {
			detail["before"] = map[string]any{"reason": old.Reason}
			detail["after"] = map[string]any{"reason": *p.Reason}
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: p.Actor, Action: action, Subject: SignatureSubject(id), Detail: detail})
	})
}

// Conflict kinds: what a person decided that a draft contradicts.
const (
	// ConflictDismissed: an error or fatal signature matches a line of an
	// alarm a person dismissed as false.
	ConflictDismissed = "dismissed_alarm"
	// ConflictConfirmedHealthy: a fatal signature matches a launch a
	// person judged healthy (dismissed its fatal alarms, confirmed none).
	ConflictConfirmedHealthy = "confirmed_healthy"
	// ConflictConfirmedFatal: an error signature (survived) matches a line
	// of a fatal alarm a person confirmed.
	ConflictConfirmedFatal = "confirmed_fatal"
	// ConflictConfirmedCrash: a ready signature matches a line after a
	// fatal alarm a person confirmed.
	ConflictConfirmedCrash = "confirmed_crash"
)

// Conflict is a decision of a person that a draft contradicts.
type Conflict struct {
	Launch    string
	Seq       int64 // the matched line
	Kind      string
	AlarmNo   int // the decided alarm
	DecidedBy string
	Message   string
}

// SignaturePreview is what a draft would change among the stored launches
// (its backtest), with what it contradicts.
type SignaturePreview struct {
	*pipeline.Backtest
	Changed   []pipeline.BacktestLaunch // the launches whose verdict moves
	Conflicts []Conflict
	// Confirmed lists the changed launches with alarms people confirmed:
	// only an admin applies a signature to them.
	Confirmed []string
	// Refused says why the pattern matches (nearly) every line of the
	// launches read, "" when it does not.
	Refused string
}

// Catch-all bounds over the sampled launches: a signature matching more
// than this share of their lines is refused, once they hold at least
// catchAllMinLines lines.
const (
	catchAllShare    = 0.5
	catchAllMinLines = 10
)

// PreviewSignature backtests the draft (validated) over the most recent
// stored launches in its scope, within o's bounds.
func PreviewSignature(ctx context.Context, pipe *pipeline.Pipeline, d SignatureDraft, o pipeline.BacktestOptions) (*SignaturePreview, error) {
	bt, err := pipe.Backtest(ctx, d.signature(), o)
	if err != nil {
		return nil, err
	}
	p := &SignaturePreview{Backtest: bt}
	for _, l := range bt.Launches {
		if l.Changed() {
			p.Changed = append(p.Changed, l)
			for _, a := range l.Alarms {
				if a.State == "confirmed" {
					p.Confirmed = append(p.Confirmed, l.Key)
					break
				}
			}
		}
		p.Conflicts = append(p.Conflicts, conflicts(d.Meaning, l)...)
	}
	if bt.LinesScanned >= catchAllMinLines && float64(bt.LinesMatched) > catchAllShare*float64(bt.LinesScanned) {
		p.Refused = fmt.Sprintf("this pattern matches %d of the %d lines of the %d launches read: it would judge nearly "+
			"every line; make it specific to one message", bt.LinesMatched, bt.LinesScanned, bt.Scanned)
	}
	return p, nil
}

// conflicts lists the decisions of people in launch l that a signature
// meaning meaning contradicts.
func conflicts(meaning string, l pipeline.BacktestLaunch) []Conflict {
	var out []Conflict
	decided := func(a *store.Alarm) string {
		if a.DecidedBy == nil {
			return ""
		}
		return *a.DecidedBy
	}
	switch meaning {
	case classify.MeaningError, classify.MeaningFatal:
		for _, m := range l.Matched {
			switch a := m.Alarm; {
			case a == nil || a.DecidedBy == nil:
			case a.State == "dismissed":
				out = append(out, Conflict{Launch: l.Key, Seq: m.Seq, Kind: ConflictDismissed, AlarmNo: a.No, DecidedBy: decided(a),
					Message: fmt.Sprintf("line %d belongs to alarm %d, which %s dismissed: %s", m.Seq, a.No, decided(a), deref(a.Reason))})
			case a.State == "confirmed" && a.Fatal && meaning == classify.MeaningError:
				out = append(out, Conflict{Launch: l.Key, Seq: m.Seq, Kind: ConflictConfirmedFatal, AlarmNo: a.No, DecidedBy: decided(a),
					Message: fmt.Sprintf("line %d belongs to alarm %d, which %s confirmed as a real failure", m.Seq, a.No, decided(a))})
			}
		}
	}
	if meaning == classify.MeaningFatal && len(l.Matched) > 0 {
		var dismissed *store.Alarm
		confirmed := false
		for i := range l.Alarms {
			a := &l.Alarms[i]
			switch {
			case a.Fatal && a.State == "confirmed":
				confirmed = true
			case a.Fatal && a.State == "dismissed" && a.DecidedBy != nil && dismissed == nil:
				dismissed = a
			}
		}
		if dismissed != nil && !confirmed {
			out = append(out, Conflict{Launch: l.Key, Seq: l.Matched[0].Seq, Kind: ConflictConfirmedHealthy, AlarmNo: dismissed.No,
				DecidedBy: decided(dismissed), Message: fmt.Sprintf("%s judged this launch healthy (dismissed its fatal alarm %d): %s",
					decided(dismissed), dismissed.No, deref(dismissed.Reason))})
		}
	}
	if meaning == classify.MeaningReady && len(l.Matched) > 0 {
		for i := range l.Alarms {
			a := &l.Alarms[i]
			if a.Fatal && a.State == "confirmed" && a.FirstSeq < l.Matched[0].Seq {
				out = append(out, Conflict{Launch: l.Key, Seq: l.Matched[0].Seq, Kind: ConflictConfirmedCrash, AlarmNo: a.No,
					DecidedBy: decided(a), Message: fmt.Sprintf("%s confirmed alarm %d, a crash before line %d", decided(a), a.No,
						l.Matched[0].Seq)})
				break
			}
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// SaveResult is what saving a signature did.
type SaveResult struct {
	ID      int64
	Preview *SignaturePreview
	// Reclassified are the stored launches it was applied to.
	Reclassified []*pipeline.Difference
}

// SaveSignature validates the draft, checks the author's role, backtests
// it (refusing a pattern that matches nearly every line read), stores it
// with the lines it matched, and audits it. It applies to the lines
// ingested from now on; with ApplyToStored it also reclassifies the
// launches the preview lists as changed, each in its transaction (only an
// admin may when people confirmed alarms of any of them).
func SaveSignature(ctx context.Context, st *store.Store, pipe *pipeline.Pipeline, d SignatureDraft, o pipeline.BacktestOptions) (*SaveResult, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := d.checkRole(nil); err != nil {
		return nil, err
	}
	p, err := PreviewSignature(ctx, pipe, d, o)
	if err != nil {
		return nil, err
	}
	out := &SaveResult{Preview: p}
	if p.Refused != "" {
		return out, &InvalidError{Fields: map[string]string{"pattern": p.Refused}}
	}
	if d.ApplyToStored && !d.Admin && len(p.Confirmed) > 0 {
		return out, &ForbiddenError{Reason: fmt.Sprintf("people confirmed alarms of %d of the launches it would change (%s): "+
			"only an admin may apply it to them; save it without applying it to stored launches", len(p.Confirmed),
			strings.Join(p.Confirmed, ", "))}
	}
	examples, err := signatureExamples(ctx, st, d, p)
	if err != nil {
		return nil, err
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		out.ID, err = insertSignature(ctx, st, tx, d, examples, map[string]any{"launches_changed": len(p.Changed),
			"lines_matched": p.LinesMatched, "conflicts": len(p.Conflicts), "apply_to_stored": d.ApplyToStored,
			"launches_read": p.Scanned})
		return err
	})
	if err != nil || !d.ApplyToStored {
		return out, err
	}
	why := "signature " + strconv.FormatInt(out.ID, 10) + " applied to stored launches"
	var keys []string
	for _, l := range p.Changed {
		diff, err := pipe.Reclassify(ctx, l.Key, pipeline.ReclassifyOptions{Actor: d.Author, Why: why})
		if err != nil {
			return out, err
		}
		out.Reclassified = append(out.Reclassified, diff)
		keys = append(keys, l.Key)
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		return tx.AddAudit(ctx, store.AuditEvent{Actor: d.Author, Action: "signature.apply", Subject: SignatureSubject(out.ID),
			Detail: map[string]any{"launches": keys}})
	})
	return out, err
}

// signatureExamples are the lines a new signature keeps as its tests: the
// line it was taught from, then the lines the backtest matched.
func signatureExamples(ctx context.Context, st *store.Store, d SignatureDraft, p *SignaturePreview) ([]string, error) {
	var out []string
	add := func(s string) {
		for _, e := range out {
			if e == s {
				return
			}
		}
		if len(out) < 5 {
			out = append(out, s)
		}
	}
	if d.FromLaunchKey != "" && d.FromSeq > 0 {
		l, err := st.LaunchByKey(ctx, d.FromLaunchKey)
		switch {
		case err == nil:
			lines, err := st.LinesBetween(ctx, l.ID, d.FromSeq, d.FromSeq, 1)
			if err != nil {
				return nil, err
			}
			if set, err := classify.CompileSignatures([]classify.UserSignature{d.user()}); err == nil && len(lines) == 1 &&
				len(set.Match(lines[0].Text, l.Server)) > 0 {
				add(lines[0].Text)
			}
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
	}
	for _, l := range p.Launches {
		for _, m := range l.Matched {
			add(m.Text)
		}
	}
	return out, nil
}
