package review

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchwatch/internal/classify"
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

// SaveSignature validates the draft, checks the author's role, stores the
// signature and audits it. It applies to the lines classified from now on.
func SaveSignature(ctx context.Context, st *store.Store, d SignatureDraft) (int64, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	if err := d.checkRole(nil); err != nil {
		return 0, err
	}
	var id int64
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		id, err = insertSignature(ctx, st, tx, d, nil, nil)
		return err
	})
	return id, err
}
