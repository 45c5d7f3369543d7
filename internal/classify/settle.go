package classify

// An event is settled when nothing that may still come can change it: see
// Alarm.Settled. Settling is part of the verdict stage; the recognisers only
// say when an event's grammar ended (ev.St == stClosed).

// settled reports whether ev can no longer change by the lines that follow.
func (s *State) settledNow(ev *event) bool {
	return ev.St == stClosed && ev.Await < s.d.N && !s.awaitsEvidence(ev) && !s.waitsForParent(ev)
}

// waitsForParent reports a failure printed after a supervisor or proxy
// started a child (event.Spawned) that its parent has not spoken since:
// the parent's next line says whether the child's death was the server's
// (supervisord's "exited: ... not expected") or one it outlives
// (llama-swap's "Failed to start process", a survivor). The child's own
// last words ("exiting due to ...") come first and do not tell.
func (s *State) waitsForParent(ev *event) bool {
	return ev.Spawned && s.d.ParentN < ev.SpawnN
}

// undecided reports an unsettled fatal event whose lines so far do not say
// that the process failed, only that something may have:
//   - a traceback whose failure so far is only a network call's (event.Net):
//     the call's caller may well retry it, as a retry line right after it
//     would say;
//   - a bare "Traceback (most recent call last):" and nothing else yet, or
//     with frames that only enter the program, run its event loop and wait
//     (event.Worked), with no line before it saying something failed;
//   - a traceback that threading's "Exception in thread NAME:" introduced,
//     still in its frames: an uncaught exception ends that thread, not the
//     process, and only its exception line can say the process is done for
//     (a failed network call of a telemetry thread is withdrawn,
//     threadCallFailed);
//   - a traceback whose only exception is a failed import under importlib's
//     frames (netImport): a plugin loader may skip what it could not load,
//     as the next line would say ("Cannot import ... module for custom
//     nodes"), and go on;
//   - an event printed after a supervisor or proxy started a child, under
//     another prefix than the parent's, that the parent has not spoken
//     after yet (waitsForParent);
//   - a traceback whose frames show a signal being turned into an exception
//     (event.Interrupt), or one of whose frames blocks (event.Waits: a
//     process waiting for its workers, where a signal finds it), still in
//     its frames: the operator's stop of a KeyboardInterrupt, until its
//     exception line says what was raised.
//
// Until the next line tells (a retry line withdraws it; anything else
// continues or closes it, and it settles as usual) or the stream ends
// (SettleStreamEnd, SettleExit), it waits like a trailing ERROR run:
// Summary counts it in PendingRuns, not PendingFatal, and SettleIdle leaves
// it alone. A shipper's batch that ends inside a retried traceback then
// shows no alarm that the retry takes back a moment later.
func (s *State) undecided(ev *event) bool {
	if !ev.live() || !ev.A.Fatal || ev.A.Settled || ev.Signalled || isRootCauseKind(ev.A.Kind) {
		return false
	}
	plumbing := ev.St == stFrames && ev.Prio <= 0 && !ev.Fixed && ev.Net == netNone && !ev.Worked && !ev.CurWork
	return plumbing || s.waitsForParent(ev) || ev.Net == netOnly || ev.Net == netImport || ev.DynImport && ev.St == stFrames && ev.Net == netNone || ev.Net == netNone && ev.NetFrame || (ev.Thread || ev.Interrupt || ev.Waits) && ev.St == stFrames
}

// markSettled reports every live alarm that settled during this call.
func (s *State) markSettled(fb *feedBuf) {
	for _, ev := range s.d.Events {
		if ev.A.ID != 0 && !ev.A.Settled && s.settledNow(ev) {
			ev.A.Settled = true
			fb.touch(ev)
		}
	}
}

// settleEvent closes ev for good (it is being retired, or the process exited).
func (s *State) settleEvent(fb *feedBuf, ev *event) {
	ev.St, ev.Await = stClosed, 0
	s.settleSoft(fb, ev)
}

// settleSoft makes ev's alarm count for the status now, leaving its grammar
// as it is: a traceback that goes on still joins it, a retry line within its
// window still withdraws it (the status then changes back; lines that come
// more than the settle bound after a traceback are rare).
func (s *State) settleSoft(fb *feedBuf, ev *event) {
	if ev.A.ID != 0 && !ev.A.Settled {
		ev.A.Settled = true
		fb.touch(ev)
	}
}

// SettleMode says why the caller settles a launch.
type SettleMode int

const (
	// SettleIdle: no line came for the settle bound (ingest's settler, about
	// 2 s after the last line). Every alarm but an undecided one counts for
	// the status (a reporting thread's death is withdrawn, as in every
	// mode); nothing is closed, so the lines that may still come are read
	// as usual.
	SettleIdle SettleMode = iota
	// SettleStreamEnd: a reader asks for the verdict after the settle bound
	// (GET /api/v1/launches/{key}), or eval's stream ended. Every alarm
	// counts, and an ERROR run that was the last thing a launch that is not ready
	// printed becomes a fatal alarm: the process went quiet after it. Should
	// another line come after all, that alarm is withdrawn again (it was no
	// last words); a line that goes on with the failure keeps it.
	SettleStreamEnd
	// SettleExit: the process exited. Every event is closed for good and a
	// trailing ERROR run is its cause.
	SettleExit
)

// Settle settles the launch's events as mode says (see SettleMode) and
// returns the alarms that changed. Lines fed later continue as usual.
func (s *State) Settle(mode SettleMode) Result {
	fb := feedBuf{}
	if mode != SettleIdle {
		for _, ev := range s.promoteOnSettle(&fb) {
			ev.Tentative = mode == SettleStreamEnd
		}
	}
	for _, ev := range s.d.Events {
		if mode == SettleIdle && s.undecided(ev) {
			continue // waits for the next line or the stream's end
		}
		// A reporting thread's death is withdrawn whenever its event
		// settles, at the bound too: settled as a fatal alarm by the
		// settler, it stayed one (nothing settles a settled event again),
		// while a reader or the stream's end a moment earlier withdrew it,
		// so the verdict hung on which came first.
		s.threadCallFailed(&fb, ev)
		if mode == SettleExit {
			s.settleEvent(&fb, ev)
		} else {
			s.settleSoft(&fb, ev)
		}
	}
	if w := s.d.Announced; mode == SettleStreamEnd && w != nil && w.Quiet && s.d.Ready == nil && s.d.Fatal == 0 {
		// The launch went quiet after its readiness line with no bind
		// failure (logged at once) or after its advice where to connect:
		// it serves.
		s.confirmAnnounced(&fb)
	}
	var r Result
	fb.resultInto(&r)
	r.mem = resultMem{}
	return r
}

// reconsiderTentative runs for each line after a SettleStreamEnd: the
// ERROR runs it made alarms were last words only if nothing but more of the
// failure follows.
func (s *State) reconsiderTentative(fb *feedBuf, p *Prefix, t string, m *lineMatch) {
	if t == "" {
		return
	}
	for _, ev := range s.d.Events {
		if !ev.Tentative {
			continue
		}
		ev.Tentative = false
		if !(m.ending || m.best != nil || m.follow != nil || isErrorLevel(levelOf(p))) {
			s.withdraw(fb, ev)
		}
	}
}
