package timeline

import (
	"context"
	"time"

	"launchwatch/internal/api"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

// LoadLaunchJSON reads the API view of l (GET /api/v1/launches/{key}, and
// the live stream's launch message) at now: its facts, its times on the
// launch clock and its alarms, in four statements whatever the number of
// alarms. The caller reads l itself, since it may first wait for l's
// verdict to settle.
func LoadLaunchJSON(ctx context.Context, st *store.Store, l *store.Launch, now time.Time, silentAfter time.Duration) (api.Launch, error) {
	j := LaunchJSON(l, now, silentAfter)
	if err := clockTimes(ctx, st, l, &j); err != nil {
		return j, err
	}
	alarms, err := st.Alarms(ctx, l.ID)
	if err != nil {
		return j, err
	}
	j.Alarms = make([]api.Alarm, len(alarms))
	for i, a := range alarms {
		j.Alarms[i] = api.Alarm{No: a.No, Kind: a.Kind, Fatal: a.Fatal, State: a.State, Headline: a.Headline,
			HeadlineSeq: a.HeadlineSeq, FirstSeq: a.FirstSeq, LastSeq: a.LastSeq, Ranks: a.Ranks, Fingerprint: a.Fingerprint,
			Settled: a.Settled, Cause: a.Cause, HealthAfterDeath: healthAfterDeath(a)}
	}
	j.SuppressedFatal = []api.SuppressedFatal{}
	for _, a := range alarms {
		if a.Fatal && a.State == "suppressed" && a.RuleID != nil {
			j.SuppressedFatal = append(j.SuppressedFatal, api.SuppressedFatal{No: a.No, RuleID: *a.RuleID,
				Headline: a.Headline, Settled: a.Settled})
		}
	}
	return j, nil
}

// LaunchJSON shows l as seen at now from its row alone (the launch list
// reads no more): a launch quiet for longer than silentAfter while loading
// is silent. Its times are the ones the server recorded; LoadLaunchJSON
// puts them on the launch clock.
func LaunchJSON(l *store.Launch, now time.Time, silentAfter time.Duration) api.Launch {
	j := api.Launch{
		Key: l.Key, Name: l.Name, Server: l.Server, ServerDetected: l.ServerDetected, Host: l.Host, Labels: l.Labels,
		Status: status.Observed(l.Status, l.LastHeard(), now, silentAfter), Settling: l.SettleAt != nil,
		Phase: l.Phase, LastSeq: l.LastSeq, ReadySeq: l.ReadySeq, ExitCode: l.ExitCode, Signal: l.ExitSignal,
		Config: l.Config, LinesPath: "/api/v1/launches/" + l.Key + "/lines", Endpoints: l.Endpoints,
		Counts: api.Counts{Lines: l.LineCount, Alarms: l.Alarms, OpenAlarms: l.OpenAlarms, FatalAlarms: l.FatalAlarms},
		Times: api.Times{Created: l.CreatedAt, Updated: l.UpdatedAt, FirstLine: l.FirstLineAt, LastLine: l.LastLineAt,
			Ready: l.ReadyAt, Ended: l.EndedAt, LastHeartbeat: l.LastHeartbeatAt},
		JudgedBy:       api.JudgedBy{Classifier: l.JudgedBy, Signatures: l.SignatureIDs},
		ReclassifiedAt: l.ReclassifiedAt,
	}
	if j.JudgedBy.Signatures == nil {
		j.JudgedBy.Signatures = []int64{}
	}
	if l.PhaseTotal > 0 {
		j.Progress = &api.Progress{Done: l.PhaseDone, Total: l.PhaseTotal}
	}
	if j.Endpoints == nil {
		j.Endpoints = []string{}
	}
	return j
}

// healthAfterDeath is the API view of a's passes after its death.
func healthAfterDeath(a store.Alarm) *api.HealthAfterDeath {
	if a.HealthOKSince == nil || a.HealthOKLast == nil {
		return nil
	}
	return &api.HealthAfterDeath{Since: *a.HealthOKSince, Last: *a.HealthOKLast, Detail: a.HealthOKDetail}
}

// clockTimes puts j's line times on the launch clock: the first and last
// lines' and the ready line's own times, and the exit's, which the server
// recorded when it was reported: on a backfilled log's clock that is not a
// time of the log, so its last line stands for it.
func clockTimes(ctx context.Context, st *store.Store, l *store.Launch, j *api.Launch) error {
	c, err := st.Clock(ctx, l.ID)
	if err != nil {
		return err
	}
	j.ClockOffset, j.ClockSource, j.ClockTZ = c.Offset.Seconds(), c.Source, c.TZ
	first, last, err := st.LineSpan(ctx, l.ID)
	if err != nil {
		return err
	}
	j.Times.FirstLine, j.Times.LastLine, j.Times.Ready = nil, nil, nil
	if first.IsZero() {
		return nil
	}
	j.Times.FirstLine, j.Times.LastLine = &first, &last
	if j.Times.Ready, err = ReadyTime(ctx, st, l); err != nil {
		return err
	}
	if l.EndedAt != nil {
		ended := *l.EndedAt
		if c.Logged && c.Source == "" || ended.Before(last) {
			ended = last
		}
		j.Times.Ended = &ended
	}
	return nil
}
