// Package status holds the launch status machine of design.md: what a
// launch is (starting, loading, ready, alarm, crashed, exited) given the
// facts known about it. It is a pure function so ingest, review and the
// process reporter all agree.
package status

import "time"

// Launch statuses.
const (
	Starting = "starting" // lines arrive, nothing recognized yet
	Loading  = "loading"  // a startup phase was recognized
	Ready    = "ready"    // a readiness line or a passing health probe
	Alarm    = "alarm"    // an open fatal alarm: a question for a person, not yet a verdict
	Crashed  = "crashed"  // a confirmed fatal alarm, or the process died with an error
	Exited   = "exited"   // the process ended with code 0
	Silent   = "silent"   // nothing heard for too long while not ended: "we cannot see"
)

// Facts are what is known about a launch.
type Facts struct {
	Ready          bool
	Phase          string
	OpenFatal      int     // settled fatal alarms nobody decided on (an unsettled one is no verdict yet)
	ConfirmedFatal int     // fatal alarms a person confirmed
	ExitCode       *int    // reported by the process wrapper when the process ended
	ExitSignal     *string // the signal that killed the process, if any
	ExitRequested  bool    // the operator asked the process to stop: a deliberate shutdown
	// PendingFatal counts fatal alarms nobody decided on that are not
	// settled yet, and WasReady says the launch is shown ready already. A
	// pending fatal alarm holds a launch that is not shown ready yet from
	// becoming ready until it settles: settled, it would outrank readiness,
	// and `wait` would have exited 0 on a launch about to be alarm. A launch
	// shown ready stays ready while an alarm settles.
	PendingFatal int
	WasReady     bool
	// NewlyReady says the facts are those of the batch that brought the
	// ready line, and OpenFatalAfterReady counts the settled open fatal
	// alarms (of OpenFatal) that start after that line. Had the batch's
	// lines come one by one the launch would have been shown ready first,
	// so that batch is answered ready; they count from the next facts on.
	NewlyReady          bool
	OpenFatalAfterReady int
}

// Of returns the status of a launch with facts f. What the process itself
// reported (its exit) is definitive and wins over anything read in the log;
// a person's confirmation wins over the classifier's open question.
func Of(f Facts) string {
	switch {
	case f.ExitRequested && (f.ExitCode != nil || f.ExitSignal != nil):
		return Exited
	case f.ExitSignal != nil && *f.ExitSignal != "":
		return Crashed
	case f.ExitCode != nil && *f.ExitCode != 0:
		return Crashed
	case f.ExitCode != nil:
		return Exited
	case f.ConfirmedFatal > 0:
		return Crashed
	case f.OpenFatal > f.shownReadyFirst():
		return Alarm
	case f.Ready && !f.readyHeld():
		return Ready
	case f.Phase != "":
		return Loading
	default:
		return Starting
	}
}

// shownReadyFirst is how many open fatal alarms wait behind a readiness
// that came in the same batch (NewlyReady).
func (f Facts) shownReadyFirst() int {
	if f.Ready && f.NewlyReady {
		return f.OpenFatalAfterReady
	}
	return 0
}

// readyHeld reports whether an unsettled fatal alarm keeps the launch from
// being shown ready yet.
func (f Facts) readyHeld() bool {
	return f.PendingFatal > 0 && !f.WasReady
}

// Observed returns the status a viewer should see at now. A launch that is
// still starting or loading but was not heard from (no line, no heartbeat)
// for longer than after is Silent: "we cannot see", which is neither "not
// ready yet" nor "crashed". Stored statuses never hold Silent; it is a
// judgement about the present.
func Observed(stored string, lastHeard, now time.Time, after time.Duration) string {
	if (stored == Starting || stored == Loading) && after > 0 && now.Sub(lastHeard) > after {
		return Silent
	}
	return stored
}
