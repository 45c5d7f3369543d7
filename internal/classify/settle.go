package classify

// An event is settled when nothing that may still come can change it: see
// Alarm.Settled. Settling is part of the verdict stage; the recognisers only
// say when an event's grammar ended (ev.St == stClosed).

// settled reports whether ev can no longer change by the lines that follow.
func (s *State) settledNow(ev *event) bool {
	return ev.St == stClosed && ev.Await < s.d.N && !s.awaitsEvidence(ev)
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

// settleEvent closes ev for good (it is being retired, or Settle was called).
func (s *State) settleEvent(fb *feedBuf, ev *event) {
	ev.St, ev.Await = stClosed, 0
	if ev.A.ID != 0 && !ev.A.Settled {
		ev.A.Settled = true
		fb.touch(ev)
	}
}

// Settle closes every open event as if the stream had ended here: the
// process exited, the collector says the stream is over, or the caller's
// wall-clock bound after the last line passed (ingest settles a launch whose
// PendingFatal is not zero about 2 s after its last line). Lines fed later
// start new events. The Result carries the alarms that changed.
func (s *State) Settle() Result {
	fb := feedBuf{}
	s.promoteOnSettle(&fb) // an ERROR run the launch went silent after
	for _, ev := range s.d.Events {
		s.settleEvent(&fb, ev)
	}
	return fb.result()
}
