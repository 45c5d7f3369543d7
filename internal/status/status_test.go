package status

import (
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	t.Parallel()
	zero, one, kill := 0, 1, "SIGKILL"
	empty := ""
	tests := []struct {
		name  string
		facts Facts
		want  string
	}{
		{"NothingKnown", Facts{}, Starting},
		{"PhaseSeen", Facts{Phase: "weights"}, Loading},
		{"ReadyBeatsPhase", Facts{Phase: "warmup", Ready: true}, Ready},
		{"OpenFatalIsAQuestion", Facts{Ready: true, OpenFatal: 1}, Alarm},
		{"ConfirmedFatalIsCrashed", Facts{Ready: true, OpenFatal: 1, ConfirmedFatal: 1}, Crashed},
		{"ExitZero", Facts{Ready: true, ExitCode: &zero}, Exited},
		{"ExitZeroWinsOverOpenAlarm", Facts{OpenFatal: 2, ExitCode: &zero}, Exited},
		{"ExitNonZero", Facts{Ready: true, ExitCode: &one}, Crashed},
		{"KilledBySignal", Facts{ExitSignal: &kill}, Crashed},
		{"OperatorStopIsNoCrash", Facts{Ready: true, ExitSignal: &kill, ExitRequested: true}, Exited},
		{"OperatorStopWithCode", Facts{Ready: true, ExitCode: &one, ExitRequested: true}, Exited},
		{"EmptySignalIgnored", Facts{ExitSignal: &empty, Phase: "init"}, Loading},
		{"PendingFatalIsNoAlarmYet", Facts{Phase: "init", PendingFatal: 1}, Loading},
		{"PendingFatalHoldsReadyBack", Facts{Phase: "warmup", Ready: true, PendingFatal: 1}, Loading},
		{"ShownReadyStaysReadyWhileAnAlarmSettles", Facts{Ready: true, WasReady: true, PendingFatal: 1}, Ready},
		{"SettledFatalOutranksReady", Facts{Ready: true, WasReady: true, OpenFatal: 1}, Alarm},
		{"ReadyFirstInTheBatchThatBroughtIt", Facts{Ready: true, NewlyReady: true, OpenFatal: 1, OpenFatalAfterReady: 1}, Ready},
		{"AFatalBeforeTheReadyLineStillCounts", Facts{Ready: true, NewlyReady: true, OpenFatal: 2, OpenFatalAfterReady: 1}, Alarm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Of(tt.facts); got != tt.want {
				t.Errorf("Of(%+v) = %q, want %q", tt.facts, got, tt.want)
			}
		})
	}
}

func TestObserved(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		stored string
		quiet  time.Duration
		want   string
	}{
		{"LoadingAndRecentlyHeard", Loading, time.Minute, Loading},
		{"LoadingAndQuietTooLong", Loading, 3 * time.Minute, Silent},
		{"StartingAndQuietTooLong", Starting, 3 * time.Minute, Silent},
		{"ReadyServersMayBeQuiet", Ready, time.Hour, Ready},
		{"CrashedStaysCrashed", Crashed, time.Hour, Crashed},
		{"AlarmStaysAlarm", Alarm, time.Hour, Alarm},
		{"ExitedStaysExited", Exited, time.Hour, Exited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Observed(tt.stored, now.Add(-tt.quiet), now, 2*time.Minute); got != tt.want {
				t.Errorf("Observed(%s, quiet %s) = %s, want %s", tt.stored, tt.quiet, got, tt.want)
			}
		})
	}
}
