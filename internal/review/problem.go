package review

import (
	"context"
	"strconv"

	"launchwatch/internal/store"
)

// MaxProblemDecision bounds how many alarms one decision on a problem
// touches (and its preview lists).
const MaxProblemDecision = maxBulk

// AlarmRef names an alarm in a form: "KEY/NO".
func AlarmRef(launchKey string, no int) string { return launchKey + "/" + strconv.Itoa(no) }

// DecideProblem gives the verdict to the open alarms of a problem that the
// reviewer previewed (previewed holds the AlarmRef of each), in one
// transaction, and returns how many it decided. An alarm that opened after
// the preview is left open (the reviewer has not seen it); one decided
// meanwhile keeps that decision. Launches are locked in id order, as
// DecideGroup does.
func DecideProblem(ctx context.Context, st *store.Store, fingerprint string, previewed map[string]bool, d Decision) (int, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	refs, err := st.OpenProblemAlarms(ctx, fingerprint, MaxProblemDecision)
	if err != nil {
		return 0, err
	}
	state := "confirmed"
	if d.Verdict == Dismiss {
		state = "dismissed"
	}
	n := 0
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		n = 0
		changed := map[int64]string{}
		locked := map[int64]bool{}
		for _, r := range refs {
			if !previewed[AlarmRef(r.LaunchKey, r.No)] {
				continue
			}
			if !locked[r.LaunchID] {
				if _, err := tx.LockLaunch(ctx, r.LaunchID); err != nil {
					return err
				}
				locked[r.LaunchID] = true
			}
			decided, err := tx.DecideOpenAlarm(ctx, r.LaunchID, r.No, state, d.Actor, d.Reason)
			if err != nil {
				return err
			}
			if !decided {
				continue
			}
			err = tx.AddAudit(ctx, store.AuditEvent{Actor: d.Actor, Action: "alarm." + d.Verdict,
				Subject: Subject(r.LaunchKey, r.No),
				Detail:  map[string]any{"from": "open", "to": state, "reason": d.Reason, "problem": fingerprint}})
			if err != nil {
				return err
			}
			changed[r.LaunchID] = r.LaunchKey
			n++
		}
		for id, key := range changed {
			if _, err := tx.RecomputeStatus(ctx, id); err != nil {
				return err
			}
			if err := tx.Notify(ctx, key); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}
