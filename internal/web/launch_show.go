package web

import (
	"context"
	"launchwatch/internal/api"
	"launchwatch/internal/decode"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

// healthAfterDeath is the API view of a's passes after its death.
func healthAfterDeath(a store.Alarm) *api.HealthAfterDeath {
	if a.HealthOKSince == nil || a.HealthOKLast == nil {
		return nil
	}
	return &api.HealthAfterDeath{Since: *a.HealthOKSince, Last: *a.HealthOKLast, Detail: a.HealthOKDetail}
}

// newLaunchJSON shows l as seen at now: a launch quiet for longer than
// silentAfter while loading is silent.
func newLaunchJSON(l *store.Launch, now time.Time, silentAfter time.Duration) api.Launch {
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

// launchShow answers GET /api/v1/launches/{key}: status, phase, counts,
// times. A launch whose fatal alarm is settling is answered once it settled
// (at most the settle bound later), so a reader asking right after the last
// batch gets the verdict, not the status it is about to leave; ?wait=0
// answers at once, with "settling": true.
func (h *handler) launchShow(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	wait, err := decode.IntParam(c.QueryParams(), "wait", 1, 0, 1)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return err
	}
	if wait == 1 {
		if l, _, err = h.pipe.AwaitSettled(ctx, l); err != nil {
			return err
		}
	}
	j, err := h.launchView(ctx, l)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, j)
}

// launchView is the API view of l now, with its alarms.
func (h *handler) launchView(ctx context.Context, l *store.Launch) (api.Launch, error) {
	j := newLaunchJSON(l, h.pipe.Clock().Now(), h.cfg.SilentAfter)
	if err := h.clockTimes(ctx, l, &j); err != nil {
		return j, err
	}
	alarms, err := h.store.Alarms(ctx, l.ID)
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

// clockTimes puts j's line times on the launch clock: the first and last
// lines' and the ready line's own times, and the exit's, which the server
// recorded when it was reported: on a backfilled log's clock that is not a
// time of the log, so its last line stands for it.
func (h *handler) clockTimes(ctx context.Context, l *store.Launch, j *api.Launch) error {
	c, err := h.store.Clock(ctx, l.ID)
	if err != nil {
		return err
	}
	j.ClockOffset, j.ClockSource, j.ClockTZ = c.Offset.Seconds(), c.Source, c.TZ
	first, last, err := h.store.LineSpan(ctx, l.ID)
	if err != nil {
		return err
	}
	j.Times.FirstLine, j.Times.LastLine, j.Times.Ready = nil, nil, nil
	if first.IsZero() {
		return nil
	}
	j.Times.FirstLine, j.Times.LastLine = &first, &last
	if l.ReadySeq != nil {
		lines, err := h.store.LinesBetween(ctx, l.ID, *l.ReadySeq, *l.ReadySeq, 1)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			j.Times.Ready = &lines[0].TS
		}
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
