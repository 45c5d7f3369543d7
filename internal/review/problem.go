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
// DecideGroup does (both through decideOpen).
func DecideProblem(ctx context.Context, st *store.Store, fingerprint string, previewed map[string]bool, d Decision) (int, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	refs, err := st.OpenProblemAlarms(ctx, fingerprint, MaxProblemDecision)
	if err != nil {
		return 0, err
	}
	seen := refs[:0]
	for _, r := range refs {
		if previewed[AlarmRef(r.LaunchKey, r.No)] {
			seen = append(seen, r)
		}
	}
	return decideOpen(ctx, st, seen, d, "problem", fingerprint)
}
