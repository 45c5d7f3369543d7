package pipeline

import (
	"context"
	"errors"
	"fmt"

	"launchwatch/internal/classify"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
)

// Difference is what reclassifying a launch changes (or, previewed, would
// change): its status, its alarms, the verdicts of its lines.
type Difference struct {
	Launch  string `json:"launch"`
	Preview bool   `json:"preview"`
	From    string `json:"from"` // the status before
	To      string `json:"to"`   // the status after
	// Added, Removed and Changed are alarms new, gone, or of the same
	// event with another headline (or fatality, or kind); Kept counts
	// those that persist (same event, same headline line).
	Added   []AlarmDiff `json:"added"`
	Removed []AlarmDiff `json:"removed"`
	Changed []AlarmDiff `json:"changed"`
	Kept    int         `json:"kept"`
	// DecisionsKept are people's decisions on alarms that persist;
	// DecisionsDropped those on alarms that vanished or changed their
	// headline: their history stays in the audit log.
	DecisionsKept    int    `json:"decisions_kept"`
	DecisionsDropped int    `json:"decisions_dropped"`
	LinesChanged     int    `json:"lines_changed"` // lines whose verdict changes
	ReadySeqBefore   *int64 `json:"ready_seq_before"`
	ReadySeqAfter    *int64 `json:"ready_seq_after"`
	// Classifier and Signatures are what judged it: the classifier's
	// name (Classifier()) and the taught signatures in its scope.
	Classifier string  `json:"classifier"`
	Signatures []int64 `json:"signatures"`
}

// Changes reports whether reclassifying changes anything a person sees.
func (d *Difference) Changes() bool {
	return d.From != d.To || len(d.Added)+len(d.Removed)+len(d.Changed) > 0 || d.LinesChanged > 0 ||
		(d.ReadySeqBefore == nil) != (d.ReadySeqAfter == nil) ||
		d.ReadySeqBefore != nil && d.ReadySeqAfter != nil && *d.ReadySeqBefore != *d.ReadySeqAfter
}

// ReclassifyOptions say how to reclassify.
type ReclassifyOptions struct {
	Preview bool   // compute the difference, change nothing
	Actor   string // who asked, for the audit log
	Why     string // why, for the audit log ("signature 4 applied to stored launches")
	// MayDropConfirmed allows (admins) a reclassification in which an
	// alarm a person confirmed vanishes or changes its headline; without
	// it such a one is refused with a *ConfirmedError (a preview answers).
	MayDropConfirmed bool
}

// ConfirmedError refuses a reclassification that would leave behind the
// decisions on alarms people confirmed.
type ConfirmedError struct{ Alarms []int }

func (e *ConfirmedError) Error() string {
	return fmt.Sprintf("reclassifying would drop the confirmation of alarm(s) %v: only an admin may", e.Alarms)
}

// errPreview rolls a previewed reclassification back.
var errPreview = errors.New("pipeline: preview")

// Reclassify judges the stored lines of launch key again with the current
// classifier, packs, taught signatures and rules, and writes the result in
// one transaction under the launch's lock: alarms (keeping people's
// decisions on those that persist), line verdicts, phases, readiness,
// checkpoints, the classifier state and the status. A preview runs the
// same transaction and rolls it back, so it answers exactly what applying
// would do. Decisions on alarms that vanish keep their history in the
// audit log, with a record of the reclassification.
func (p *Pipeline) Reclassify(ctx context.Context, key string, o ReclassifyOptions) (*Difference, error) {
	l, err := p.store.LaunchByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	var diff *Difference
	err = p.store.WithTx(ctx, func(tx *store.Tx) error {
		locked, err := tx.LockLaunch(ctx, l.ID)
		if err != nil {
			return err
		}
		b := batch{tx: tx, launch: locked, received: p.now().UTC(), settleAfter: p.settleAfter, clock: locked.Clock,
			piece: p.piece, cache: p.sigs, log: p.log}
		if diff, err = b.reclassify(ctx, p, key, o); err != nil {
			return err
		}
		if o.Preview {
			return errPreview
		}
		if !o.MayDropConfirmed {
			var confirmed []int
			for _, a := range diff.Removed {
				if a.State == "confirmed" && a.DecidedBy != "" {
					confirmed = append(confirmed, a.WasNo)
				}
			}
			for _, a := range diff.Changed {
				if a.WasState == "confirmed" && a.State != "confirmed" {
					confirmed = append(confirmed, a.WasNo)
				}
			}
			if len(confirmed) > 0 {
				return &ConfirmedError{Alarms: confirmed}
			}
		}
		return tx.Notify(ctx, key)
	})
	if errors.Is(err, errPreview) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return diff, nil
}

func (b *batch) reclassify(ctx context.Context, p *Pipeline, key string, o ReclassifyOptions) (*Difference, error) {
	l, tx := b.launch, b.tx
	server := l.Server
	if err := b.loadSignatures(ctx, server, nil); err != nil {
		return nil, err
	}
	old, err := tx.LaunchAlarms(ctx, l.ID)
	if err != nil {
		return nil, err
	}
	d := &Difference{Launch: key, Preview: o.Preview, From: l.Status, ReadySeqBefore: l.ReadySeq,
		Classifier: Classifier(), Signatures: b.taught.ids}
	if d.Signatures == nil {
		d.Signatures = []int64{}
	}
	// Replay every stored line, taking checkpoints as ingest does.
	state := classify.New(server, b.taught.opts()...)
	r := replay{state: state, stored: map[int64]store.StoredVerdict{}}
	var hits store.SignatureHits
	err = tx.ScanLinesAfter(ctx, l.ID, 0, nil, func(lines []classify.Line, vs []store.StoredVerdict) bool {
		if b.taught.set.Len() > 0 {
			for i := range lines {
				for _, id := range b.taught.set.Match(lines[i].Text, server) {
					hits.Add(id, lines[i].Text)
				}
			}
		}
		return r.chunk(lines, vs)
	})
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	if mode, ok := p.settleModeFor(l, b.received); ok {
		mergeResult(&r.res, state.Settle(mode))
	}
	res := r.res
	alarms := latestAlarms(res.Alarms)
	rules, err := b.rulesInForce(ctx)
	if err != nil {
		return nil, err
	}
	rec := reconcile(old, alarms, rules, server, l.Labels)
	rec.diff(d)
	changed := r.changed(res.Lines)
	d.LinesChanged = len(changed)

	// Write it all: the alarms anew, with the decisions they keep.
	if err := tx.DeleteAlarmsAfter(ctx, l.ID, 0); err != nil {
		return nil, err
	}
	if err := tx.UpsertAlarms(ctx, l.ID, alarms); err != nil {
		return nil, err
	}
	for _, j := range rec.alarms {
		switch {
		case j.DecidedBy != "":
			err = tx.CarryDecision(ctx, l.ID, store.Decision{No: j.ID, State: j.State, DecidedBy: j.DecidedBy,
				DecidedAt: j.was.DecidedAt, Reason: j.was.Reason})
		case j.RuleID != nil && j.resuppres:
			err = tx.ResuppressByRule(ctx, l.ID, j.ID, *j.RuleID)
		case j.RuleID != nil:
			_, err = tx.SuppressByRule(ctx, l.ID, j.ID, *j.RuleID)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := tx.UpdateVerdicts(ctx, l.ID, changed); err != nil {
		return nil, err
	}
	if err := tx.DeletePhasesAfter(ctx, l.ID, 0); err != nil {
		return nil, err
	}
	if err := tx.UpsertPhases(ctx, l.ID, res.Phases); err != nil {
		return nil, err
	}
	if err := tx.DeleteCheckpoints(ctx, l.ID, 0, 0); err != nil {
		return nil, err
	}
	if err := tx.SaveCheckpoints(ctx, l.ID, r.rewritten); err != nil {
		return nil, err
	}
	sum := state.Summary()
	if sum.Ready == nil && l.ReadySeq != nil {
		at, err := tx.ClearLogReadiness(ctx, l.ID)
		if err != nil {
			return nil, err
		}
		l.ReadyAt, l.ReadySeq = at, nil
	}
	if sum.Ready != nil {
		seq := sum.Ready.Seq
		d.ReadySeqAfter = &seq
	}
	if err := tx.CountSignatureHits(ctx, l.ID, hits, b.received, true); err != nil {
		return nil, err
	}
	b.rebuilt = true
	if err := b.saveLaunch(ctx, nil, launchid.Attrs{}, state, res); err != nil {
		return nil, err
	}
	d.To = b.status
	if err := tx.MarkReclassified(ctx, l.ID, b.received); err != nil {
		return nil, err
	}
	return d, b.auditReclassify(ctx, key, o, d, rec)
}

// auditReclassify records the reclassification on the launch, and on each
// alarm whose decision moved to another number or was left behind.
func (b *batch) auditReclassify(ctx context.Context, key string, o ReclassifyOptions, d *Difference, rec reconciled) error {
	actor := o.Actor
	if actor == "" {
		actor = "launchwatch"
	}
	add := func(subject string, detail map[string]any) error {
		if o.Why != "" {
			detail["why"] = o.Why
		}
		return b.tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: "alarm.reclassify", Subject: subject, Detail: detail})
	}
	for _, j := range rec.alarms {
		w := j.was
		if j.Withdrawn || w == nil || w.DecidedBy == nil {
			continue
		}
		switch {
		case j.persists && w.No != j.ID:
			if err := add(AlarmSubject(key, j.ID), map[string]any{"was_no": w.No, "state": w.State,
				"decided_by": *w.DecidedBy, "reason": deref(w.Reason), "outcome": "renumbered"}); err != nil {
				return err
			}
		case !j.persists:
			if err := add(AlarmSubject(key, w.No), map[string]any{"state": w.State, "decided_by": *w.DecidedBy,
				"reason": deref(w.Reason), "headline": w.Headline, "now_no": j.ID, "now_headline": j.Headline,
				"outcome": "headline changed: the decision was not kept"}); err != nil {
				return err
			}
		}
	}
	for _, w := range rec.removed {
		if w.DecidedBy == nil {
			continue
		}
		if err := add(AlarmSubject(key, w.No), map[string]any{"state": w.State, "decided_by": *w.DecidedBy,
			"reason": deref(w.Reason), "headline": w.Headline, "outcome": "vanished"}); err != nil {
			return err
		}
	}
	detail := map[string]any{"from": d.From, "to": d.To, "added": len(d.Added), "removed": len(d.Removed),
		"changed": len(d.Changed), "kept": d.Kept, "decisions_kept": d.DecisionsKept, "decisions_dropped": d.DecisionsDropped,
		"lines_changed": d.LinesChanged, "classifier": d.Classifier, "signatures": d.Signatures}
	if o.Why != "" {
		detail["why"] = o.Why
	}
	return b.tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: "launch.reclassify", Subject: LaunchSubject(key),
		Detail: detail})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
